#include "causes.hpp"

#include <errno.h>
#include <signal.h>

#include <algorithm>

namespace kd {
namespace {

using N = std::array<int, 4>;
using W = std::array<std::string_view, 3>;

constexpr unsigned kCount = kDeviceCount;

// The next actions that several causes share.
constexpr std::string_view kRaiseMemory =
    "Raise the memory or address-space limit (ulimit -v, or the container's memory limit): "
    "loading libtorch takes hundreds of MiB of address space, a CUDA build several GiB.";
constexpr std::string_view kRaiseProcesses =
    "Raise the process limit (ulimit -u, or the container's pids limit): the check runs two "
    "processes at once, itself and its worker, and the limit counts every process and thread "
    "of the user.";

// The catalogue. Rows are tried in this order: the first that fits is the
// cause, so the evidence-backed rows come before the bare numbers, and each
// layer ends in its generic row (none for compute and an allocation: their
// failure stays the backend's error).
constexpr CauseInfo kCauses[] = {
    // ---- device ----
    {CauseId::WslGpuNotReached, "wsl_gpu_not_reached",
     "WSL2 without its way to the GPU (/dev/dxg and the WSL driver libraries)", Stage::Device,
     Outcome::GpuUnavailable, "WslGpuNotReached", kCount, Api::Cuda, N{35, 100, 999, 3}, W{}, "",
     Sign::WslWithoutNvidiaNodes,
     "CUDA runtime error 35, 100, 999 or 3 on a WSL2 kernel (its release names microsoft) without "
     "/dev/nvidiaN, which WSL2 never has: its GPU is /dev/dxg",
     "No usable GPU in this process: this is WSL2 (a Microsoft kernel), where the GPU is reached "
     "through /dev/dxg and the driver libraries of /usr/lib/wsl/lib, never /dev/nvidia* ({dxg}).",
     "Install the NVIDIA driver for WSL on Windows (never a Linux driver inside WSL), start the "
     "container with --gpus all (Docker Desktop's WSL2 backend mounts /dev/dxg and "
     "/usr/lib/wsl/lib), and keep /usr/lib/wsl/lib on the loader's path (ldconfig)."},
    {CauseId::GpusWithoutNvidiaRuntime, "gpus_without_nvidia_runtime",
     "GPUs given by the device plugin, the container not started by the NVIDIA runtime",
     Stage::Device, Outcome::GpuUnavailable, "GpusWithoutNvidiaRuntime", kCount, Api::Cuda,
     N{35, 100, 999, 3}, W{}, "", Sign::PluginWithoutRuntime,
     "CUDA runtime error 35, 100, 999 or 3 while NVIDIA_VISIBLE_DEVICES names GPU UUIDs (its "
     "shape uuid_list, as the NVIDIA device plugin sets it) and there is no /dev/nvidiaN",
     "No usable GPU in this process: GPUs were given to it (NVIDIA_VISIBLE_DEVICES names GPU "
     "UUIDs, as the NVIDIA device plugin sets it), but no /dev/nvidia* node was put in the "
     "container: it was not started by the NVIDIA container runtime.",
     "Run the pod with the NVIDIA runtime (runtimeClassName: nvidia, or nvidia as the node's "
     "default containerd or CRI-O runtime, as the GPU operator sets it up): the device plugin "
     "only names the GPUs, the runtime exposes them."},
    {CauseId::DriverLinkMissing, "driver_link_missing",
     "libcuda.so.1 missing beside the driver library", Stage::Device, Outcome::GpuUnavailable,
     "DriverLinkMissing", kCount, Api::Cuda, N{35}, W{}, "", Sign::LinkMissing,
     "CUDA runtime error 35 (insufficient driver) with no driver version, while a "
     "libcuda.so.<version> is where the loader looks and no libcuda.so.1 is",
     "No usable GPU in this process: the NVIDIA driver library is there (libcuda.so.{libcuda_version}) "
     "but not the libcuda.so.1 link the CUDA runtime loads it by.",
     "Run ldconfig in the container (or let the NVIDIA container toolkit's update-ldcache or CDI "
     "hook run it) so that libcuda.so.1 links to libcuda.so.{libcuda_version}; a driver library "
     "copied into an image needs its link too."},
    {CauseId::DriverCapabilityMissing, "driver_capability_missing",
     "the driver mounted without its compute capability", Stage::Device, Outcome::GpuUnavailable,
     "DriverCapabilityMissing", kCount, Api::Cuda, N{35}, W{}, "", Sign::CapabilityMissing,
     "CUDA runtime error 35 (insufficient driver) with no driver version, while the NVIDIA device "
     "nodes and libnvidia-ml.so.1 are there and no libcuda is where the loader looks: "
     "NVIDIA_DRIVER_CAPABILITIES without compute",
     "No usable GPU in this process: the GPUs' device nodes and the driver's management library "
     "(libnvidia-ml.so.1) are there, but not its CUDA library (libcuda.so.1): the container "
     "runtime mounted the driver without the compute capability.",
     "Add compute to NVIDIA_DRIVER_CAPABILITIES (compute,utility, or all) where the container is "
     "defined (the image's ENV, the pod's env, docker run -e) and start it again: the NVIDIA "
     "container runtime mounts libcuda.so.1 only for that capability."},
    {CauseId::NoDriver, "no_driver", "no NVIDIA driver library", Stage::Device,
     Outcome::GpuUnavailable, "NoDriver", kCount, Api::Cuda, N{35}, W{"Found no NVIDIA driver"}, "",
     Sign::NoDriverVersion,
     "CUDA runtime error 35 (insufficient driver) while the runtime reports no driver version; "
     "without a runtime to ask, libtorch's \"Found no NVIDIA driver\"",
     "No usable GPU in this process: the NVIDIA driver library (libcuda.so.1) could not be "
     "loaded.",
     "Expose the driver to this container (NVIDIA container toolkit, --gpus) and check device "
     "exposure and permissions."},
    {CauseId::DriverTooOld, "driver_too_old", "driver too old for libtorch's CUDA runtime",
     Stage::Device, Outcome::GpuUnavailable, "DriverTooOld", kCount, Api::Cuda, N{35},
     W{"driver on your system is too old", "insufficient for CUDA runtime"}, "",
     Sign::DriverVersion,
     "CUDA runtime error 35 (insufficient driver) with a driver version; without a runtime to "
     "ask, libtorch's \"driver on your system is too old\" or \"insufficient for CUDA runtime\"",
     "No usable GPU in this process: the NVIDIA driver is too old for the CUDA runtime this "
     "libtorch was built with (the driver supports CUDA {driver_cuda}, the runtime is CUDA "
     "{runtime_cuda}).",
     "Update the GPU driver, or install a libtorch built for the CUDA version the driver "
     "supports."},
    {CauseId::StubDriver, "stub_driver", "the CUDA toolkit's stub driver library loaded",
     Stage::Device, Outcome::GpuUnavailable, "StubDriver", kCount, Api::Cuda, N{34}, W{}, "",
     Sign::StubLibrary,
     "CUDA runtime error 34 (stub library) while the libcuda.so.1 the loader finds is in a stubs "
     "folder or has no version in its file name",
     "No usable GPU in this process: the CUDA runtime loaded a stub of the driver library "
     "({stub_file}; error 34), which only serves to link programs, instead of the NVIDIA "
     "driver's libcuda.so.1.",
     "Take the stubs folder (the CUDA toolkit's lib64/stubs) off LD_LIBRARY_PATH and out of "
     "ld.so.conf, and remove any libcuda.so.1 that links to the stub from the image, so that the "
     "driver's own libcuda.so.1, which the NVIDIA container toolkit mounts, is loaded."},
    {CauseId::DeviceCgroupDenied, "device_cgroup_denied",
     "the device cgroup refuses the GPU nodes (the container's device rules lost)", Stage::Device,
     Outcome::GpuUnavailable, "DeviceCgroupDenied", kCount, Api::Both, N{100, 999, 3, 304}, W{},
     "", Sign::CgroupRefusesControl,
     "runtime error 100, 999, 3 or 304 while the kernel refuses this process the vendor's "
     "control node (/dev/nvidiactl or /dev/nvidia-uvm; /dev/kfd for ROCm) with EPERM when its "
     "permissions are asked (access(2), never an open): a device cgroup, not the node's mode; on "
     "cgroup v1 its devices.list is read too",
     "No usable GPU in this process: the device nodes are there and their permissions allow this "
     "user, but the kernel refuses them ({refused_nodes}: EPERM): the container's device "
     "cgroup{cgroup_list} no longer lets it use the GPUs, as when its device rules are lost "
     "(systemctl daemon-reload with the systemd cgroup driver, the kubelet's static CPU manager).",
     "Recreate the container (a restart keeps the lost rules); for a lasting fix, as NVIDIA "
     "documents, create the /dev/char links of the NVIDIA nodes (nvidia-ctk system "
     "create-dev-char-symlinks --create-all), give the nodes as --device rules, or run the "
     "container runtime with the cgroupfs cgroup driver."},
    {CauseId::NoGpuGranted, "no_gpu_granted", "no GPU granted to this job by its device cgroup",
     Stage::Device, Outcome::GpuUnavailable, "NoGpuGranted", kCount, Api::Both,
     N{100, 999, 3, 304}, W{}, "", Sign::CgroupRefusesEveryGpu,
     "runtime error 100, 999, 3 or 304 while the kernel refuses every GPU node (/dev/nvidiaN; "
     "/dev/dri/renderD* for ROCm) with EPERM and the control node is open: a scheduler's device "
     "cgroup, which grants a job its own GPUs (only some GPUs refused is no cause of its own)",
     "No usable GPU in this process: its device cgroup grants it none of the GPUs here "
     "({refused_gpus} refused: EPERM) while the driver's own nodes are open, as a scheduler does "
     "with the GPUs of other jobs (Slurm's ConstrainDevices, a device plugin).",
     "Ask the scheduler for a GPU (srun --gres=gpu:1, the pod's nvidia.com/gpu limit) and run the "
     "check inside that allocation: it counts the GPUs it was granted from 0."},
    {CauseId::NodeGroupUnmapped, "node_group_unmapped",
     "the device nodes' group not mapped into the user namespace (a rootless container)",
     Stage::Device, Outcome::GpuUnavailable, "NodeGroupUnmapped", kCount, Api::Both,
     N{100, 999, 3, 304}, W{}, "", Sign::GroupUnmapped,
     "runtime error 100, 999, 3 or 304 while GPU nodes that their mode refuses belong to a group "
     "this process's user namespace does not map (their gid shows as the overflow gid of "
     "/proc/sys/kernel/overflowgid, which /proc/self/gid_map lacks)",
     "No usable GPU in this process: it runs in a user namespace (a rootless container) that does "
     "not map the device nodes' group, so their group shows as the overflow group and no user in "
     "here can join it ({closed_nodes}).",
     "Keep the host's groups in the rootless container (podman run --group-add keep-groups, with "
     "crun), map the nodes' group into its user namespace (/etc/subgid), or give the nodes a mode "
     "that lets others read and write them (a udev rule)."},
    {CauseId::DeviceNodesNotAccessible, "device_nodes_not_accessible",
     "device nodes this user may not open", Stage::Device, Outcome::GpuUnavailable,
     "DeviceNodesNotAccessible", kCount, Api::Both, N{100, 999, 3, 304}, W{}, "",
     Sign::NodesNotAccessible,
     "runtime error 100, 999, 3 or 304 while a GPU device node exists that this process may not "
     "read and write by its mode (access(2) answers EACCES)",
     "No usable GPU in this process: the device nodes are there but this user may not open them "
     "({closed_nodes}).",
     "Run as a user who may read and write them (their group, often video or render), or let "
     "the container runtime or the device plugin set their permissions."},
    {CauseId::NoDeviceNodes, "no_device_nodes", "no GPU device node in the container",
     Stage::Device, Outcome::GpuUnavailable, "NoDeviceNodes", kCount, Api::Both,
     N{100, 999, 3, 304}, W{}, "", Sign::NoGpuNodes,
     "runtime error 100, 999, 3 or 304 while there is no GPU device node (/dev/nvidiaN; /dev/kfd "
     "and /dev/dri/renderD* for ROCm)",
     "No usable GPU in this process: no {vendor} device node in this container (started without "
     "{expose}).",
     "Start the container with its GPUs exposed (--gpus or the device plugin; for ROCm --device "
     "/dev/kfd --device /dev/dri) and check that the node gives it a GPU."},
    {CauseId::GpusHidden, "gpus_hidden", "GPUs hidden by a visibility variable", Stage::Device,
     Outcome::GpuUnavailable, "GpusHidden", kCount, Api::Both, N{100}, W{}, "", Sign::GpusHidden,
     "runtime error 100 (no device) while GPU device nodes exist and CUDA_VISIBLE_DEVICES, "
     "HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES is set",
     "No usable GPU in this process: the device nodes are there, but {variables} leaves no GPU "
     "visible.",
     "Unset the variable, or list GPUs this machine has (an index from 0, or the UUID of one of "
     "its GPUs)."},
    {CauseId::UvmMissing, "uvm_missing", "/dev/nvidia-uvm missing", Stage::Device,
     Outcome::GpuUnavailable, "UvmMissing", kCount, Api::Cuda, N{999}, W{}, "", Sign::UvmMissing,
     "CUDA runtime error 999 (unknown) while /dev/nvidiaN exists and /dev/nvidia-uvm does not",
     "No usable GPU in this process: /dev/nvidia-uvm is missing, and the CUDA runtime cannot "
     "work without it (error 999).",
     "Load the nvidia-uvm kernel module on the host (nvidia-modprobe -u -c=0) and expose "
     "/dev/nvidia-uvm to the container."},
    {CauseId::DriverMismatch, "driver_mismatch", "driver library and kernel module of different versions",
     Stage::Device, Outcome::GpuUnavailable, "DriverMismatch", kCount, Api::Cuda, N{803}, W{}, "",
     Sign::None, "CUDA runtime error 803 (system driver mismatch)",
     "No usable GPU in this process: the NVIDIA driver library ({driver_library}) and the kernel "
     "module ({kernel_module}) are of different versions (error 803).",
     "Use the driver libraries of the host's kernel module: let the NVIDIA container toolkit "
     "mount them instead of shipping libcuda in the image (or drop cuda-compat), or bring the "
     "host's driver to the library's version."},
    {CauseId::FabricManagerNotRunning, "fabric_manager_not_running",
     "NVSwitch system without the fabric manager", Stage::Device, Outcome::GpuUnavailable,
     "FabricManagerNotRunning", kCount, Api::Cuda, N{802}, W{}, "", Sign::None,
     "CUDA runtime error 802 (system not ready)",
     "No usable GPU in this process: the system is not ready (error 802); on an NVSwitch system "
     "(HGX) the NVIDIA fabric manager is not running.",
     "Start nvidia-fabricmanager on the host, of the driver's version, and wait until it has set "
     "up the NVSwitches."},
    {CauseId::CompatNotSupported, "compat_not_supported",
     "forward-compatibility libraries this GPU does not support", Stage::Device,
     Outcome::GpuUnavailable, "CompatNotSupported", kCount, Api::Cuda, N{804}, W{}, "",
     Sign::None, "CUDA runtime error 804 (compatibility not supported on device)",
     "No usable GPU in this process: the CUDA forward-compatibility libraries in use (cuda-compat) "
     "do not support this GPU (error 804).",
     "Take the compatibility libraries off the library path (cuda-compat, /usr/local/cuda/compat) "
     "and update the host's driver instead: forward compatibility serves data-center GPUs only."},
    {CauseId::DevicesBusy, "devices_busy", "GPUs busy or in exclusive mode", Stage::Device,
     Outcome::GpuUnavailable, "DevicesBusy", kDeviceCount | kDeviceStart, Api::Cuda, N{46}, W{},
     "", Sign::None,
     "CUDA runtime error 46 (devices unavailable), whether a GPU is usable or the device starts",
     "No usable GPU in this process: the GPUs are busy or unavailable (error 46), most often in "
     "exclusive-process mode and held by another process.",
     "Find the process that holds the GPU (nvidia-smi) and wait for it or stop it, or set the "
     "compute mode back to default (nvidia-smi -c DEFAULT)."},
    {CauseId::OsCallRefused, "os_call_refused", "an operating-system call refused (a sandbox)",
     Stage::Device, Outcome::GpuUnavailable, "OsCallRefused", kCount, Api::Both, N{304}, W{}, "",
     Sign::None, "runtime error 304 (operating system), device nodes present",
     "No usable GPU in this process: the operating system refused a call the driver needs (error "
     "304), as a sandbox does (seccomp, gVisor, a restricted runtime).",
     "Run the container with its runtime's GPU support (the NVIDIA container runtime) and without "
     "a seccomp or sandbox profile that blocks the driver's calls."},
    {CauseId::DriverInitFailed, "driver_init_failed", "driver initialisation failed",
     Stage::Device, Outcome::GpuUnavailable, "DriverInitFailed", kCount, Api::Both, N{3}, W{}, "",
     Sign::None, "runtime error 3 (initialisation error), device nodes present",
     "No usable GPU in this process: the driver could not be initialised (error 3).",
     "Check the driver on the host (nvidia-smi, dmesg for NVRM and Xid lines) and that the "
     "container's driver libraries are the host's."},
    {CauseId::OutOfMemoryAtInit, "out_of_memory_at_init", "out of memory while initialising",
     Stage::Device, Outcome::GpuUnavailable, "OutOfMemoryAtInit", kCount, Api::Both, N{2}, W{}, "",
     Sign::None, "runtime error 2 (out of memory)",
     "No usable GPU in this process: the driver ran out of memory while initialising (error 2).",
     "Free host memory or raise the container's memory limit, and check that no other process "
     "fills the GPU (nvidia-smi)."},
    {CauseId::UnknownDriverError, "unknown_driver_error", "unknown driver error", Stage::Device,
     Outcome::GpuUnavailable, "UnknownDriverError", kCount, Api::Both, N{999}, W{}, "",
     Sign::None, "runtime error 999 (unknown), device nodes present, /dev/nvidia-uvm too",
     "No usable GPU in this process: the driver answered an unknown error (999).",
     "Check dmesg for Xid errors; a GPU reset may be needed (nvidia-smi -r, or drain and reboot "
     "the node)."},
    {CauseId::NoDevice, "no_device", "the driver sees no GPU", Stage::Device,
     Outcome::GpuUnavailable, "NoDevice", kCount, Api::Both, N{100},
     W{"No CUDA GPUs are available", "No HIP GPUs are available"}, "", Sign::None,
     "runtime error 100 (no device) with accessible device nodes and no visibility variable set; "
     "without a runtime to ask, libtorch's \"No CUDA GPUs are available\" or \"No HIP GPUs are "
     "available\"",
     "No usable GPU in this process: the driver sees no GPU.",
     "Check device exposure (CUDA_VISIBLE_DEVICES, --gpus, the device plugin) and permissions."},
    {CauseId::GpuUnavailable, "gpu_unavailable", "no usable GPU, cause not recognised",
     Stage::Device, Outcome::GpuUnavailable, "GpuUnavailable", kCount, Api::Both, N{}, W{}, "",
     Sign::None, "any other answer: another runtime error number, or none",
     "No usable GPU in this process.", "Check device exposure, the driver and permissions."},

    // ---- import ----
    {CauseId::AddressSpaceLimit, "address_space_limit", "libtorch cannot be mapped (a memory limit)",
     Stage::Import, Outcome::TorchImportFailed, "AddressSpaceLimit", kLoader, Api::Both, N{}, W{},
     "", Sign::LoaderOutOfMemory,
     "loader: \"failed to map segment from shared object\", \"cannot map zero-fill pages\" or "
     "\"Cannot allocate memory\" (not a full static TLS block)",
     "libtorch was found but could not be mapped into memory{memory_limits}.",
     "The memory or address-space limit is the likely cause: raise it (ulimit -v, or the "
     "container's memory limit); loading libtorch takes hundreds of MiB of address space, a CUDA "
     "build several GiB."},
    {CauseId::CxxRuntimeTooOld, "cxx_runtime_too_old", "C++ runtime too old", Stage::Import,
     Outcome::TorchImportFailed, "CxxRuntimeTooOld", kLoader, Api::Both, N{},
     W{"version `GLIBCXX_", "version `CXXABI_"}, "not found", Sign::None,
     "loader: version `GLIBCXX_...' (or `CXXABI_...') not found",
     "libtorch was found but {needer} needs {needed} of the C++ runtime, which this image's "
     "{provider} is too old to have.",
     "Use a base image with a newer libstdc++ (a newer distribution release), or a libtorch built "
     "for this image's C++ runtime."},
    {CauseId::CLibraryTooOld, "c_library_too_old", "C library too old", Stage::Import,
     Outcome::TorchImportFailed, "CLibraryTooOld", kLoader, Api::Both, N{}, W{"version `GLIBC_"},
     "not found", Sign::None, "loader: version `GLIBC_...' not found",
     "libtorch was found but {needer} needs {needed} of the C library, which this image's "
     "{provider} is too old to have.",
     "Use a base image with a newer glibc (a newer distribution release), or a libtorch built for "
     "an older one (a wheel's manylinux tag names the oldest glibc it supports)."},
    {CauseId::CudaLibraryShadowed, "cuda_library_shadowed",
     "an older CUDA library of the image shadows the one libtorch came with", Stage::Import,
     Outcome::TorchImportFailed, "CudaLibraryShadowed", kLoader, Api::Both, N{}, W{}, "",
     Sign::CopyShadowing,
     "loader: undefined symbol ..., version libX.so.N, of a library not of libtorch, which the "
     "loader takes (resolving the import's needs as it does) from a folder LD_LIBRARY_PATH "
     "names: the image's CUDA toolkit folder, or another",
     "libtorch was found but {needer} needs a newer {library} than the one the loader takes "
     "first, from {folder}: the image's own CUDA libraries shadow those libtorch came with.",
     "Take that folder off LD_LIBRARY_PATH, or put it after the folders of the libraries libtorch "
     "came with (a pip torch's nvidia/*/lib): they need {library} of their own CUDA release."},
    {CauseId::MixedBuilds, "mixed_builds", "libtorch libraries from different builds",
     Stage::Import, Outcome::TorchImportFailed, "MixedBuilds", kLoader, Api::Both, N{},
     W{"undefined symbol"}, "", Sign::None, "loader: undefined symbol",
     "libtorch was found but its libraries come from different builds: {needer} needs a symbol "
     "the libraries loaded with it lack.",
     "Install libtorch from one release, all its libraries (libtorch*, libc10*) from the same "
     "build, and make sure no other copy comes first on LD_LIBRARY_PATH."},
    {CauseId::CorruptLibrary, "corrupt_library", "a damaged library file", Stage::Import,
     Outcome::TorchImportFailed, "CorruptLibrary", kLoader, Api::Both, N{},
     W{"invalid ELF header", "file too short", "cannot read file data"}, "", Sign::CopyDamaged,
     "loader: invalid ELF header, file too short, cannot read file data; or, after an import "
     "that failed (undefined symbol, words not recognised) or a worker killed at the import "
     "stage (SIGBUS, SIGSEGV, SIGILL, SIGFPE, SIGABRT), a file the import needs found damaged "
     "without loading it: shorter than its headers need, a header that does not parse, a "
     "dynamic section outside the file, a SHA-256 other than its wheel's RECORD lists for its "
     "size, or (an undefined symbol) no name where its hash table lists the symbol",
     "libtorch was found but {library} is not a valid shared library: a truncated download or an "
     "overwritten file.",
     "Reinstall the libtorch package (download it again) and check its files against the "
     "package's checksums."},
    {CauseId::LibraryUnreadable, "library_unreadable", "a library file this user may not read",
     Stage::Import, Outcome::TorchImportFailed, "LibraryUnreadable", kLoader, Api::Both, N{},
     W{"Permission denied"}, "cannot open shared object file", Sign::CopyUnreadable,
     "loader: cannot open shared object file: Permission denied; or the library is \"not found\" "
     "while a copy where the loader looks may not be read by this process (the loader skips it "
     "silently)",
     "libtorch was found but this user may not read {library} (the file's mode, or a folder above "
     "it).",
     "Make libtorch's files readable for the user the container runs as (chmod -R a+rX on its "
     "folder), or run as their owner."},
    {CauseId::WrongArchitecture, "wrong_architecture", "a library built for another architecture",
     Stage::Import, Outcome::TorchImportFailed, "WrongArchitecture", kLoader, Api::Both, N{},
     W{"wrong ELF class"}, "", Sign::CopyOtherMachine,
     "loader: wrong ELF class; or the library is \"not found\" while a copy where the loader looks "
     "is built for another machine (the loader skips it silently)",
     "libtorch was found but {library} is built for another architecture ({machine}; this machine "
     "runs {host_machine}).",
     "Install the libtorch built for {host_machine}: the wheel or archive of this machine's "
     "architecture."},
    {CauseId::TorchNotFound, "torch_not_found", "libtorch not found", Stage::Import,
     Outcome::TorchMissing, "TorchNotFound", kLoader, Api::Both, N{}, W{}, "",
     Sign::TorchLibraryMissing,
     "loader: a libtorch, libc10 or libcaffe2 library: cannot open shared object file, and no copy "
     "where the loader looks",
     "libtorch cannot be found by this process: the loader finds no {library}.",
     "Check the library path and the libtorch installation (LD_LIBRARY_PATH, ldconfig, the "
     "installation's lib folder)."},
    {CauseId::DependencyNotFound, "dependency_not_found", "a library libtorch needs is missing",
     Stage::Import, Outcome::TorchImportFailed, "DependencyNotFound", kLoader, Api::Both, N{},
     W{"cannot open shared object file"}, "", Sign::None,
     "loader: another library: cannot open shared object file",
     "libtorch was found but a library it needs is missing: {library}.",
     "Install the libraries this libtorch build needs (for a CUDA build the CUDA runtime, cuBLAS, "
     "cuDNN: the nvidia-* wheels or the CUDA packages), or install the build that fits this "
     "image."},
    {CauseId::LoaderError, "loader_error", "libtorch not loaded, cause not recognised",
     Stage::Import, Outcome::TorchImportFailed, "LoaderError", kLoader, Api::Both, N{}, W{}, "",
     Sign::None, "any other words of the loader",
     "libtorch was found but failed to load.", "Check the libtorch package and its dependencies."},

    // ---- import: the stable probe's libtorch, found through the Python environment ----
    {CauseId::TorchPackageMissing, "torch_package_missing", "no torch in the Python environment",
     Stage::Import, Outcome::TorchMissing, "TorchPackageMissing", kTorchSearch, Api::Both, N{},
     W{}, "", Sign::None,
     "the stable probe's search: the folder KERNODECK_TORCH_DIR names, or the torch package of "
     "the Python asked (KERNODECK_TORCH_PYTHON, python3 beside the check, python3 on PATH), "
     "holds no libtorch",
     "libtorch cannot be found by this process: {words}.",
     "Install torch into the Python environment your application runs in (python3 -m pip install "
     "torch, with that environment's python3) and run the check there, or name the torch folder "
     "with KERNODECK_TORCH_DIR."},
    {CauseId::NoPythonForTorch, "no_python_for_torch", "no Python to find torch with",
     Stage::Import, Outcome::TorchMissing, "NoPythonForTorch", kTorchSearch, Api::Both, N{}, W{},
     "", Sign::None,
     "the stable probe's search: neither KERNODECK_TORCH_DIR nor KERNODECK_TORCH_PYTHON is set, "
     "and there is no python3 beside the check or on PATH",
     "libtorch cannot be found by this process: the check's stable probe finds libtorch through "
     "the torch package of a Python environment, and {words}.",
     "Run the check in your application's Python environment (its python3 on PATH, or "
     "KERNODECK_TORCH_PYTHON naming it), or name the torch folder with KERNODECK_TORCH_DIR."},
    {CauseId::StableAbiTooOld, "stable_abi_too_old", "torch older than the stable probe serves",
     Stage::Import, Outcome::TorchImportFailed, "StableAbiTooOld", kStableProbe, Api::Both, N{},
     W{}, "", Sign::None,
     "the stable probe finds the libtorch it loaded without the stable C functions it calls "
     "(torch_call_dispatcher and the others of torch 2.10), or of a release before 2.10",
     "libtorch was found but is older than the check's stable probe serves: {words} of the "
     "stable C functions that came with torch 2.10.",
     "Use torch 2.10 or newer; or, in an image with a C++ compiler and CMake, build the compiled "
     "probe against this torch (cmake -S check/probe -B build-probe "
     "-DKERNODECK_TORCH_PYTHON=python3, then cmake --install build-probe; docs/gpu-runners.md)."},

    // ---- compute ----
    {CauseId::RocmArchitectureMissing, "rocm_architecture_missing",
     "a ROCm build without this GPU's architecture", Stage::Compute, Outcome::RuntimeError,
     "RocmArchitectureMissing", kCompute, Api::Hip, N{98, 209}, W{}, "", Sign::GfxTargetKnown,
     "HIP runtime error 98 (invalid device function) or 209 (no binary for the GPU) while the "
     "GPU's gfx target is read from the kernel's KFD topology "
     "(/sys/class/kfd/kfd/topology/nodes/*/properties)",
     "The computation failed: this libtorch's ROCm build has no code for this GPU's architecture, "
     "{gfx_target} (error {error}){override}.",
     "Install a ROCm build of libtorch whose architecture list includes {gfx_target} (a PyTorch "
     "ROCm release that supports this GPU, or a build with PYTORCH_ROCM_ARCH={gfx_target}); for a "
     "GPU of a family the build does support, HSA_OVERRIDE_GFX_VERSION may name that family's "
     "target (10.3.0 for gfx1030), at your own risk."},
    {CauseId::NoKernelImage, "no_kernel_image", "no kernel image for this GPU's architecture",
     Stage::Compute, Outcome::RuntimeError, "NoKernelImage", kCompute, Api::Both, N{209}, W{}, "",
     Sign::None, "runtime error 209 (no kernel image for the device)",
     "The computation failed: this libtorch has no kernel image for this GPU's architecture "
     "({architecture}); the build lacks it (error 209).",
     "Install a libtorch built for {architecture} (a release whose architecture list includes it, "
     "or a build with TORCH_CUDA_ARCH_LIST or PYTORCH_ROCM_ARCH naming it), or run on a GPU the "
     "build supports."},
    {CauseId::PtxTooNew, "ptx_too_new", "PTX built by a newer CUDA toolchain than the driver's",
     Stage::Compute, Outcome::RuntimeError, "PtxTooNew", kCompute, Api::Cuda, N{222}, W{}, "",
     Sign::None, "CUDA runtime error 222 (unsupported PTX version)",
     "The computation failed: this libtorch's PTX was built by a newer CUDA toolchain than the "
     "driver supports (the driver supports CUDA {driver_cuda}; error 222), and it has no kernel "
     "built for this GPU to use instead.",
     "Update the GPU driver to one that supports this libtorch's CUDA release, or install a "
     "libtorch built for the CUDA version the driver supports (a wheel of an older CUDA)."},
    {CauseId::GpuFault, "gpu_fault", "a GPU fault (illegal memory access, launch failure)",
     Stage::Compute, Outcome::RuntimeError, "GpuFault", kCompute, Api::Both, N{700, 719}, W{}, "",
     Sign::None, "runtime error 700 (illegal address) or 719 (launch failure)",
     "The computation failed with a GPU fault (error {error}: an illegal memory access or a failed "
     "launch), which this small computation does not cause on a healthy GPU.",
     "Check dmesg for Xid errors and drain the node; a GPU reset or a reboot may be needed before "
     "it takes work again."},
    {CauseId::UncorrectableEcc, "uncorrectable_ecc", "uncorrectable ECC error", Stage::Compute,
     Outcome::RuntimeError, "UncorrectableEcc", kCompute, Api::Both, N{214}, W{}, "", Sign::None,
     "runtime error 214 (uncorrectable ECC)",
     "The computation failed: the GPU reported an uncorrectable ECC memory error (error 214).",
     "Drain the node and have the GPU checked (nvidia-smi -q -d ECC, dmesg for Xid 48, 63 and 64); "
     "a reset clears the error, repeated ones call for a replacement."},

    // ---- the worker's start: fork, exec or one of its pipes failed ----
    {CauseId::ProcessLimitAtStart, "process_limit_at_start",
     "a process limit stops the worker's start", Stage::Import, Outcome::WorkerFailed,
     "ProcessLimitAtStart", kWorkerStart, Api::System, N{EAGAIN}, W{}, "", Sign::None,
     "starting the worker (fork, exec or one of its pipes) failed with EAGAIN",
     "The worker process could not be started: a process limit is reached{process_limits}.",
     kRaiseProcesses},
    {CauseId::OutOfMemoryAtStart, "out_of_memory_at_start", "no memory to start the worker",
     Stage::Import, Outcome::WorkerFailed, "OutOfMemoryAtStart", kWorkerStart, Api::System,
     N{ENOMEM}, W{}, "", Sign::None, "starting the worker failed with ENOMEM",
     "The worker process could not be started for lack of memory{memory_limits}.", kRaiseMemory},
    {CauseId::OpenFileLimitAtStart, "open_file_limit_at_start",
     "an open-file limit stops the worker's start", Stage::Import, Outcome::WorkerFailed,
     "OpenFileLimitAtStart", kWorkerStart, Api::System, N{EMFILE, ENFILE}, W{}, "", Sign::None,
     "starting the worker failed with EMFILE or ENFILE",
     "The worker process could not be started: too many files are open{open_file_limit}.",
     "Raise the open-file limit (ulimit -n): the check needs a few descriptors beyond those it "
     "inherits."},
    {CauseId::SpawnFailed, "spawn_failed", "the worker not started, cause not recognised",
     Stage::Import, Outcome::InternalError, "SpawnFailed", kWorkerStart, Api::System, N{}, W{},
     "", Sign::None,
     "any other error starting the worker: a defect of the check or its installation",
     "The check itself failed.", "Report this defect of the check with this report."},

    // ---- the worker's end without a verdict ----
    {CauseId::KilledFromOutside, "killed_from_outside",
     "the worker killed from outside (the out-of-memory killer)", Stage::Import,
     Outcome::WorkerFailed, "KilledFromOutside", kWorkerEnd, Api::Both, N{}, W{}, "",
     Sign::KilledFromOutside,
     "the worker ended by a SIGKILL the check did not send (it sends one only on a timeout or an "
     "interrupt, which are reported as such)",
     "The worker process was killed by SIGKILL from outside the check during the {stage} stage, "
     "most often by the out-of-memory killer of a memory limit{memory_limits}.",
     kRaiseMemory},
    {CauseId::DiedForLackOfMemory, "died_for_lack_of_memory", "the worker died for lack of memory",
     Stage::Import, Outcome::WorkerFailed, "DiedForLackOfMemory", kWorkerEnd, Api::Both, N{},
     W{"bad_alloc", "Cannot allocate memory", "out of memory"}, "", Sign::None,
     "the worker's last line of output says bad_alloc, Cannot allocate memory or out of memory",
     "The worker process died for lack of memory during the {stage} stage{memory_limits}.",
     kRaiseMemory},
    {CauseId::ThreadStartFailed, "thread_start_failed", "the worker could not start a thread",
     Stage::Import, Outcome::WorkerFailed, "ThreadStartFailed", kWorkerEnd, Api::Both, N{},
     W{"Resource temporarily unavailable", "Thread creation failed", "pthread_create"}, "",
     Sign::None,
     "the worker's last line of output says Resource temporarily unavailable, Thread creation "
     "failed or pthread_create",
     "The worker process died when it could not start a thread during the {stage} "
     "stage{process_limits}.",
     kRaiseProcesses},
    {CauseId::WorkerFailed, "worker_failed", "the worker died, cause not recognised",
     Stage::Import, Outcome::WorkerFailed, "WorkerFailed", kWorkerEnd, Api::Both, N{}, W{}, "",
     Sign::None, "any other end: another signal or exit status, or a report the check cannot use",
     "The worker process died or left no usable report during the {stage} stage{how}.",
     "Treat it as a failure and examine the environment."},

    // ---- an allocation refused ----
    {CauseId::AllocationUnderAddressSpaceLimit, "allocation_under_address_space_limit",
     "an allocation refused under an address-space limit", Stage::Device, Outcome::OutOfMemory,
     "AllocationUnderAddressSpaceLimit", kAllocation, Api::Both, N{}, W{}, "",
     Sign::AddressSpaceLimited,
     "an allocation failed (OUT_OF_MEMORY) while an address-space limit (ulimit -v) is set",
     "An allocation failed; the address-space limit (ulimit -v) is {address_space}, a likely "
     "cause.",
     "Raise the address-space limit (ulimit -v), then read the stage before running the full "
     "model."},

    // ---- output ----
    {CauseId::StdoutWriteFailed, "stdout_write_failed", "standard output refused the report",
     Stage::Output, Outcome::OutputWriteFailed, "StdoutWriteFailed", kStdout, Api::Both, N{}, W{},
     "", Sign::None,
     "writing the report to standard output failed after a pass (a full disk, a reader that "
     "left); the report did not reach standard output, so the line on stderr carries this "
     "message",
     "The report could not be written whole to standard output ({write_error}).",
     "Give the check a standard output that takes the whole report (a disk with room, a reader "
     "that reads to the end), or use --output."},
};

constexpr size_t kCauseCount = sizeof kCauses / sizeof kCauses[0];

constexpr bool rows_follow_the_enumeration() {
  for (size_t i = 0; i < kCauseCount; ++i) {
    if (static_cast<size_t>(kCauses[i].id) != i) return false;
  }
  return kCauseCount == static_cast<size_t>(CauseId::StdoutWriteFailed) + 1;
}
static_assert(rows_follow_the_enumeration(), "one row per cause, in the enumeration's order");

bool has(std::string_view text, std::string_view word) {
  return !word.empty() && text.find(word) != std::string_view::npos;
}

bool names_number(const CauseInfo& row, int number) {
  return number != 0 && std::find(row.numbers.begin(), row.numbers.end(), number) != row.numbers.end();
}

bool says_one_of(const CauseInfo& row, std::string_view text) {
  bool one = std::any_of(row.words.begin(), row.words.end(),
                         [&](std::string_view w) { return has(text, w); });
  return one && (row.also_word.empty() || has(text, row.also_word));
}

bool is_generic(const CauseInfo& row) {
  return row.numbers[0] == 0 && row.words[0].empty() && row.sign == Sign::None;
}

bool api_fits(Api api, const std::string& runtime) {
  return api == Api::Both || (api == Api::Cuda && runtime == "cuda") ||
         (api == Api::Hip && runtime == "hip");
}

bool nodes_of_hip(const Evidence& e) { return e.runtime && e.runtime->api == "hip"; }

const DeviceCgroup& cgroup_of(const Evidence& e) {
  static const DeviceCgroup kNone;
  return e.device_cgroup ? *e.device_cgroup : kNone;
}

// A GPU node of the runtime's vendor whose mode refuses this process (the
// device cgroup's refusals, EPERM, are not the mode's).
bool nodes_not_accessible(const Evidence& e) {
  if (!e.device_nodes) return false;
  const DeviceNodes& n = *e.device_nodes;
  const DeviceCgroup& c = cgroup_of(e);
  if (nodes_of_hip(e)) {
    return (n.kfd == NodeState::NotAccessible && !c.kfd) ||
           n.render_nodes - n.render_nodes_accessible - c.render_nodes > 0;
  }
  return (n.nvidiactl == NodeState::NotAccessible && !c.nvidiactl) ||
         (n.nvidia_uvm == NodeState::NotAccessible && !c.nvidia_uvm) ||
         n.nvidia_gpus - n.nvidia_gpus_accessible - c.nvidia_gpus > 0;
}

bool no_gpu_nodes(const Evidence& e) {
  if (!e.device_nodes) return false;
  const DeviceNodes& n = *e.device_nodes;
  if (nodes_of_hip(e)) return n.kfd == NodeState::Absent || n.render_nodes == 0;
  return n.nvidia_gpus == 0;
}

bool hidden_by_variable(const Evidence& e) {
  if (!e.visible_devices || no_gpu_nodes(e)) return false;
  for (const auto& [name, shape] : *e.visible_devices) {
    // NVIDIA_VISIBLE_DEVICES is read by the container runtime, not the driver.
    if (shape && name != "NVIDIA_VISIBLE_DEVICES") return true;
  }
  return false;
}

// NVIDIA_VISIBLE_DEVICES names GPU UUIDs, as the device plugin sets it, and no /dev/nvidiaN.
bool plugin_without_runtime(const Evidence& e) {
  if (!e.visible_devices || !e.device_nodes || e.device_nodes->nvidia_gpus != 0) return false;
  for (const auto& [name, shape] : *e.visible_devices) {
    if (name == "NVIDIA_VISIBLE_DEVICES") return shape == std::optional<std::string>("uuid_list");
  }
  return false;
}

// The runtime reports no driver, and the driver's files say which part is missing.
bool link_missing(const Evidence& e) {
  return e.runtime && !e.runtime->driver_version && e.driver_files &&
         !e.driver_files->libcuda_so_1 && e.driver_files->libcuda_version_without_link;
}

bool capability_missing(const Evidence& e) {
  if (!e.runtime || e.runtime->driver_version || !e.driver_files || !e.device_nodes) return false;
  const DriverFiles& d = *e.driver_files;
  const DeviceNodes& n = *e.device_nodes;
  return !d.libcuda_so_1 && !d.libcuda_version_without_link && d.libnvidia_ml_so_1 &&
         (n.nvidiactl != NodeState::Absent || n.nvidia_gpus > 0);
}

// The libcuda.so.1 found where the loader looks (or the one loaded) is a stub.
bool stub_library(const Evidence& e) {
  if (e.driver_library && !library_file_version(*e.driver_library)) return true;
  if (!e.driver_files || !e.driver_files->libcuda_so_1) return false;
  const DriverFiles& d = *e.driver_files;
  return d.libcuda_folder == std::optional<std::string>("stubs") ||
         (d.libcuda_file && !library_file_version(*d.libcuda_file));
}

bool cgroup_refuses_control(const Evidence& e) {
  const DeviceCgroup& c = cgroup_of(e);
  return nodes_of_hip(e) ? c.kfd : c.nvidiactl || c.nvidia_uvm;
}

// Every GPU node refused by the device cgroup, the vendor's control node open.
bool cgroup_refuses_every_gpu(const Evidence& e) {
  if (!e.device_nodes || cgroup_refuses_control(e)) return false;
  const DeviceNodes& n = *e.device_nodes;
  const DeviceCgroup& c = cgroup_of(e);
  if (nodes_of_hip(e)) {
    return n.kfd == NodeState::Accessible && n.render_nodes > 0 && c.render_nodes == n.render_nodes;
  }
  return n.nvidiactl == NodeState::Accessible && n.nvidia_gpus > 0 &&
         c.nvidia_gpus == n.nvidia_gpus;
}

bool device_sign_holds(Sign sign, const Evidence& e) {
  switch (sign) {
    case Sign::NodesNotAccessible: return nodes_not_accessible(e);
    case Sign::WslWithoutNvidiaNodes:
      return e.wsl_kernel.value_or(false) && e.device_nodes && e.device_nodes->nvidia_gpus == 0;
    case Sign::PluginWithoutRuntime: return plugin_without_runtime(e);
    case Sign::LinkMissing: return link_missing(e);
    case Sign::CapabilityMissing: return capability_missing(e);
    case Sign::StubLibrary: return stub_library(e);
    case Sign::CgroupRefusesControl: return cgroup_refuses_control(e);
    case Sign::CgroupRefusesEveryGpu: return cgroup_refuses_every_gpu(e);
    case Sign::GroupUnmapped:
      return e.user_namespace && !e.user_namespace->identity &&
             e.user_namespace->unmapped_group_nodes > 0;
    case Sign::NoGpuNodes: return no_gpu_nodes(e);
    case Sign::GpusHidden: return hidden_by_variable(e);
    case Sign::UvmMissing:
      return e.device_nodes && e.device_nodes->nvidia_gpus > 0 &&
             e.device_nodes->nvidia_uvm == NodeState::Absent;
    case Sign::GfxTargetKnown: return e.rocm && e.rocm->gfx_target;
    default: return false;
  }
}

bool sign_holds(Sign sign, const Evidence& e) {
  const int driver = e.runtime && e.runtime->driver_version ? 1 : 0;
  switch (sign) {
    case Sign::None: return true;
    case Sign::NoDriverVersion: return e.runtime && driver == 0;
    case Sign::DriverVersion: return driver == 1;
    case Sign::LoaderOutOfMemory:
    case Sign::TorchLibraryMissing:
    case Sign::CopyUnreadable:
    case Sign::CopyOtherMachine:
    case Sign::CopyDamaged:
    case Sign::CopyShadowing:
      return false;  // loader signs: loader_sign_holds
    case Sign::KilledFromOutside:
    case Sign::AddressSpaceLimited:
      return false;  // the parent's signs: worker_sign_holds
    default: return device_sign_holds(sign, e);
  }
}

// The device or compute row for a runtime's answer, or for libtorch's words
// where no runtime could be asked.
std::optional<CauseId> first_runtime_row(const Evidence& e, std::string_view words,
                                         unsigned where) {
  const bool asked = e.runtime && e.runtime->error != 0;
  for (const CauseInfo& row : kCauses) {
    if ((row.where & where) == 0) continue;
    if (is_generic(row)) return row.id;
    if (asked) {
      if (names_number(row, e.runtime->error) && api_fits(row.api, e.runtime->api) &&
          sign_holds(row.sign, e)) {
        return row.id;
      }
    } else if (says_one_of(row, words)) {
      return row.id;
    }
  }
  return std::nullopt;
}

bool loader_sign_holds(Sign sign, std::string_view text, const std::optional<LibraryCopy>& copy) {
  const CopyState found = copy ? copy->found : CopyState::Absent;
  switch (sign) {
    case Sign::LoaderOutOfMemory: return loader_ran_out_of_memory(text);
    case Sign::TorchLibraryMissing: {
      std::string missing = read_loader_words(text).missing;
      return !missing.empty() && is_torch_library(missing) &&
             (found == CopyState::Absent || found == CopyState::Readable);
    }
    case Sign::CopyUnreadable: return found == CopyState::NotReadable;
    case Sign::CopyOtherMachine: return found == CopyState::OtherMachine;
    case Sign::CopyDamaged: return found == CopyState::Damaged;
    case Sign::CopyShadowing: {
      // An undefined symbol of a library's version ("version libnvJitLink.so.13"), that library
      // not libtorch's, taken from a folder LD_LIBRARY_PATH names.
      const std::string version = read_loader_words(text).symbol_version;
      const bool from_library_path = copy && (copy->folder == std::optional<std::string>("cuda_toolkit") ||
                                              copy->folder == std::optional<std::string>("ld_library_path"));
      return found == CopyState::Readable && from_library_path && !version.empty() &&
             !is_torch_library(version) && copy->name == version;
    }
    default: return false;
  }
}

// What the parent knows of a worker that ended without a verdict, or of the
// limits it ran under.
bool worker_sign_holds(Sign sign, const WaitStatus* status, const ResourceLimits* limits) {
  switch (sign) {
    case Sign::KilledFromOutside:
      return status != nullptr && status->signaled && status->signal == SIGKILL;
    case Sign::AddressSpaceLimited: return limits != nullptr && limits->address_space.has_value();
    default: return false;
  }
}

// The first row met `where` that is generic or that `fits`.
template <typename Fits>
std::optional<CauseId> first_row(unsigned where, Fits fits) {
  for (const CauseInfo& row : kCauses) {
    if ((row.where & where) != 0 && (is_generic(row) || fits(row))) return row.id;
  }
  return std::nullopt;
}

}  // namespace

const CauseInfo& cause_info(CauseId id) { return kCauses[static_cast<size_t>(id)]; }

std::vector<CauseId> all_causes() {
  std::vector<CauseId> all;
  for (const CauseInfo& row : kCauses) all.push_back(row.id);
  return all;
}

std::optional<CauseId> cause_from_type(std::string_view type) {
  for (const CauseInfo& row : kCauses) {
    if (row.type == type) return row.id;
  }
  return std::nullopt;
}

std::optional<CauseId> recognise_device(const Evidence& evidence, std::string_view library_words,
                                        unsigned where) {
  return first_runtime_row(evidence, library_words, where);
}

std::optional<CauseId> recognise_compute(const Evidence& evidence) {
  if (!evidence.runtime || evidence.runtime->error == 0) return std::nullopt;
  return first_runtime_row(evidence, "", kCompute);
}

CauseId recognise_loader(std::string_view text, const std::optional<LibraryCopy>& copy) {
  for (const CauseInfo& row : kCauses) {
    if ((row.where & kLoader) == 0) continue;
    if (is_generic(row) || says_one_of(row, text) ||
        (row.sign != Sign::None && loader_sign_holds(row.sign, text, copy))) {
      return row.id;
    }
  }
  return CauseId::LoaderError;
}

std::optional<CauseId> recognise_shadowing(std::string_view loader_words, const LibraryCopy& copy) {
  for (const CauseInfo& row : kCauses) {
    if ((row.where & kLoader) != 0 && row.sign == Sign::CopyShadowing &&
        loader_sign_holds(row.sign, loader_words, copy)) {
      return row.id;
    }
  }
  return std::nullopt;
}

std::optional<CauseId> recognise_damaged_library(const LibraryCopy& copy) {
  for (const CauseInfo& row : kCauses) {
    if ((row.where & kLoader) != 0 && row.sign == Sign::CopyDamaged &&
        loader_sign_holds(row.sign, "", copy)) {
      return row.id;
    }
  }
  return std::nullopt;
}

CauseId recognise_worker_start(int error_number) {
  return first_row(kWorkerStart, [&](const CauseInfo& row) {
           return names_number(row, error_number);
         }).value_or(CauseId::SpawnFailed);
}

CauseId recognise_worker_end(const WaitStatus& status, std::string_view last_words) {
  return first_row(kWorkerEnd, [&](const CauseInfo& row) {
           return says_one_of(row, last_words) || worker_sign_holds(row.sign, &status, nullptr);
         }).value_or(CauseId::WorkerFailed);
}

std::optional<CauseId> recognise_allocation(const ResourceLimits& limits) {
  return first_row(kAllocation, [&](const CauseInfo& row) {
    return worker_sign_holds(row.sign, nullptr, &limits);
  });
}

std::string stage_text(CauseId id) {
  const CauseInfo& row = cause_info(id);
  if ((row.where & kWorkerEnd) != 0) return "the last stage reached";
  if ((row.where & kAllocation) != 0) {
    return std::string(stage_name(Stage::Device)) + " or " +
           std::string(stage_name(Stage::Compute));
  }
  return std::string(stage_name(row.stage));
}

std::string errno_name(int number) {
  switch (number) {
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    default: return std::to_string(number);
  }
}

std::string fill(std::string_view text, const Facts& facts) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find('{', i);
    size_t close = open == std::string_view::npos ? open : text.find('}', open);
    if (close == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    out.append(text.substr(i, open - i));
    auto it = facts.find(std::string(text.substr(open + 1, close - open - 1)));
    out.append(it != facts.end() ? it->second : "unknown");
    i = close + 1;
  }
  return out;
}

Cause cause_words(CauseId id, const Facts& facts) {
  const CauseInfo& row = cause_info(id);
  return Cause{fill(row.what, facts), fill(row.next_action, facts)};
}

}  // namespace kd
