// The device layer's causes: a GPU the runtime cannot reach or start (the driver and its
// libraries, the device nodes, the device cgroup, visibility), from its error and the machine's evidence.
#pragma once

#include "causes/catalogue_entry.hpp"

namespace kd::catalogue {

inline constexpr W kOldDriver{"driver on your system is too old", "insufficient for CUDA runtime"};

inline constexpr W kNoGpus{"No CUDA GPUs are available", "No HIP GPUs are available"};

// ---- the signs: what must hold of what was seen ----

inline bool nodes_of_hip(const Evidence& e) { return e.runtime && e.runtime->api == "hip"; }

inline const DeviceCgroup& cgroup_of(const Evidence& e) {
  static const DeviceCgroup kNone;
  return e.device_cgroup ? *e.device_cgroup : kNone;
}

// The runtime reports no driver version (0), or one.
inline bool no_driver_version(const Seen& s) {
  return s.evidence.runtime && !s.evidence.runtime->driver_version;
}

inline bool driver_version(const Seen& s) {
  return s.evidence.runtime && s.evidence.runtime->driver_version;
}

// A GPU node of the runtime's vendor whose mode refuses this process (the
// device cgroup's refusals, EPERM, are not the mode's).
inline bool nodes_not_accessible(const Seen& s) {
  const Evidence& e = s.evidence;
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

// No GPU device node of the backend's vendor.
inline bool no_gpu_nodes(const Seen& s) {
  const Evidence& e = s.evidence;
  if (!e.device_nodes) return false;
  const DeviceNodes& n = *e.device_nodes;
  if (nodes_of_hip(e)) return n.kfd == NodeState::Absent || n.render_nodes == 0;
  return n.nvidia_gpus == 0;
}

// GPU nodes there, and a visibility variable set.
inline bool gpus_hidden(const Seen& s) {
  const Evidence& e = s.evidence;
  if (!e.visible_devices || no_gpu_nodes(s)) return false;
  for (const auto& [name, shape] : *e.visible_devices) {
    // NVIDIA_VISIBLE_DEVICES is read by the container runtime, not the driver.
    if (shape && name != "NVIDIA_VISIBLE_DEVICES") return true;
  }
  return false;
}

// A WSL2 kernel, and no /dev/nvidiaN.
inline bool wsl_without_nvidia_nodes(const Seen& s) {
  const Evidence& e = s.evidence;
  return e.wsl_kernel.value_or(false) && e.device_nodes && e.device_nodes->nvidia_gpus == 0;
}

// NVIDIA_VISIBLE_DEVICES names GPU UUIDs, as the device plugin sets it, and no /dev/nvidiaN.
inline bool plugin_without_runtime(const Seen& s) {
  const Evidence& e = s.evidence;
  if (!e.visible_devices || !e.device_nodes || e.device_nodes->nvidia_gpus != 0) return false;
  for (const auto& [name, shape] : *e.visible_devices) {
    if (name == "NVIDIA_VISIBLE_DEVICES") return shape == std::optional<std::string>("uuid_list");
  }
  return false;
}

// The runtime reports no driver, and the driver's files say which part is missing: no
// libcuda.so.1 where the loader looks, a libcuda.so.<version> there.
inline bool link_missing(const Seen& s) {
  const Evidence& e = s.evidence;
  return e.runtime && !e.runtime->driver_version && e.driver_files &&
         !e.driver_files->libcuda_so_1 && e.driver_files->libcuda_version_without_link;
}

// No libcuda at all, NVML there, and the NVIDIA device nodes.
inline bool capability_missing(const Seen& s) {
  const Evidence& e = s.evidence;
  if (!e.runtime || e.runtime->driver_version || !e.driver_files || !e.device_nodes) return false;
  const DriverFiles& d = *e.driver_files;
  const DeviceNodes& n = *e.device_nodes;
  return !d.libcuda_so_1 && !d.libcuda_version_without_link && d.libnvidia_ml_so_1 &&
         (n.nvidiactl != NodeState::Absent || n.nvidia_gpus > 0);
}

// The libcuda.so.1 found where the loader looks (or the one loaded) is a stub: a stubs
// folder, or no version in its file name.
inline bool stub_library(const Seen& s) {
  const Evidence& e = s.evidence;
  if (e.driver_library && !library_file_version(*e.driver_library)) return true;
  if (!e.driver_files || !e.driver_files->libcuda_so_1) return false;
  const DriverFiles& d = *e.driver_files;
  return d.libcuda_folder == std::optional<std::string>("stubs") ||
         (d.libcuda_file && !library_file_version(*d.libcuda_file));
}

// The device cgroup refuses the vendor's control node (EPERM).
inline bool cgroup_refuses_control(const Seen& s) {
  const DeviceCgroup& c = cgroup_of(s.evidence);
  return nodes_of_hip(s.evidence) ? c.kfd : c.nvidiactl || c.nvidia_uvm;
}

// Every GPU node refused by the device cgroup, the vendor's control node open.
inline bool cgroup_refuses_every_gpu(const Seen& s) {
  const Evidence& e = s.evidence;
  if (!e.device_nodes || cgroup_refuses_control(s)) return false;
  const DeviceNodes& n = *e.device_nodes;
  const DeviceCgroup& c = cgroup_of(e);
  if (nodes_of_hip(e)) {
    return n.kfd == NodeState::Accessible && n.render_nodes > 0 && c.render_nodes == n.render_nodes;
  }
  return n.nvidiactl == NodeState::Accessible && n.nvidia_gpus > 0 &&
         c.nvidia_gpus == n.nvidia_gpus;
}

// Nodes refused by their mode whose group this user namespace lacks.
inline bool group_unmapped(const Seen& s) {
  const Evidence& e = s.evidence;
  return e.user_namespace && !e.user_namespace->identity &&
         e.user_namespace->unmapped_group_nodes > 0;
}

// /dev/nvidiaN there, /dev/nvidia-uvm not.
inline bool uvm_missing(const Seen& s) {
  const Evidence& e = s.evidence;
  return e.device_nodes && e.device_nodes->nvidia_gpus > 0 &&
         e.device_nodes->nvidia_uvm == NodeState::Absent;
}

// The causes, in the order they are tried: the first whose row fits is the cause.
// clang-format off
inline constexpr CauseInfo kDeviceCauses[] = {
    // ---- device ----
    {CAUSE(WslGpuNotReached),                 Device,  GpuUnavailable,    kCount,        cuda({35, 100, 999, 3}, wsl_without_nvidia_nodes),
     "WSL2 without its way to the GPU (/dev/dxg and the WSL driver libraries)",
     "CUDA runtime error 35, 100, 999 or 3 on a WSL2 kernel (its release names microsoft) "
     "without /dev/nvidiaN, which WSL2 never has: its GPU is /dev/dxg",
     "No usable GPU in this process: this is WSL2 (a Microsoft kernel), where the GPU is reached "
     "through /dev/dxg and the driver libraries of /usr/lib/wsl/lib, never /dev/nvidia* ({dxg}).",
     "Install the NVIDIA driver for WSL on Windows (never a Linux driver inside WSL), start the "
     "container with --gpus all (Docker Desktop's WSL2 backend mounts /dev/dxg and "
     "/usr/lib/wsl/lib), and keep /usr/lib/wsl/lib on the loader's path (ldconfig)."},
    {CAUSE(GpusWithoutNvidiaRuntime),         Device,  GpuUnavailable,    kCount,        cuda({35, 100, 999, 3}, plugin_without_runtime),
     "GPUs given by the device plugin, the container not started by the NVIDIA runtime",
     "CUDA runtime error 35, 100, 999 or 3 while NVIDIA_VISIBLE_DEVICES names GPU UUIDs (its "
     "shape uuid_list, as the NVIDIA device plugin sets it) and there is no /dev/nvidiaN",
     "No usable GPU in this process: GPUs were given to it (NVIDIA_VISIBLE_DEVICES names GPU "
     "UUIDs, as the NVIDIA device plugin sets it), but no /dev/nvidia* node was put in the "
     "container: it was not started by the NVIDIA container runtime.",
     "Run the pod with the NVIDIA runtime (runtimeClassName: nvidia, or nvidia as the node's "
     "default containerd or CRI-O runtime, as the GPU operator sets it up): the device plugin "
     "only names the GPUs, the runtime exposes them."},
    {CAUSE(DriverLinkMissing),                Device,  GpuUnavailable,    kCount,        cuda({35}, link_missing),
     "libcuda.so.1 missing beside the driver library",
     "CUDA runtime error 35 (insufficient driver) with no driver version, while a "
     "libcuda.so.<version> is where the loader looks and no libcuda.so.1 is",
     "No usable GPU in this process: the NVIDIA driver library is there "
     "(libcuda.so.{libcuda_version}) but not the libcuda.so.1 link the CUDA runtime loads it by.",
     "Run ldconfig in the container (or let the NVIDIA container toolkit's update-ldcache or CDI "
     "hook run it) so that libcuda.so.1 links to libcuda.so.{libcuda_version}; a driver library "
     "copied into an image needs its link too."},
    {CAUSE(DriverCapabilityMissing),          Device,  GpuUnavailable,    kCount,        cuda({35}, capability_missing),
     "the driver mounted without its compute capability",
     "CUDA runtime error 35 (insufficient driver) with no driver version, while the NVIDIA "
     "device nodes and libnvidia-ml.so.1 are there and no libcuda is where the loader looks: "
     "NVIDIA_DRIVER_CAPABILITIES without compute",
     "No usable GPU in this process: the GPUs' device nodes and the driver's management library "
     "(libnvidia-ml.so.1) are there, but not its CUDA library (libcuda.so.1): the container "
     "runtime mounted the driver without the compute capability.",
     "Add compute to NVIDIA_DRIVER_CAPABILITIES (compute,utility, or all) where the container is "
     "defined (the image's ENV, the pod's env, docker run -e) and start it again: the NVIDIA "
     "container runtime mounts libcuda.so.1 only for that capability."},
    {CAUSE(NoDriver),                         Device,  GpuUnavailable,    kCount,        cuda({35}, no_driver_version).saying({"Found no NVIDIA driver"}),
     "no NVIDIA driver library",
     "CUDA runtime error 35 (insufficient driver) while the runtime reports no driver version; "
     "without a runtime to ask, libtorch's \"Found no NVIDIA driver\"",
     "No usable GPU in this process: the NVIDIA driver library (libcuda.so.1) could not be "
     "loaded.",
     "Expose the driver to this container (NVIDIA container toolkit, --gpus) and check device "
     "exposure and permissions."},
    {CAUSE(DriverTooOld),                     Device,  GpuUnavailable,    kCount,        cuda({35}, driver_version).saying(kOldDriver),
     "driver too old for libtorch's CUDA runtime",
     "CUDA runtime error 35 (insufficient driver) with a driver version; without a runtime to "
     "ask, libtorch's \"driver on your system is too old\" or \"insufficient for CUDA runtime\"",
     "No usable GPU in this process: the NVIDIA driver is too old for the CUDA runtime this "
     "libtorch was built with (the driver supports CUDA {driver_cuda}, the runtime is CUDA "
     "{runtime_cuda}).",
     "Update the GPU driver, or install a libtorch built for the CUDA version the driver "
     "supports."},
    {CAUSE(StubDriver),                       Device,  GpuUnavailable,    kCount,        cuda({34}, stub_library),
     "the CUDA toolkit's stub driver library loaded",
     "CUDA runtime error 34 (stub library) while the libcuda.so.1 the loader finds is in a stubs "
     "folder or has no version in its file name",
     "No usable GPU in this process: the CUDA runtime loaded a stub of the driver library "
     "({stub_file}; error 34), which only serves to link programs, instead of the NVIDIA "
     "driver's libcuda.so.1.",
     "Take the stubs folder (the CUDA toolkit's lib64/stubs) off LD_LIBRARY_PATH and out of "
     "ld.so.conf, and remove any libcuda.so.1 that links to the stub from the image, so that the "
     "driver's own libcuda.so.1, which the NVIDIA container toolkit mounts, is loaded."},
    {CAUSE(DeviceCgroupDenied),               Device,  GpuUnavailable,    kCount,        runtime({100, 999, 3, 304}, cgroup_refuses_control),
     "the device cgroup refuses the GPU nodes (the container's device rules lost)",
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
    {CAUSE(NoGpuGranted),                     Device,  GpuUnavailable,    kCount,        runtime({100, 999, 3, 304}, cgroup_refuses_every_gpu),
     "no GPU granted to this job by its device cgroup",
     "runtime error 100, 999, 3 or 304 while the kernel refuses every GPU node (/dev/nvidiaN; "
     "/dev/dri/renderD* for ROCm) with EPERM and the control node is open: a scheduler's device "
     "cgroup, which grants a job its own GPUs (only some GPUs refused is no cause of its own)",
     "No usable GPU in this process: its device cgroup grants it none of the GPUs here "
     "({refused_gpus} refused: EPERM) while the driver's own nodes are open, as a scheduler does "
     "with the GPUs of other jobs (Slurm's ConstrainDevices, a device plugin).",
     "Ask the scheduler for a GPU (srun --gres=gpu:1, the pod's nvidia.com/gpu limit) and run "
     "the check inside that allocation: it counts the GPUs it was granted from 0."},
    {CAUSE(NodeGroupUnmapped),                Device,  GpuUnavailable,    kCount,        runtime({100, 999, 3, 304}, group_unmapped),
     "the device nodes' group not mapped into the user namespace (a rootless container)",
     "runtime error 100, 999, 3 or 304 while GPU nodes that their mode refuses belong to a group "
     "this process's user namespace does not map (their gid shows as the overflow gid of "
     "/proc/sys/kernel/overflowgid, which /proc/self/gid_map lacks)",
     "No usable GPU in this process: it runs in a user namespace (a rootless container) that "
     "does not map the device nodes' group, so their group shows as the overflow group and no "
     "user in here can join it ({closed_nodes}).",
     "Keep the host's groups in the rootless container (podman run --group-add keep-groups, with "
     "crun), map the nodes' group into its user namespace (/etc/subgid), or give the nodes a "
     "mode that lets others read and write them (a udev rule)."},
    {CAUSE(DeviceNodesNotAccessible),         Device,  GpuUnavailable,    kCount,        runtime({100, 999, 3, 304}, nodes_not_accessible),
     "device nodes this user may not open",
     "runtime error 100, 999, 3 or 304 while a GPU device node exists that this process may not "
     "read and write by its mode (access(2) answers EACCES)",
     "No usable GPU in this process: the device nodes are there but this user may not open them "
     "({closed_nodes}).",
     "Run as a user who may read and write them (their group, often video or render), or let the "
     "container runtime or the device plugin set their permissions."},
    {CAUSE(NoDeviceNodes),                    Device,  GpuUnavailable,    kCount,        runtime({100, 999, 3, 304}, no_gpu_nodes),
     "no GPU device node in the container",
     "runtime error 100, 999, 3 or 304 while there is no GPU device node (/dev/nvidiaN; /dev/kfd "
     "and /dev/dri/renderD* for ROCm)",
     "No usable GPU in this process: no {vendor} device node in this container (started without "
     "{expose}).",
     "Start the container with its GPUs exposed (--gpus or the device plugin; for ROCm --device "
     "/dev/kfd --device /dev/dri) and check that the node gives it a GPU."},
    {CAUSE(GpusHidden),                       Device,  GpuUnavailable,    kCount,        runtime({100}, gpus_hidden),
     "GPUs hidden by a visibility variable",
     "runtime error 100 (no device) while GPU device nodes exist and CUDA_VISIBLE_DEVICES, "
     "HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES is set",
     "No usable GPU in this process: the device nodes are there, but {variables} leaves no GPU "
     "visible.",
     "Unset the variable, or list GPUs this machine has (an index from 0, or the UUID of one of "
     "its GPUs)."},
    {CAUSE(UvmMissing),                       Device,  GpuUnavailable,    kCount,        cuda({999}, uvm_missing),
     "/dev/nvidia-uvm missing",
     "CUDA runtime error 999 (unknown) while /dev/nvidiaN exists and /dev/nvidia-uvm does not",
     "No usable GPU in this process: /dev/nvidia-uvm is missing, and the CUDA runtime cannot "
     "work without it (error 999).",
     "Load the nvidia-uvm kernel module on the host (nvidia-modprobe -u -c=0) and expose "
     "/dev/nvidia-uvm to the container."},
    {CAUSE(DriverMismatch),                   Device,  GpuUnavailable,    kCount,        cuda({803}),
     "driver library and kernel module of different versions",
     "CUDA runtime error 803 (system driver mismatch)",
     "No usable GPU in this process: the NVIDIA driver library ({driver_library}) and the kernel "
     "module ({kernel_module}) are of different versions (error 803).",
     "Use the driver libraries of the host's kernel module: let the NVIDIA container toolkit "
     "mount them instead of shipping libcuda in the image (or drop cuda-compat), or bring the "
     "host's driver to the library's version."},
    {CAUSE(FabricManagerNotRunning),          Device,  GpuUnavailable,    kCount,        cuda({802}),
     "NVSwitch system without the fabric manager",
     "CUDA runtime error 802 (system not ready)",
     "No usable GPU in this process: the system is not ready (error 802); on an NVSwitch system "
     "(HGX) the NVIDIA fabric manager is not running.",
     "Start nvidia-fabricmanager on the host, of the driver's version, and wait until it has set "
     "up the NVSwitches."},
    {CAUSE(CompatNotSupported),               Device,  GpuUnavailable,    kCount,        cuda({804}),
     "forward-compatibility libraries this GPU does not support",
     "CUDA runtime error 804 (compatibility not supported on device)",
     "No usable GPU in this process: the CUDA forward-compatibility libraries in use "
     "(cuda-compat) do not support this GPU (error 804).",
     "Take the compatibility libraries off the library path (cuda-compat, "
     "/usr/local/cuda/compat) and update the host's driver instead: forward compatibility serves "
     "data-center GPUs only."},
    {CAUSE(DevicesBusy),                      Device,  GpuUnavailable,    kCountOrStart, cuda({46}),
     "GPUs busy or in exclusive mode",
     "CUDA runtime error 46 (devices unavailable), whether a GPU is usable or the device starts",
     "No usable GPU in this process: the GPUs are busy or unavailable (error 46), most often in "
     "exclusive-process mode and held by another process.",
     "Find the process that holds the GPU (nvidia-smi) and wait for it or stop it, or set the "
     "compute mode back to default (nvidia-smi -c DEFAULT)."},
    {CAUSE(OsCallRefused),                    Device,  GpuUnavailable,    kCount,        runtime({304}),
     "an operating-system call refused (a sandbox)",
     "runtime error 304 (operating system), device nodes present",
     "No usable GPU in this process: the operating system refused a call the driver needs (error "
     "304), as a sandbox does (seccomp, gVisor, a restricted runtime).",
     "Run the container with its runtime's GPU support (the NVIDIA container runtime) and "
     "without a seccomp or sandbox profile that blocks the driver's calls."},
    {CAUSE(DriverInitFailed),                 Device,  GpuUnavailable,    kCount,        runtime({3}),
     "driver initialisation failed",
     "runtime error 3 (initialisation error), device nodes present",
     "No usable GPU in this process: the driver could not be initialised (error 3).",
     "Check the driver on the host (nvidia-smi, dmesg for NVRM and Xid lines) and that the "
     "container's driver libraries are the host's."},
    {CAUSE(OutOfMemoryAtInit),                Device,  GpuUnavailable,    kCount,        runtime({2}),
     "out of memory while initialising",
     "runtime error 2 (out of memory)",
     "No usable GPU in this process: the driver ran out of memory while initialising (error 2).",
     "Free host memory or raise the container's memory limit, and check that no other process "
     "fills the GPU (nvidia-smi)."},
    {CAUSE(UnknownDriverError),               Device,  GpuUnavailable,    kCount,        runtime({999}),
     "unknown driver error",
     "runtime error 999 (unknown), device nodes present, /dev/nvidia-uvm too",
     "No usable GPU in this process: the driver answered an unknown error (999).",
     "Check dmesg for Xid errors; a GPU reset may be needed (nvidia-smi -r, or drain and reboot "
     "the node)."},
    {CAUSE(NoDevice),                         Device,  GpuUnavailable,    kCount,        runtime({100}).saying(kNoGpus),
     "the driver sees no GPU",
     "runtime error 100 (no device) with accessible device nodes and no visibility variable set; "
     "without a runtime to ask, libtorch's \"No CUDA GPUs are available\" or \"No HIP GPUs are "
     "available\"",
     "No usable GPU in this process: the driver sees no GPU.",
     "Check device exposure (CUDA_VISIBLE_DEVICES, --gpus, the device plugin) and permissions."},
    {CAUSE(GpuUnavailable),                   Device,  GpuUnavailable,    kCount,        kOtherwise,
     "no usable GPU, cause not recognised",
     "any other answer: another runtime error number, or none",
     "No usable GPU in this process.",
     "Check device exposure, the driver and permissions."},
};
// clang-format on

}  // namespace kd::catalogue
