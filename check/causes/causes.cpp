#include "causes/causes.hpp"

#include <errno.h>
#include <signal.h>

#include <algorithm>
#include <iterator>
#include <utility>

namespace kd {
namespace {

// The next actions that several causes share.
constexpr std::string_view kRaiseMemory =
    "Raise the memory or address-space limit (ulimit -v, or the container's memory limit): "
    "loading libtorch takes hundreds of MiB of address space, a CUDA build several GiB.";
constexpr std::string_view kRaiseProcesses =
    "Raise the process limit (ulimit -u, or the container's pids limit): the check runs two "
    "processes at once, itself and its worker, and the limit counts every process and thread "
    "of the user.";

// ---- the signs: what must hold of what was seen ----

bool nodes_of_hip(const Evidence& e) { return e.runtime && e.runtime->api == "hip"; }

const DeviceCgroup& cgroup_of(const Evidence& e) {
  static const DeviceCgroup kNone;
  return e.device_cgroup ? *e.device_cgroup : kNone;
}

// The runtime reports no driver version (0), or one.
bool no_driver_version(const Seen& s) {
  return s.evidence.runtime && !s.evidence.runtime->driver_version;
}
bool driver_version(const Seen& s) {
  return s.evidence.runtime && s.evidence.runtime->driver_version;
}

// A GPU node of the runtime's vendor whose mode refuses this process (the
// device cgroup's refusals, EPERM, are not the mode's).
bool nodes_not_accessible(const Seen& s) {
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
bool no_gpu_nodes(const Seen& s) {
  const Evidence& e = s.evidence;
  if (!e.device_nodes) return false;
  const DeviceNodes& n = *e.device_nodes;
  if (nodes_of_hip(e)) return n.kfd == NodeState::Absent || n.render_nodes == 0;
  return n.nvidia_gpus == 0;
}

// GPU nodes there, and a visibility variable set.
bool gpus_hidden(const Seen& s) {
  const Evidence& e = s.evidence;
  if (!e.visible_devices || no_gpu_nodes(s)) return false;
  for (const auto& [name, shape] : *e.visible_devices) {
    // NVIDIA_VISIBLE_DEVICES is read by the container runtime, not the driver.
    if (shape && name != "NVIDIA_VISIBLE_DEVICES") return true;
  }
  return false;
}

// A WSL2 kernel, and no /dev/nvidiaN.
bool wsl_without_nvidia_nodes(const Seen& s) {
  const Evidence& e = s.evidence;
  return e.wsl_kernel.value_or(false) && e.device_nodes && e.device_nodes->nvidia_gpus == 0;
}

// NVIDIA_VISIBLE_DEVICES names GPU UUIDs, as the device plugin sets it, and no /dev/nvidiaN.
bool plugin_without_runtime(const Seen& s) {
  const Evidence& e = s.evidence;
  if (!e.visible_devices || !e.device_nodes || e.device_nodes->nvidia_gpus != 0) return false;
  for (const auto& [name, shape] : *e.visible_devices) {
    if (name == "NVIDIA_VISIBLE_DEVICES") return shape == std::optional<std::string>("uuid_list");
  }
  return false;
}

// The runtime reports no driver, and the driver's files say which part is missing: no
// libcuda.so.1 where the loader looks, a libcuda.so.<version> there.
bool link_missing(const Seen& s) {
  const Evidence& e = s.evidence;
  return e.runtime && !e.runtime->driver_version && e.driver_files &&
         !e.driver_files->libcuda_so_1 && e.driver_files->libcuda_version_without_link;
}

// No libcuda at all, NVML there, and the NVIDIA device nodes.
bool capability_missing(const Seen& s) {
  const Evidence& e = s.evidence;
  if (!e.runtime || e.runtime->driver_version || !e.driver_files || !e.device_nodes) return false;
  const DriverFiles& d = *e.driver_files;
  const DeviceNodes& n = *e.device_nodes;
  return !d.libcuda_so_1 && !d.libcuda_version_without_link && d.libnvidia_ml_so_1 &&
         (n.nvidiactl != NodeState::Absent || n.nvidia_gpus > 0);
}

// The libcuda.so.1 found where the loader looks (or the one loaded) is a stub: a stubs
// folder, or no version in its file name.
bool stub_library(const Seen& s) {
  const Evidence& e = s.evidence;
  if (e.driver_library && !library_file_version(*e.driver_library)) return true;
  if (!e.driver_files || !e.driver_files->libcuda_so_1) return false;
  const DriverFiles& d = *e.driver_files;
  return d.libcuda_folder == std::optional<std::string>("stubs") ||
         (d.libcuda_file && !library_file_version(*d.libcuda_file));
}

// The device cgroup refuses the vendor's control node (EPERM).
bool cgroup_refuses_control(const Seen& s) {
  const DeviceCgroup& c = cgroup_of(s.evidence);
  return nodes_of_hip(s.evidence) ? c.kfd : c.nvidiactl || c.nvidia_uvm;
}

// Every GPU node refused by the device cgroup, the vendor's control node open.
bool cgroup_refuses_every_gpu(const Seen& s) {
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
bool group_unmapped(const Seen& s) {
  const Evidence& e = s.evidence;
  return e.user_namespace && !e.user_namespace->identity &&
         e.user_namespace->unmapped_group_nodes > 0;
}

// /dev/nvidiaN there, /dev/nvidia-uvm not.
bool uvm_missing(const Seen& s) {
  const Evidence& e = s.evidence;
  return e.device_nodes && e.device_nodes->nvidia_gpus > 0 &&
         e.device_nodes->nvidia_uvm == NodeState::Absent;
}

// The ROCm GPU's gfx target read from the KFD topology.
bool gfx_target_known(const Seen& s) { return s.evidence.rocm && s.evidence.rocm->gfx_target; }

// The loader could not map a library for lack of memory.
bool loader_out_of_memory(const Seen& s) { return loader_ran_out_of_memory(s.words); }

CopyState found(const Seen& s) { return s.copy ? s.copy->found : CopyState::Absent; }

// The library the loader did not find is libtorch's, and no copy is seen.
bool torch_library_missing(const Seen& s) {
  std::string missing = read_loader_words(s.words).missing;
  return !missing.empty() && is_torch_library(missing) &&
         (found(s) == CopyState::Absent || found(s) == CopyState::Readable);
}

// A copy is where the loader looks, but this user may not read it; it is built for
// another machine; a file the import needs is damaged (library_damage.hpp).
bool copy_unreadable(const Seen& s) { return found(s) == CopyState::NotReadable; }
bool copy_other_machine(const Seen& s) { return found(s) == CopyState::OtherMachine; }
bool copy_damaged(const Seen& s) { return found(s) == CopyState::Damaged; }

// An undefined symbol of a library's version ("version libnvJitLink.so.13"), that library
// not libtorch's, taken from a folder LD_LIBRARY_PATH names.
bool copy_shadowing(const Seen& s) {
  const std::string version = read_loader_words(s.words).symbol_version;
  const std::optional<LibraryCopy>& copy = s.copy;
  const bool from_library_path =
      copy && (copy->folder == std::optional<std::string>("cuda_toolkit") ||
               copy->folder == std::optional<std::string>("ld_library_path"));
  return found(s) == CopyState::Readable && from_library_path && !version.empty() &&
         !is_torch_library(version) && copy->name == version;
}

// The worker ended by SIGKILL, which the check sends only when it stops it.
bool killed_from_outside(const Seen& s) {
  return s.status != nullptr && s.status->signaled && s.status->signal == SIGKILL;
}

// ---- the interpreter's import of torch (python_import.hpp) ----

bool first_part_is_torch(const std::string& module) {
  return module == "torch" || module.rfind("torch.", 0) == 0;
}

// No torch module at all in this interpreter.
bool no_torch_module(const Seen& s) {
  return s.import != nullptr && s.import->exception == "ModuleNotFoundError" &&
         s.import->module == "torch";
}

// What the import found first is not the installed package: a torch.py, a source checkout, a
// folder without __init__.py, or a torch no installer put there while one is installed.
bool torch_shadowed(const Seen& s) {
  if (s.import == nullptr || s.import->found_kind.empty()) return false;
  const PythonImport& i = *s.import;
  return i.found_kind != "package" || (!i.found_installed && i.installed_elsewhere);
}

// torch's _C extension is there only for other CPython versions than this interpreter's.
bool extension_for_other_python(const Seen& s) {
  return s.import != nullptr && s.import->module == "torch._C" && !s.import->loader &&
         !s.import->extension_pythons.empty() && !s.import->extension_own;
}

// A file of the torch package that its installation had cannot be read or is gone.
bool torch_files_incomplete(const Seen& s) {
  return s.import != nullptr && !s.import->torch_module.empty() && !s.import->loader;
}

// A module torch imports, not of torch, missing; or there without a name torch imports from it.
bool dependency_missing(const Seen& s) {
  return s.import != nullptr && s.import->exception == "ModuleNotFoundError" &&
         !s.import->module.empty() && !first_part_is_torch(s.import->module);
}
bool dependency_too_old(const Seen& s) {
  return s.import != nullptr && s.import->exception == "ImportError" && !s.import->loader &&
         !s.import->module.empty() && !first_part_is_torch(s.import->module);
}

// ---- the application layer: a module asked with --import (extension_import.hpp) ----

bool extension_failed(const Seen& s) { return s.extension != nullptr && s.extension->failed; }

// `name` is the module asked or a package above it ("torchvision" of "torchvision.ops").
bool is_module_or_above(const std::string& name, const std::string& module) {
  return !name.empty() && (name == module || module.rfind(name + ".", 0) == 0);
}

// ModuleNotFoundError for the module asked itself, or a package above it.
bool extension_not_installed(const Seen& s) {
  return extension_failed(s) && s.extension->exception == "ModuleNotFoundError" &&
         is_module_or_above(s.extension->missing_module, s.extension->module);
}

// An undefined symbol that no library of the torch imported exports.
bool symbol_torch_lacks(const Seen& s) {
  return extension_failed(s) && !s.extension->undefined_symbol.empty() &&
         !s.extension->symbol_in_torch;
}

// ... whose std::string is the other C++ ABI's than torch's libraries'.
bool extension_other_cxx_abi(const Seen& s) {
  if (!symbol_torch_lacks(s) || !s.extension->torch.cxx11_abi) return false;
  const std::string abi = string_abi_of(demangled(s.extension->undefined_symbol));
  return !abi.empty() && (abi == "cxx11") != *s.extension->torch.cxx11_abi;
}

// ... and a function of torch's own (c10::, at::, torch::, caffe2::, its Python bindings' THP).
bool extension_built_against_other_torch(const Seen& s) {
  if (!symbol_torch_lacks(s)) return false;
  const std::string name = demangled(s.extension->undefined_symbol);
  for (const char* part : {"c10::", "at::", "torch::", "caffe2::"}) {
    if (name.find(part) != std::string::npos) return true;
  }
  return name.rfind("THP", 0) == 0;
}

// Its distribution requires a torch the one imported does not satisfy.
bool extension_for_other_torch(const Seen& s) {
  return extension_failed(s) && s.extension->torch_matches == std::optional<bool>(false);
}

// The loader refused a library of it (an extension module, or one loaded as torch loads an ops
// library) while its libraries that link libtorch need a CUDA runtime of another major than
// torch's, or torch has none.
bool extension_cuda_mismatch(const Seen& s) {
  if (!extension_failed(s) || s.extension->cuda_majors.empty()) return false;
  const ExtensionImport& e = *s.extension;
  const bool loader = e.phase == "library" || (e.exception == "ImportError" && !e.library.empty());
  const std::string torch_major = e.torch.cuda.substr(0, e.torch.cuda.find('.'));
  return loader && std::find(e.cuda_majors.begin(), e.cuda_majors.end(), torch_major) ==
                       e.cuda_majors.end();
}

// ModuleNotFoundError for another module than the one asked: a dependency of it.
bool extension_dependency_missing(const Seen& s) {
  return extension_failed(s) && s.extension->exception == "ModuleNotFoundError" &&
         !s.extension->missing_module.empty();
}

// ---- the application layer: a weights file asked with --weights (weights_file.hpp) ----

bool weights_error(const Seen& s, std::initializer_list<std::string_view> names) {
  if (s.weights == nullptr) return false;
  for (std::string_view name : names) {
    if (s.weights->error_name == name) return true;
  }
  return false;
}
bool weights_not_found(const Seen& s) { return weights_error(s, {"ENOENT", "ENOTDIR", "ELOOP"}); }
bool weights_not_readable(const Seen& s) { return weights_error(s, {"EACCES", "EPERM"}); }
bool weights_lfs_pointer(const Seen& s) {
  return s.weights != nullptr && s.weights->format == "git_lfs_pointer";
}
bool weights_cut_short(const Seen& s) { return s.weights != nullptr && s.weights->cut; }
bool weights_not_weights(const Seen& s) {
  return s.weights != nullptr && !s.weights->format.empty() &&
         !is_weights_format(s.weights->format) && !is_foreign_weights_format(s.weights->format);
}
bool weights_format_unsupported(const Seen& s) {
  return s.weights != nullptr && (is_foreign_weights_format(s.weights->format) ||
                                  !s.weights->unsupported_dtypes.empty() ||
                                  s.weights->no_weights_only);
}
bool weights_only_refused(const Seen& s) {
  return s.weights != nullptr &&
         (!s.weights->refused_globals.empty() || s.weights->exception == "UnpicklingError");
}
bool weights_damaged(const Seen& s) {
  return s.weights != nullptr && (!s.weights->damage.empty() ||
                                  s.weights->exception == "BadZipFile" ||
                                  s.weights->exception == "EOFError");
}

// ---- the backend's own libraries (backend_libraries.hpp) ----

bool dnn_refused(const Seen& s) { return s.library != nullptr && s.library->refused; }
bool dnn_from_library_path(const Seen& s) {
  return dnn_refused(s) &&
         (s.library->origin == "cuda_toolkit" || s.library->origin == "ld_library_path");
}
bool dnn_files_replaced(const Seen& s) {
  return dnn_refused(s) && s.library->origin == "replaced_wheel";
}
bool dnn_other_release(const Seen& s) {
  return dnn_refused(s) &&
         (s.library->origin == "other_wheel" || s.library->origin == "pinned_wheel");
}
bool ccl_not_pinned(const Seen& s) {
  return s.library != nullptr && (s.library->name == "nccl" || s.library->name == "rccl") &&
         ccl_other_than_pinned(*s.library);
}

// ---- torch.compile's toolchain (compile_facts.hpp) ----

bool compile_not_in_torch(const Seen& s) { return s.compile != nullptr && !s.compile->in_torch; }
bool compile_no_cxx(const Seen& s) {
  return s.compile != nullptr &&
         (s.compile->exception == "InvalidCxxCompiler" || (!s.compile->gpu && !s.compile->cxx_found));
}
bool compile_no_python_headers(const Seen& s) {
  return s.compile != nullptr && !s.compile->gpu && !s.compile->python_headers;
}
bool compile_triton_mismatch(const Seen& s) {
  return s.compile != nullptr && s.compile->gpu && triton_mismatch(*s.compile);
}
bool compile_no_cc(const Seen& s) {
  return s.compile != nullptr && s.compile->gpu && !s.compile->cc_found;
}

// An address-space limit (ulimit -v) is set.
bool address_space_limited(const Seen& s) {
  return s.limits != nullptr && s.limits->address_space.has_value();
}

// ---- how a row is recognised (Recogniser, causes.hpp) ----

using N = std::array<int, 4>;
using W = std::array<std::string_view, 3>;

// A GPU runtime's error numbers: CUDA's, HIP's, or either's; and the sign with them.
constexpr Recogniser cuda(N numbers, Sign sign = nullptr) {
  return {Api::Cuda, numbers, {}, {}, sign};
}
constexpr Recogniser hip(N numbers, Sign sign = nullptr) {
  return {Api::Hip, numbers, {}, {}, sign};
}
constexpr Recogniser runtime(N numbers, Sign sign = nullptr) {
  return {Api::Both, numbers, {}, {}, sign};
}
// The system's error numbers (errno).
constexpr Recogniser system_errors(N numbers) { return {Api::System, numbers, {}, {}, nullptr}; }
// One of the words, and `and_word` where given.
constexpr Recogniser says(W words, std::string_view and_word = {}) {
  return {Api::Both, {}, words, and_word, nullptr};
}
// The sign alone.
constexpr Recogniser seeing(Sign sign) { return {Api::Both, {}, {}, {}, sign}; }
// The layer's generic row: whatever no row before it recognised.
constexpr Recogniser kOtherwise{};

// The catalogue's columns in short: a stage or an outcome by its name alone; kCount for
// kDeviceCount, and kCountOrStart for a cause met whether a GPU is usable or the device starts.
constexpr Stage Import = Stage::Import, Backend = Stage::Backend, Device = Stage::Device,
                Compute = Stage::Compute, Compile = Stage::Compile,
                Application = Stage::Application, Output = Stage::Output;
constexpr Outcome GpuUnavailable = Outcome::GpuUnavailable, TorchMissing = Outcome::TorchMissing,
                  TorchImportFailed = Outcome::TorchImportFailed,
                  RuntimeError = Outcome::RuntimeError, WorkerFailed = Outcome::WorkerFailed,
                  InternalError = Outcome::InternalError, OutOfMemory = Outcome::OutOfMemory,
                  OutputWriteFailed = Outcome::OutputWriteFailed,
                  ExtensionImportFailed = Outcome::ExtensionImportFailed,
                  WeightsUnusable = Outcome::WeightsUnusable,
                  BackendLibraryMismatch = Outcome::BackendLibraryMismatch,
                  CompileFailed = Outcome::CompileFailed;
constexpr unsigned kCount = kDeviceCount, kCountOrStart = kDeviceCount | kDeviceStart,
                   kSearchOrImport = kTorchSearch | kPythonImport;

// The words of the loader, libtorch or the worker that some rows look for, too many to
// spell within the row's line.
constexpr W kOldDriver{"driver on your system is too old", "insufficient for CUDA runtime"};
constexpr W kNoGpus{"No CUDA GPUs are available", "No HIP GPUs are available"};
constexpr W kDamagedFile{"invalid ELF header", "file too short", "cannot read file data"};
constexpr W kNoMemory{"bad_alloc", "Cannot allocate memory", "out of memory"};
constexpr W kNoThread{"Resource temporarily unavailable", "Thread creation failed",
                      "pthread_create"};
constexpr std::string_view kCannotOpen = "cannot open shared object file";

// A cause's row: its name, stage, outcome and where it is met, and how it is recognised.
struct CauseRow {
  CauseId id;
  std::string_view type;
  SnakeCase key;
  Stage stage;
  Outcome outcome;
  unsigned where;
  Recogniser how;
};

// A cause's one name: its CauseId, its error.type and its key.
#define CAUSE(name) CauseId::name, #name, SnakeCase(#name, SnakeCase::kLower)

// The catalogue, a row a cause and a line a row: its name, stage, outcome and where it is met;
// how it is recognised. Its words for people are in kWords, below, row for row.
// Rows are tried in this order: the first that fits is the cause, so the evidence-backed
// rows come before the bare numbers, and each layer ends in its generic row (none for
// compute and an allocation: their failure stays the backend's error).
// clang-format off
constexpr CauseRow kCauses[] = {
    // ---- device ----
    {CAUSE(WslGpuNotReached),                 Device,  GpuUnavailable,    kCount,        cuda({35, 100, 999, 3}, wsl_without_nvidia_nodes)},
    {CAUSE(GpusWithoutNvidiaRuntime),         Device,  GpuUnavailable,    kCount,        cuda({35, 100, 999, 3}, plugin_without_runtime)},
    {CAUSE(DriverLinkMissing),                Device,  GpuUnavailable,    kCount,        cuda({35}, link_missing)},
    {CAUSE(DriverCapabilityMissing),          Device,  GpuUnavailable,    kCount,        cuda({35}, capability_missing)},
    {CAUSE(NoDriver),                         Device,  GpuUnavailable,    kCount,        cuda({35}, no_driver_version).saying({"Found no NVIDIA driver"})},
    {CAUSE(DriverTooOld),                     Device,  GpuUnavailable,    kCount,        cuda({35}, driver_version).saying(kOldDriver)},
    {CAUSE(StubDriver),                       Device,  GpuUnavailable,    kCount,        cuda({34}, stub_library)},
    {CAUSE(DeviceCgroupDenied),               Device,  GpuUnavailable,    kCount,        runtime({100, 999, 3, 304}, cgroup_refuses_control)},
    {CAUSE(NoGpuGranted),                     Device,  GpuUnavailable,    kCount,        runtime({100, 999, 3, 304}, cgroup_refuses_every_gpu)},
    {CAUSE(NodeGroupUnmapped),                Device,  GpuUnavailable,    kCount,        runtime({100, 999, 3, 304}, group_unmapped)},
    {CAUSE(DeviceNodesNotAccessible),         Device,  GpuUnavailable,    kCount,        runtime({100, 999, 3, 304}, nodes_not_accessible)},
    {CAUSE(NoDeviceNodes),                    Device,  GpuUnavailable,    kCount,        runtime({100, 999, 3, 304}, no_gpu_nodes)},
    {CAUSE(GpusHidden),                       Device,  GpuUnavailable,    kCount,        runtime({100}, gpus_hidden)},
    {CAUSE(UvmMissing),                       Device,  GpuUnavailable,    kCount,        cuda({999}, uvm_missing)},
    {CAUSE(DriverMismatch),                   Device,  GpuUnavailable,    kCount,        cuda({803})},
    {CAUSE(FabricManagerNotRunning),          Device,  GpuUnavailable,    kCount,        cuda({802})},
    {CAUSE(CompatNotSupported),               Device,  GpuUnavailable,    kCount,        cuda({804})},
    {CAUSE(DevicesBusy),                      Device,  GpuUnavailable,    kCountOrStart, cuda({46})},
    {CAUSE(OsCallRefused),                    Device,  GpuUnavailable,    kCount,        runtime({304})},
    {CAUSE(DriverInitFailed),                 Device,  GpuUnavailable,    kCount,        runtime({3})},
    {CAUSE(OutOfMemoryAtInit),                Device,  GpuUnavailable,    kCount,        runtime({2})},
    {CAUSE(UnknownDriverError),               Device,  GpuUnavailable,    kCount,        runtime({999})},
    {CAUSE(NoDevice),                         Device,  GpuUnavailable,    kCount,        runtime({100}).saying(kNoGpus)},
    {CAUSE(GpuUnavailable),                   Device,  GpuUnavailable,    kCount,        kOtherwise},

    // ---- import ----
    {CAUSE(AddressSpaceLimit),                Import,  TorchImportFailed, kLoader,       seeing(loader_out_of_memory)},
    {CAUSE(CxxRuntimeTooOld),                 Import,  TorchImportFailed, kLoader,       says({"version `GLIBCXX_", "version `CXXABI_"}, "not found")},
    {CAUSE(CLibraryTooOld),                   Import,  TorchImportFailed, kLoader,       says({"version `GLIBC_"}, "not found")},
    {CAUSE(CudaLibraryShadowed),              Import,  TorchImportFailed, kLoader,       seeing(copy_shadowing)},
    {CAUSE(MixedBuilds),                      Import,  TorchImportFailed, kLoader,       says({"undefined symbol"})},
    {CAUSE(CorruptLibrary),                   Import,  TorchImportFailed, kLoader,       says(kDamagedFile).or_seeing(copy_damaged)},
    {CAUSE(LibraryUnreadable),                Import,  TorchImportFailed, kLoader,       says({"Permission denied"}, kCannotOpen).or_seeing(copy_unreadable)},
    {CAUSE(WrongArchitecture),                Import,  TorchImportFailed, kLoader,       says({"wrong ELF class"}).or_seeing(copy_other_machine)},
    {CAUSE(TorchNotFound),                    Import,  TorchMissing,      kLoader,       seeing(torch_library_missing)},
    {CAUSE(DependencyNotFound),               Import,  TorchImportFailed, kLoader,       says({kCannotOpen})},
    {CAUSE(LoaderError),                      Import,  TorchImportFailed, kLoader,       kOtherwise},

    // ---- import: the stable probe's libtorch, found through the Python environment ----
    {CAUSE(TorchPackageMissing),              Import,  TorchMissing,      kSearchOrImport, seeing(no_torch_module)},
    {CAUSE(NoPythonForTorch),                 Import,  TorchMissing,      kTorchSearch,  kOtherwise},
    {CAUSE(StableAbiTooOld),                  Import,  TorchImportFailed, kStableProbe,  kOtherwise},

    // ---- import: the interpreter's own import of torch (the python probe) ----
    {CAUSE(TorchShadowed),                    Import,  TorchImportFailed, kPythonImport, seeing(torch_shadowed)},
    {CAUSE(TorchForOtherPython),              Import,  TorchImportFailed, kPythonImport, seeing(extension_for_other_python)},
    {CAUSE(TorchFilesIncomplete),             Import,  TorchImportFailed, kPythonImport, seeing(torch_files_incomplete)},
    {CAUSE(PythonDependencyMissing),          Import,  TorchImportFailed, kPythonImport, seeing(dependency_missing)},
    {CAUSE(PythonDependencyTooOld),           Import,  TorchImportFailed, kPythonImport, seeing(dependency_too_old)},
    {CAUSE(TorchImportError),                 Import,  TorchImportFailed, kPythonImport, kOtherwise},

    // ---- compute ----
    {CAUSE(RocmArchitectureMissing),          Compute, RuntimeError,      kCompute,      hip({98, 209}, gfx_target_known)},
    {CAUSE(NoKernelImage),                    Compute, RuntimeError,      kCompute,      runtime({209})},
    {CAUSE(PtxTooNew),                        Compute, RuntimeError,      kCompute,      cuda({222})},
    {CAUSE(GpuFault),                         Compute, RuntimeError,      kCompute,      runtime({700, 719})},
    {CAUSE(UncorrectableEcc),                 Compute, RuntimeError,      kCompute,      runtime({214})},

    // ---- application: a module of the application asked with --import (the python probe) ----
    {CAUSE(ExtensionNotInstalled),            Application, ExtensionImportFailed, kApplication, seeing(extension_not_installed)},
    {CAUSE(ExtensionOtherCxxAbi),             Application, ExtensionImportFailed, kApplication, seeing(extension_other_cxx_abi)},
    {CAUSE(ExtensionBuiltAgainstOtherTorch),  Application, ExtensionImportFailed, kApplication, seeing(extension_built_against_other_torch)},
    {CAUSE(ExtensionForOtherTorch),           Application, ExtensionImportFailed, kApplication, seeing(extension_for_other_torch)},
    {CAUSE(ExtensionCudaMismatch),            Application, ExtensionImportFailed, kApplication, seeing(extension_cuda_mismatch)},
    {CAUSE(ExtensionDependencyMissing),       Application, ExtensionImportFailed, kApplication, seeing(extension_dependency_missing)},
    {CAUSE(ExtensionImportError),             Application, ExtensionImportFailed, kApplication, kOtherwise},

    // ---- application: a weights file asked with --weights (the python probe) ----
    {CAUSE(WeightsNotFound),                  Application, WeightsUnusable,       kWeights,     seeing(weights_not_found)},
    {CAUSE(WeightsNotReadable),               Application, WeightsUnusable,       kWeights,     seeing(weights_not_readable)},
    {CAUSE(WeightsGitLfsPointer),             Application, WeightsUnusable,       kWeights,     seeing(weights_lfs_pointer)},
    {CAUSE(WeightsCutShort),                  Application, WeightsUnusable,       kWeights,     seeing(weights_cut_short)},
    {CAUSE(WeightsNotAWeightsFile),           Application, WeightsUnusable,       kWeights,     seeing(weights_not_weights)},
    {CAUSE(WeightsFormatUnsupported),         Application, WeightsUnusable,       kWeights,     seeing(weights_format_unsupported)},
    {CAUSE(WeightsOnlyRefused),               Application, WeightsUnusable,       kWeights,     seeing(weights_only_refused)},
    {CAUSE(WeightsArchiveDamaged),            Application, WeightsUnusable,       kWeights,     seeing(weights_damaged)},
    {CAUSE(WeightsLoadError),                 Application, WeightsUnusable,       kWeights,     kOtherwise},

    // ---- backend: the backend's own libraries (the python probe) ----
    {CAUSE(CudnnFromLibraryPath),             Backend, BackendLibraryMismatch, kBackendLibraries, seeing(dnn_from_library_path)},
    {CAUSE(CudnnFilesReplaced),               Backend, BackendLibraryMismatch, kBackendLibraries, seeing(dnn_files_replaced)},
    {CAUSE(CudnnOtherRelease),                Backend, BackendLibraryMismatch, kBackendLibraries, seeing(dnn_other_release)},
    {CAUSE(CudnnFromSystem),                  Backend, BackendLibraryMismatch, kBackendLibraries, seeing(dnn_refused)},
    {CAUSE(NcclNotPinned),                    Backend, BackendLibraryMismatch, kBackendLibraries, seeing(ccl_not_pinned)},

    // ---- compile: the computation through torch.compile (--compile, the python probe) ----
    {CAUSE(CompileNotInTorch),                Compile, CompileFailed,         kCompile,     seeing(compile_not_in_torch)},
    {CAUSE(CompileNoCxxCompiler),             Compile, CompileFailed,         kCompile,     seeing(compile_no_cxx)},
    {CAUSE(CompilePythonHeadersMissing),      Compile, CompileFailed,         kCompile,     seeing(compile_no_python_headers)},
    {CAUSE(CompileTritonMismatch),            Compile, CompileFailed,         kCompile,     seeing(compile_triton_mismatch)},
    {CAUSE(CompileNoCCompiler),               Compile, CompileFailed,         kCompile,     seeing(compile_no_cc)},
    {CAUSE(CompileError),                     Compile, CompileFailed,         kCompile,     kOtherwise},

    // ---- the worker's start: fork, exec or one of its pipes failed ----
    {CAUSE(ProcessLimitAtStart),              Import,  WorkerFailed,      kWorkerStart,  system_errors({EAGAIN})},
    {CAUSE(OutOfMemoryAtStart),               Import,  WorkerFailed,      kWorkerStart,  system_errors({ENOMEM})},
    {CAUSE(OpenFileLimitAtStart),             Import,  WorkerFailed,      kWorkerStart,  system_errors({EMFILE, ENFILE})},
    {CAUSE(SpawnFailed),                      Import,  InternalError,     kWorkerStart,  kOtherwise},

    // ---- the worker's end without a verdict ----
    {CAUSE(KilledFromOutside),                Import,  WorkerFailed,      kWorkerEnd,    seeing(killed_from_outside)},
    {CAUSE(DiedForLackOfMemory),              Import,  WorkerFailed,      kWorkerEnd,    says(kNoMemory)},
    {CAUSE(ThreadStartFailed),                Import,  WorkerFailed,      kWorkerEnd,    says(kNoThread)},
    {CAUSE(WorkerFailed),                     Import,  WorkerFailed,      kWorkerEnd,    kOtherwise},

    // ---- an allocation refused ----
    {CAUSE(AllocationUnderAddressSpaceLimit), Device,  OutOfMemory,       kAllocation,   seeing(address_space_limited)},

    // ---- output ----
    {CAUSE(StdoutWriteFailed),                Output,  OutputWriteFailed, kStdout,       kOtherwise},
};
// clang-format on

#undef CAUSE

// A cause's words for people: its title, how it is recognised (the docs' column), its
// message's first sentence and its next action, with {fact} placeholders (cause_words).
struct CauseWords {
  CauseId id;
  std::string_view title;
  std::string_view recognised;
  std::string_view what;
  std::string_view next_action;
};

// Each cause's words, in the catalogue's order.
constexpr CauseWords kWords[] = {
    // ---- device ----
    {CauseId::WslGpuNotReached,
     "WSL2 without its way to the GPU (/dev/dxg and the WSL driver libraries)",
     "CUDA runtime error 35, 100, 999 or 3 on a WSL2 kernel (its release names microsoft) "
     "without /dev/nvidiaN, which WSL2 never has: its GPU is /dev/dxg",
     "No usable GPU in this process: this is WSL2 (a Microsoft kernel), where the GPU is reached "
     "through /dev/dxg and the driver libraries of /usr/lib/wsl/lib, never /dev/nvidia* ({dxg}).",
     "Install the NVIDIA driver for WSL on Windows (never a Linux driver inside WSL), start the "
     "container with --gpus all (Docker Desktop's WSL2 backend mounts /dev/dxg and "
     "/usr/lib/wsl/lib), and keep /usr/lib/wsl/lib on the loader's path (ldconfig)."},
    {CauseId::GpusWithoutNvidiaRuntime,
     "GPUs given by the device plugin, the container not started by the NVIDIA runtime",
     "CUDA runtime error 35, 100, 999 or 3 while NVIDIA_VISIBLE_DEVICES names GPU UUIDs (its "
     "shape uuid_list, as the NVIDIA device plugin sets it) and there is no /dev/nvidiaN",
     "No usable GPU in this process: GPUs were given to it (NVIDIA_VISIBLE_DEVICES names GPU "
     "UUIDs, as the NVIDIA device plugin sets it), but no /dev/nvidia* node was put in the "
     "container: it was not started by the NVIDIA container runtime.",
     "Run the pod with the NVIDIA runtime (runtimeClassName: nvidia, or nvidia as the node's "
     "default containerd or CRI-O runtime, as the GPU operator sets it up): the device plugin "
     "only names the GPUs, the runtime exposes them."},
    {CauseId::DriverLinkMissing,
     "libcuda.so.1 missing beside the driver library",
     "CUDA runtime error 35 (insufficient driver) with no driver version, while a "
     "libcuda.so.<version> is where the loader looks and no libcuda.so.1 is",
     "No usable GPU in this process: the NVIDIA driver library is there "
     "(libcuda.so.{libcuda_version}) but not the libcuda.so.1 link the CUDA runtime loads it by.",
     "Run ldconfig in the container (or let the NVIDIA container toolkit's update-ldcache or CDI "
     "hook run it) so that libcuda.so.1 links to libcuda.so.{libcuda_version}; a driver library "
     "copied into an image needs its link too."},
    {CauseId::DriverCapabilityMissing,
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
    {CauseId::NoDriver,
     "no NVIDIA driver library",
     "CUDA runtime error 35 (insufficient driver) while the runtime reports no driver version; "
     "without a runtime to ask, libtorch's \"Found no NVIDIA driver\"",
     "No usable GPU in this process: the NVIDIA driver library (libcuda.so.1) could not be "
     "loaded.",
     "Expose the driver to this container (NVIDIA container toolkit, --gpus) and check device "
     "exposure and permissions."},
    {CauseId::DriverTooOld,
     "driver too old for libtorch's CUDA runtime",
     "CUDA runtime error 35 (insufficient driver) with a driver version; without a runtime to "
     "ask, libtorch's \"driver on your system is too old\" or \"insufficient for CUDA runtime\"",
     "No usable GPU in this process: the NVIDIA driver is too old for the CUDA runtime this "
     "libtorch was built with (the driver supports CUDA {driver_cuda}, the runtime is CUDA "
     "{runtime_cuda}).",
     "Update the GPU driver, or install a libtorch built for the CUDA version the driver "
     "supports."},
    {CauseId::StubDriver,
     "the CUDA toolkit's stub driver library loaded",
     "CUDA runtime error 34 (stub library) while the libcuda.so.1 the loader finds is in a stubs "
     "folder or has no version in its file name",
     "No usable GPU in this process: the CUDA runtime loaded a stub of the driver library "
     "({stub_file}; error 34), which only serves to link programs, instead of the NVIDIA "
     "driver's libcuda.so.1.",
     "Take the stubs folder (the CUDA toolkit's lib64/stubs) off LD_LIBRARY_PATH and out of "
     "ld.so.conf, and remove any libcuda.so.1 that links to the stub from the image, so that the "
     "driver's own libcuda.so.1, which the NVIDIA container toolkit mounts, is loaded."},
    {CauseId::DeviceCgroupDenied,
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
    {CauseId::NoGpuGranted,
     "no GPU granted to this job by its device cgroup",
     "runtime error 100, 999, 3 or 304 while the kernel refuses every GPU node (/dev/nvidiaN; "
     "/dev/dri/renderD* for ROCm) with EPERM and the control node is open: a scheduler's device "
     "cgroup, which grants a job its own GPUs (only some GPUs refused is no cause of its own)",
     "No usable GPU in this process: its device cgroup grants it none of the GPUs here "
     "({refused_gpus} refused: EPERM) while the driver's own nodes are open, as a scheduler does "
     "with the GPUs of other jobs (Slurm's ConstrainDevices, a device plugin).",
     "Ask the scheduler for a GPU (srun --gres=gpu:1, the pod's nvidia.com/gpu limit) and run "
     "the check inside that allocation: it counts the GPUs it was granted from 0."},
    {CauseId::NodeGroupUnmapped,
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
    {CauseId::DeviceNodesNotAccessible,
     "device nodes this user may not open",
     "runtime error 100, 999, 3 or 304 while a GPU device node exists that this process may not "
     "read and write by its mode (access(2) answers EACCES)",
     "No usable GPU in this process: the device nodes are there but this user may not open them "
     "({closed_nodes}).",
     "Run as a user who may read and write them (their group, often video or render), or let the "
     "container runtime or the device plugin set their permissions."},
    {CauseId::NoDeviceNodes,
     "no GPU device node in the container",
     "runtime error 100, 999, 3 or 304 while there is no GPU device node (/dev/nvidiaN; /dev/kfd "
     "and /dev/dri/renderD* for ROCm)",
     "No usable GPU in this process: no {vendor} device node in this container (started without "
     "{expose}).",
     "Start the container with its GPUs exposed (--gpus or the device plugin; for ROCm --device "
     "/dev/kfd --device /dev/dri) and check that the node gives it a GPU."},
    {CauseId::GpusHidden,
     "GPUs hidden by a visibility variable",
     "runtime error 100 (no device) while GPU device nodes exist and CUDA_VISIBLE_DEVICES, "
     "HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES is set",
     "No usable GPU in this process: the device nodes are there, but {variables} leaves no GPU "
     "visible.",
     "Unset the variable, or list GPUs this machine has (an index from 0, or the UUID of one of "
     "its GPUs)."},
    {CauseId::UvmMissing,
     "/dev/nvidia-uvm missing",
     "CUDA runtime error 999 (unknown) while /dev/nvidiaN exists and /dev/nvidia-uvm does not",
     "No usable GPU in this process: /dev/nvidia-uvm is missing, and the CUDA runtime cannot "
     "work without it (error 999).",
     "Load the nvidia-uvm kernel module on the host (nvidia-modprobe -u -c=0) and expose "
     "/dev/nvidia-uvm to the container."},
    {CauseId::DriverMismatch,
     "driver library and kernel module of different versions",
     "CUDA runtime error 803 (system driver mismatch)",
     "No usable GPU in this process: the NVIDIA driver library ({driver_library}) and the kernel "
     "module ({kernel_module}) are of different versions (error 803).",
     "Use the driver libraries of the host's kernel module: let the NVIDIA container toolkit "
     "mount them instead of shipping libcuda in the image (or drop cuda-compat), or bring the "
     "host's driver to the library's version."},
    {CauseId::FabricManagerNotRunning,
     "NVSwitch system without the fabric manager",
     "CUDA runtime error 802 (system not ready)",
     "No usable GPU in this process: the system is not ready (error 802); on an NVSwitch system "
     "(HGX) the NVIDIA fabric manager is not running.",
     "Start nvidia-fabricmanager on the host, of the driver's version, and wait until it has set "
     "up the NVSwitches."},
    {CauseId::CompatNotSupported,
     "forward-compatibility libraries this GPU does not support",
     "CUDA runtime error 804 (compatibility not supported on device)",
     "No usable GPU in this process: the CUDA forward-compatibility libraries in use "
     "(cuda-compat) do not support this GPU (error 804).",
     "Take the compatibility libraries off the library path (cuda-compat, "
     "/usr/local/cuda/compat) and update the host's driver instead: forward compatibility serves "
     "data-center GPUs only."},
    {CauseId::DevicesBusy,
     "GPUs busy or in exclusive mode",
     "CUDA runtime error 46 (devices unavailable), whether a GPU is usable or the device starts",
     "No usable GPU in this process: the GPUs are busy or unavailable (error 46), most often in "
     "exclusive-process mode and held by another process.",
     "Find the process that holds the GPU (nvidia-smi) and wait for it or stop it, or set the "
     "compute mode back to default (nvidia-smi -c DEFAULT)."},
    {CauseId::OsCallRefused,
     "an operating-system call refused (a sandbox)",
     "runtime error 304 (operating system), device nodes present",
     "No usable GPU in this process: the operating system refused a call the driver needs (error "
     "304), as a sandbox does (seccomp, gVisor, a restricted runtime).",
     "Run the container with its runtime's GPU support (the NVIDIA container runtime) and "
     "without a seccomp or sandbox profile that blocks the driver's calls."},
    {CauseId::DriverInitFailed,
     "driver initialisation failed",
     "runtime error 3 (initialisation error), device nodes present",
     "No usable GPU in this process: the driver could not be initialised (error 3).",
     "Check the driver on the host (nvidia-smi, dmesg for NVRM and Xid lines) and that the "
     "container's driver libraries are the host's."},
    {CauseId::OutOfMemoryAtInit,
     "out of memory while initialising",
     "runtime error 2 (out of memory)",
     "No usable GPU in this process: the driver ran out of memory while initialising (error 2).",
     "Free host memory or raise the container's memory limit, and check that no other process "
     "fills the GPU (nvidia-smi)."},
    {CauseId::UnknownDriverError,
     "unknown driver error",
     "runtime error 999 (unknown), device nodes present, /dev/nvidia-uvm too",
     "No usable GPU in this process: the driver answered an unknown error (999).",
     "Check dmesg for Xid errors; a GPU reset may be needed (nvidia-smi -r, or drain and reboot "
     "the node)."},
    {CauseId::NoDevice,
     "the driver sees no GPU",
     "runtime error 100 (no device) with accessible device nodes and no visibility variable set; "
     "without a runtime to ask, libtorch's \"No CUDA GPUs are available\" or \"No HIP GPUs are "
     "available\"",
     "No usable GPU in this process: the driver sees no GPU.",
     "Check device exposure (CUDA_VISIBLE_DEVICES, --gpus, the device plugin) and permissions."},
    {CauseId::GpuUnavailable,
     "no usable GPU, cause not recognised",
     "any other answer: another runtime error number, or none",
     "No usable GPU in this process.",
     "Check device exposure, the driver and permissions."},

    // ---- import ----
    {CauseId::AddressSpaceLimit,
     "libtorch cannot be mapped (a memory limit)",
     "loader: \"failed to map segment from shared object\", \"cannot map zero-fill pages\" or "
     "\"Cannot allocate memory\" (not a full static TLS block)",
     "libtorch was found but could not be mapped into memory{memory_limits}.",
     "The memory or address-space limit is the likely cause: raise it (ulimit -v, or the "
     "container's memory limit); loading libtorch takes hundreds of MiB of address space, a CUDA "
     "build several GiB."},
    {CauseId::CxxRuntimeTooOld,
     "C++ runtime too old",
     "loader: version `GLIBCXX_...' (or `CXXABI_...') not found",
     "libtorch was found but {needer} needs {needed} of the C++ runtime, which this image's "
     "{provider} is too old to have.",
     "Use a base image with a newer libstdc++ (a newer distribution release), or a libtorch "
     "built for this image's C++ runtime."},
    {CauseId::CLibraryTooOld,
     "C library too old",
     "loader: version `GLIBC_...' not found",
     "libtorch was found but {needer} needs {needed} of the C library, which this image's "
     "{provider} is too old to have.",
     "Use a base image with a newer glibc (a newer distribution release), or a libtorch built "
     "for an older one (a wheel's manylinux tag names the oldest glibc it supports)."},
    {CauseId::CudaLibraryShadowed,
     "an older CUDA library of the image shadows the one libtorch came with",
     "loader: undefined symbol ..., version libX.so.N, of a library not of libtorch, which the "
     "loader takes (resolving the import's needs as it does) from a folder LD_LIBRARY_PATH "
     "names: the image's CUDA toolkit folder, or another",
     "libtorch was found but {needer} needs a newer {library} than the one the loader takes "
     "first, from {folder}: the image's own CUDA libraries shadow those libtorch came with.",
     "Take that folder off LD_LIBRARY_PATH, or put it after the folders of the libraries "
     "libtorch came with (a pip torch's nvidia/*/lib): they need {library} of their own CUDA "
     "release."},
    {CauseId::MixedBuilds,
     "libtorch libraries from different builds",
     "loader: undefined symbol",
     "libtorch was found but its libraries come from different builds: {needer} needs a symbol "
     "the libraries loaded with it lack.",
     "Install libtorch from one release, all its libraries (libtorch*, libc10*) from the same "
     "build, and make sure no other copy comes first on LD_LIBRARY_PATH."},
    {CauseId::CorruptLibrary,
     "a damaged library file",
     "loader: invalid ELF header, file too short, cannot read file data; or, after an import "
     "that failed (undefined symbol, words not recognised) or a worker killed at the import "
     "stage (SIGBUS, SIGSEGV, SIGILL, SIGFPE, SIGABRT), a file the import needs found damaged "
     "without loading it: shorter than its headers need, a header that does not parse, a dynamic "
     "section outside the file, a SHA-256 other than its wheel's RECORD lists for its size, or "
     "(an undefined symbol) no name where its hash table lists the symbol",
     "libtorch was found but {library} is not a valid shared library: a truncated download or an "
     "overwritten file.",
     "Reinstall the libtorch package (download it again) and check its files against the "
     "package's checksums."},
    {CauseId::LibraryUnreadable,
     "a library file this user may not read",
     "loader: cannot open shared object file: Permission denied; or the library is \"not found\" "
     "while a copy where the loader looks may not be read by this process (the loader skips it "
     "silently)",
     "libtorch was found but this user may not read {library} (the file's mode, or a folder "
     "above it).",
     "Make libtorch's files readable for the user the container runs as (chmod -R a+rX on its "
     "folder), or run as their owner."},
    {CauseId::WrongArchitecture,
     "a library built for another architecture",
     "loader: wrong ELF class; or the library is \"not found\" while a copy where the loader "
     "looks is built for another machine (the loader skips it silently)",
     "libtorch was found but {library} is built for another architecture ({machine}; this "
     "machine runs {host_machine}).",
     "Install the libtorch built for {host_machine}: the wheel or archive of this machine's "
     "architecture."},
    {CauseId::TorchNotFound,
     "libtorch not found",
     "loader: a libtorch, libc10 or libcaffe2 library: cannot open shared object file, and no "
     "copy where the loader looks",
     "libtorch cannot be found by this process: the loader finds no {library}.",
     "Check the library path and the libtorch installation (LD_LIBRARY_PATH, ldconfig, the "
     "installation's lib folder)."},
    {CauseId::DependencyNotFound,
     "a library libtorch needs is missing",
     "loader: another library: cannot open shared object file",
     "libtorch was found but a library it needs is missing: {library}.",
     "Install the libraries this libtorch build needs (for a CUDA build the CUDA runtime, "
     "cuBLAS, cuDNN: the nvidia-* wheels or the CUDA packages), or install the build that fits "
     "this image."},
    {CauseId::LoaderError,
     "libtorch not loaded, cause not recognised",
     "any other words of the loader",
     "libtorch was found but failed to load.",
     "Check the libtorch package and its dependencies."},

    // ---- import: the stable probe's libtorch, found through the Python environment ----
    {CauseId::TorchPackageMissing,
     "no torch in the Python environment",
     "the interpreter asked (KERNODECK_TORCH_PYTHON, python3 beside the check, python3 on PATH) "
     "raises ModuleNotFoundError for torch itself when it imports it; for the stable probe, the "
     "folder KERNODECK_TORCH_DIR names holds no libtorch",
     "libtorch cannot be found by this process: {words}.",
     "Install torch into the Python environment your application runs in (python3 -m pip install "
     "torch, with that environment's python3) and run the check there, or name the torch folder "
     "with KERNODECK_TORCH_DIR."},
    {CauseId::NoPythonForTorch,
     "no Python to find torch with",
     "neither KERNODECK_TORCH_DIR nor KERNODECK_TORCH_PYTHON names a torch or an interpreter "
     "this process can run, and there is no python3 beside the check or on PATH",
     "libtorch cannot be found by this process: the check certifies the torch a Python "
     "environment imports, and {words}.",
     "Run the check in your application's Python environment (its python3 on PATH, or "
     "KERNODECK_TORCH_PYTHON naming it), or name the torch folder with KERNODECK_TORCH_DIR."},
    {CauseId::StableAbiTooOld,
     "torch older than the stable probe serves",
     "the stable probe finds the libtorch it loaded without the stable C functions it calls "
     "(torch_call_dispatcher and the others of torch 2.10), or of a release before 2.10",
     "libtorch was found but is older than the check's stable probe serves: {words} of the "
     "stable C functions that came with torch 2.10.",
     "Run the check with the interpreter this torch is installed for instead of naming its "
     "folder (KERNODECK_TORCH_PYTHON, or python3 on PATH: its own import of torch serves every "
     "release), or use torch 2.10 or newer."},

    // ---- import: the interpreter's own import of torch (the python probe) ----
    {CauseId::TorchShadowed,
     "torch shadowed by a module that is not the installed package",
     "the interpreter's import of torch finds first a torch.py, a source checkout (a setup.py or "
     ".git beside it), a torch folder without __init__.py, or a torch package no installer put "
     "there (no torch *.dist-info beside it) while an installed one is further on sys.path",
     "torch failed to import: the Python {python_version} asked imports {shadow} {place} "
     "instead of the installed torch ({words}).",
     "Rename or move that torch ({place}; a script named torch.py, a checkout of the torch "
     "sources), or take its folder off PYTHONPATH, and run your application from another "
     "folder."},
    {CauseId::TorchForOtherPython,
     "torch built for another Python",
     "the import of torch's _C extension fails (ImportError.name torch._C) while the torch "
     "folder holds _C only with the tags of other CPython versions than the interpreter's",
     "torch failed to import: its C extension was built for Python {torch_pythons}, and the "
     "Python asked is {python_version}.",
     "Install torch with this interpreter's own pip (python3 -m pip install torch, with the "
     "python3 your application runs), instead of copying site-packages or sharing them through "
     "PYTHONPATH between Python versions."},
    {CauseId::TorchFilesIncomplete,
     "torch's own files incomplete or damaged (an interrupted install)",
     "the import fails on a file of the torch package: a SyntaxError or null bytes in one of its "
     ".py files, or a module of torch missing that its wheel's RECORD lists",
     "torch failed to import: its module {torch_module} is missing or cut ({words}), as an "
     "interrupted installation leaves it.",
     "Reinstall torch (python3 -m pip install --force-reinstall --no-deps torch, with that "
     "environment's python3, on a disk with room), then run the check again."},
    {CauseId::PythonDependencyMissing,
     "a Python dependency of torch missing",
     "ModuleNotFoundError for a module that is not torch's (ImportError.name), raised while "
     "torch is imported",
     "torch failed to import: it needs the Python module {module}, which this environment "
     "(Python {python_version}) does not have.",
     "Install it with that interpreter's pip (python3 -m pip install {module}), or reinstall "
     "torch without --no-deps so that pip brings every dependency."},
    {CauseId::PythonDependencyTooOld,
     "a Python dependency of torch too old",
     "ImportError (not ModuleNotFoundError) naming a module that is not torch's: a name torch "
     "imports from it is not there (cannot import name)",
     "torch failed to import: the Python module {module} of this environment is too old for it "
     "({words}).",
     "Upgrade it with that interpreter's pip (python3 -m pip install --upgrade {module}); an "
     "older copy of the distribution's (apt) or one pinned by another package may come first."},
    {CauseId::TorchImportError,
     "torch's import failed, cause not recognised",
     "any other exception raised by the interpreter's import of torch",
     "torch failed to import in the Python {python_version} asked: {words}.",
     "Run python3 -c \"import torch\" with that interpreter to see the whole error, and check "
     "the torch installation and its dependencies."},

    // ---- compute ----
    {CauseId::RocmArchitectureMissing,
     "a ROCm build without this GPU's architecture",
     "HIP runtime error 98 (invalid device function) or 209 (no binary for the GPU) while the "
     "GPU's gfx target is read from the kernel's KFD topology "
     "(/sys/class/kfd/kfd/topology/nodes/*/properties)",
     "The computation failed: this libtorch's ROCm build has no code for this GPU's "
     "architecture, {gfx_target} (error {error}){override}.",
     "Install a ROCm build of libtorch whose architecture list includes {gfx_target} (a PyTorch "
     "ROCm release that supports this GPU, or a build with PYTORCH_ROCM_ARCH={gfx_target}); for "
     "a GPU of a family the build does support, HSA_OVERRIDE_GFX_VERSION may name that family's "
     "target (10.3.0 for gfx1030), at your own risk."},
    {CauseId::NoKernelImage,
     "no kernel image for this GPU's architecture",
     "runtime error 209 (no kernel image for the device)",
     "The computation failed: this libtorch has no kernel image for this GPU's architecture "
     "({architecture}); the build lacks it (error 209).",
     "Install a libtorch built for {architecture} (a release whose architecture list includes "
     "it, or a build with TORCH_CUDA_ARCH_LIST or PYTORCH_ROCM_ARCH naming it), or run on a GPU "
     "the build supports."},
    {CauseId::PtxTooNew,
     "PTX built by a newer CUDA toolchain than the driver's",
     "CUDA runtime error 222 (unsupported PTX version)",
     "The computation failed: this libtorch's PTX was built by a newer CUDA toolchain than the "
     "driver supports (the driver supports CUDA {driver_cuda}; error 222), and it has no kernel "
     "built for this GPU to use instead.",
     "Update the GPU driver to one that supports this libtorch's CUDA release, or install a "
     "libtorch built for the CUDA version the driver supports (a wheel of an older CUDA)."},
    {CauseId::GpuFault,
     "a GPU fault (illegal memory access, launch failure)",
     "runtime error 700 (illegal address) or 719 (launch failure)",
     "The computation failed with a GPU fault (error {error}: an illegal memory access or a "
     "failed launch), which this small computation does not cause on a healthy GPU.",
     "Check dmesg for Xid errors and drain the node; a GPU reset or a reboot may be needed "
     "before it takes work again."},
    {CauseId::UncorrectableEcc,
     "uncorrectable ECC error",
     "runtime error 214 (uncorrectable ECC)",
     "The computation failed: the GPU reported an uncorrectable ECC memory error (error 214).",
     "Drain the node and have the GPU checked (nvidia-smi -q -d ECC, dmesg for Xid 48, 63 and "
     "64); a reset clears the error, repeated ones call for a replacement."},

    // ---- application: a module of the application asked with --import (the python probe) ----
    {CauseId::ExtensionNotInstalled,
     "the module asked is not installed in this environment",
     "its import raises ModuleNotFoundError naming the module asked or a package above it "
     "(ImportError.name)",
     "{ext_module} is not installed in this Python environment (Python {python_version}, "
     "torch {torch_version}): {ext_words}.",
     "Install it with that interpreter's pip (python -m pip install {ext_name}), or run the "
     "check in the Python environment your application runs in."},
    {CauseId::ExtensionOtherCxxAbi,
     "an extension library built with the other C++ ABI than torch's",
     "a library of the extension fails to load on an undefined symbol that no library of the "
     "torch imported exports, and whose std::string is the other _GLIBCXX_USE_CXX11_ABI's than "
     "torch._C._GLIBCXX_USE_CXX11_ABI",
     "{ext_module} ({ext_distribution}) failed to load with torch {torch_version}: its library "
     "{ext_library} was built with _GLIBCXX_USE_CXX11_ABI={ext_abi} and needs {function}, while "
     "this torch's libraries use _GLIBCXX_USE_CXX11_ABI={torch_abi}.",
     "Rebuild {ext_name} with -D_GLIBCXX_USE_CXX11_ABI={torch_abi} (torch.utils.cpp_extension "
     "sets it from the torch it builds against: take out the flag that overrides it), or "
     "install a build of it made for this torch."},
    {CauseId::ExtensionBuiltAgainstOtherTorch,
     "an extension library built against another libtorch",
     "a library of the extension fails to load on an undefined symbol of torch's own (c10::, "
     "at::, torch::, caffe2::, THP) that no library of the torch imported exports",
     "{ext_module} ({ext_distribution}) failed to load with torch {torch_version}: its library "
     "{ext_library} calls {function}, which this torch does not have: it was built against "
     "another libtorch{ext_built_for}.",
     "Rebuild {ext_name} against this torch, with this environment's python and without build "
     "isolation (python -m pip install --no-build-isolation --force-reinstall --no-deps and its "
     "source), or install the torch it was built for."},
    {CauseId::ExtensionForOtherTorch,
     "an extension made for another torch",
     "its import fails while its distribution's Requires-Dist on torch is not satisfied by the "
     "torch imported (PEP 440's rules); listed without --import, a warning",
     "{ext_module} ({ext_distribution}{ext_build}) is made for torch{ext_requirement}, and this "
     "environment's torch is {torch_version}{torch_build}{ext_failure}.",
     "Let pip choose the {ext_name} release made for this torch: python -m pip install "
     "{ext_upgrade}\"torch=={torch_public}\" {ext_name}, with this environment's python (from the "
     "index this torch came from, for a CUDA build)."},
    {CauseId::ExtensionCudaMismatch,
     "an extension built for another CUDA major than torch's",
     "a library of the extension fails to load while its libraries that link libtorch need a "
     "CUDA runtime (libcudart.so.N, DT_NEEDED) of another major than torch.version.cuda's, or "
     "torch has no CUDA",
     "{ext_module} ({ext_distribution}) failed to load with torch {torch_version}: its libraries "
     "need the CUDA {ext_cuda_majors} runtime, and this torch is {torch_cuda_words} "
     "({ext_words}).",
     "Install the build of {ext_name} made for this torch's CUDA (its wheel from the index this "
     "torch came from), or rebuild it against this torch with a CUDA toolkit of its major."},
    {CauseId::ExtensionDependencyMissing,
     "a Python dependency of the extension missing",
     "its import raises ModuleNotFoundError naming a module that is not the one asked nor a "
     "package above it (ImportError.name)",
     "{ext_module} ({ext_distribution}) failed to import with torch {torch_version}: "
     "{ext_needed_by} needs the Python module {ext_missing}, which this environment does not "
     "have.",
     "Install it with that interpreter's pip (python -m pip install {ext_provider}), or "
     "reinstall {ext_name} without --no-deps so that pip brings every dependency."},
    {CauseId::ExtensionImportError,
     "an extension's import failed, cause not recognised",
     "any other exception raised by its import, or by loading one of its libraries",
     "{ext_module} ({ext_distribution}) failed to import with torch {torch_version}: "
     "{ext_exception}: {ext_words}.",
     "Run python -c \"import {ext_module}\" with that interpreter to see the whole error, and "
     "check {ext_name}'s compatibility with this torch and its backend."},

    // ---- application: a weights file asked with --weights (the python probe) ----
    {CauseId::WeightsNotFound,
     "the weights file is not there",
     "opening it fails with ENOENT (or ENOTDIR, ELOOP: a dangling link)",
     "The weights file {weights_file} was not found ({weights_words}).",
     "Check the path the application loads its weights from (a relative path is taken from the "
     "folder the check runs in), and that the file was downloaded or mounted into the image."},
    {CauseId::WeightsNotReadable,
     "a weights file the user running the check may not read",
     "opening it fails with EACCES or EPERM",
     "The weights file {weights_file} is there, but the user running the check may not read it "
     "(its mode is {weights_mode}{weights_owner}).",
     "Make it readable for the user the container runs as (chmod a+r, or chown it to that "
     "user), or run as its owner: files copied into an image keep the owner and mode they had "
     "where the image was built."},
    {CauseId::WeightsGitLfsPointer,
     "a Git LFS pointer in place of the weights",
     "its first bytes are a Git LFS pointer's (version https://git-lfs.github.com/spec/v1)",
     "The weights file {weights_file} is a Git LFS pointer ({weights_size} bytes of text) "
     "standing for an object of {lfs_size} bytes, not the weights: its repository was cloned "
     "without Git LFS.",
     "Fetch the objects in that clone (git lfs install, then git lfs pull), or download the "
     "file itself, and run the check again."},
    {CauseId::WeightsCutShort,
     "a weights file cut short",
     "its size is less than its header promises (safetensors), or a zip archive has no central "
     "directory at its end",
     "The weights file {weights_file} ({weights_format}) is cut short: {weights_cut}.",
     "Download it again, whole (an interrupted download or a full disk leaves it so), and "
     "compare its size with the source's."},
    {CauseId::WeightsNotAWeightsFile,
     "not a weights file",
     "its first bytes are no weights format's: an HTML page, text, an archive of another kind, "
     "a program, nothing",
     "The weights file {weights_file} is not a weights file: it is {weights_format} "
     "({weights_size} bytes).",
     "Download the weights themselves: an error page or a redirect saved under the weights' "
     "name (a link that needs a token, a wrong URL) is the usual cause; look at the file's "
     "first lines."},
    {CauseId::WeightsFormatUnsupported,
     "a weights format the torch present cannot read",
     "another framework's weights (GGUF, NumPy, HDF5, a plain pickle), safetensors dtypes this "
     "torch lacks, or a torch.load without weights_only",
     "The weights file {weights_file} is {weights_format}{weights_unsupported}, which torch "
     "{torch_version} cannot read.",
     "Convert it to safetensors or torch.save's format with the tools of the format it is in, "
     "or use a torch that reads it (a newer release, for newer dtypes)."},
    {CauseId::WeightsOnlyRefused,
     "weights that torch.load's weights_only refuses",
     "torch.load(weights_only=True) raises UnpicklingError; the globals it needs are read "
     "without unpickling (torch.serialization.get_unsafe_globals_in_checkpoint)",
     "torch.load refuses the weights file {weights_file} with weights_only=True, the default "
     "since torch 2.6: it needs the globals {weights_globals}, which a file of weights alone does "
     "not (a whole pickled model, a class of the application's).",
     "Save the model's state_dict instead (torch.save(model.state_dict(), path)) and load it "
     "into the model; for a file you trust, allow those classes with "
     "torch.serialization.add_safe_globals; weights_only=False only for a file you trust."},
    {CauseId::WeightsArchiveDamaged,
     "a damaged weights file",
     "its header does not hold together (safetensors: JSON, dtypes, shapes against offsets, "
     "bytes after the last tensor), or its archive cannot be read",
     "The weights file {weights_file} ({weights_format}) is damaged: {weights_damage}.",
     "Download it again and check it against the source's checksum."},
    {CauseId::WeightsLoadError,
     "the weights could not be loaded, cause not recognised",
     "any other failure of torch.load",
     "torch {torch_version} failed to load the weights file {weights_file} ({weights_format}): "
     "{weights_exception}: {weights_words}.",
     "Load it with torch.load(path, map_location=\"cpu\", weights_only=True) in that "
     "interpreter to see the whole error."},

    // ---- backend: the backend's own libraries (the python probe) ----
    {CauseId::CudnnFromLibraryPath,
     "a cuDNN torch refuses, taken from a folder LD_LIBRARY_PATH names",
     "torch's own rule (torch.backends.cudnn's check of the runtime's version against the one it "
     "was built with, applied without asking for a GPU) refuses it while the library loaded is "
     "in a folder of LD_LIBRARY_PATH",
     "torch {torch_version} refuses the {dnn} it loaded: it was built with {dnn} "
     "{dnn_compiled} and found {dnn_runtime}, from {dnn_origin}.",
     "Take that folder off LD_LIBRARY_PATH, or put it after the folders of torch's own "
     "libraries, so that torch loads the {dnn} it pins ({dnn_pinned}; python -m pip install "
     "\"{dnn_pinned}\" where it is missing)."},
    {CauseId::CudnnFilesReplaced,
     "a cuDNN torch refuses, in the files of the wheel torch pins, written over",
     "torch's own rule refuses it while the library loaded lies where a distribution's RECORD "
     "lists it, with another size than the RECORD gives: the wheel's files were replaced, and "
     "the library itself (cudnnGetVersion) says its release",
     "torch {torch_version} refuses the {dnn} it loaded: it was built with {dnn} "
     "{dnn_compiled} and found {dnn_runtime}, in {dnn_origin}: another {dnn} was written over "
     "that wheel's files.",
     "Reinstall the wheel's own files: python -m pip install --force-reinstall \"{dnn_pinned}\", "
     "with this environment's python; then find what wrote over them (a second wheel that owns "
     "the same paths, as pip show -f lists them, an image step that copies a system's {dnn} into "
     "site-packages, an install with --no-deps) and take it out, or it will write them again."},
    {CauseId::CudnnOtherRelease,
     "a cuDNN torch refuses, from another release's wheel",
     "torch's own rule refuses it while the library loaded is a distribution's files "
     "(its RECORD lists it) of another release or name than torch's Requires-Dist pins",
     "torch {torch_version} refuses the {dnn} it loaded: it was built with {dnn} "
     "{dnn_compiled} and found {dnn_runtime}, from {dnn_origin}.",
     "Reinstall the release torch pins: python -m pip install --force-reinstall \"{dnn_pinned}\", "
     "with this environment's python (another package's pin may have replaced it)."},
    {CauseId::CudnnFromSystem,
     "a cuDNN torch refuses, from the system's library path",
     "torch's own rule refuses it while the library loaded is found through the "
     "system's library path (ld.so.cache: a CUDA toolkit's, a distribution's package)",
     "torch {torch_version} refuses the {dnn} it loaded: it was built with {dnn} "
     "{dnn_compiled} and found {dnn_runtime}, from {dnn_origin}.",
     "Install the release torch pins into this environment, which torch loads before the "
     "system's: python -m pip install --force-reinstall \"{dnn_pinned}\", with this "
     "environment's python."},
    {CauseId::NcclNotPinned,
     "an NCCL other than the release torch pins (a warning)",
     "the NCCL loaded (torch.cuda.nccl.version()) is of another release than torch's "
     "Requires-Dist pins; torch does not refuse it: a warning, never a failure",
     "torch {torch_version} loaded {ccl} {ccl_runtime}, from {ccl_origin}, and pins "
     "{ccl_pinned}.",
     "Reinstall the release torch pins (python -m pip install --force-reinstall "
     "\"{ccl_pinned}\") before running several GPUs or nodes together."},

    // ---- compile: the computation through torch.compile (--compile, the python probe) ----
    {CauseId::CompileNotInTorch,
     "a torch without torch.compile",
     "--compile asked of a torch that has no torch.compile at all (it came with torch 2.0)",
     "torch.compile was asked, and torch {torch_version} has none: torch.compile came with "
     "torch 2.0 ({compile_words}).",
     "Install torch 2.0 or later into this environment (python -m pip install --upgrade torch, "
     "with this environment's python, from the index of the CUDA or ROCm build the application "
     "needs), or run the check without --compile: this torch runs the application eagerly only."},
    {CauseId::CompileNoCxxCompiler,
     "no C++ compiler for torch.compile",
     "torch.compile raises InvalidCxxCompiler, or, on the CPU, the C++ compiler inductor is "
     "configured with is not on PATH",
     "torch.compile failed: inductor found no working C++ compiler ({compile_words}).",
     "Install one in the image (apt-get install g++, or build-essential), or set CXX to a "
     "compiler the image has."},
    {CauseId::CompilePythonHeadersMissing,
     "no Python headers for torch.compile",
     "torch.compile failed on the CPU while the interpreter's Python.h (sysconfig's include "
     "folder) is missing",
     "torch.compile failed: the Python headers of this interpreter (Python {python_version}) are "
     "missing ({compile_words}).",
     "Install them (apt-get install python3-dev, or the interpreter's own -dev package; a "
     "python.org or conda interpreter ships its own)."},
    {CauseId::CompileTritonMismatch,
     "triton missing, or not the release torch pins",
     "torch.compile failed on a GPU while triton is not installed or its version does not "
     "satisfy torch's Requires-Dist on it",
     "torch.compile failed on the GPU: triton {compile_triton}, and torch {torch_version} "
     "pins triton{compile_triton_pinned} ({compile_words}).",
     "Install the triton release torch pins: python -m pip install \"triton{compile_triton_pinned}\", "
     "with this environment's python."},
    {CauseId::CompileNoCCompiler,
     "no C compiler for triton's launcher",
     "torch.compile failed on a GPU while no C compiler (CC, gcc, cc, clang) is on PATH",
     "torch.compile failed on the GPU: triton found no C compiler to build its launcher with "
     "({compile_words}).",
     "Install one in the image (apt-get install gcc), or set CC to a compiler the image has."},
    {CauseId::CompileError,
     "torch.compile failed, cause not recognised",
     "any other error of torch.compile",
     "torch.compile failed: {compile_exception}: {compile_words}.",
     "Run the same computation through torch.compile in that interpreter with TORCH_LOGS=inductor "
     "to see the whole error, and check torch.compile's toolchain."},

    // ---- the worker's start: fork, exec or one of its pipes failed ----
    {CauseId::ProcessLimitAtStart,
     "a process limit stops the worker's start",
     "starting the worker (fork, exec or one of its pipes) failed with EAGAIN",
     "The worker process could not be started: a process limit is reached{process_limits}.",
     kRaiseProcesses},
    {CauseId::OutOfMemoryAtStart,
     "no memory to start the worker",
     "starting the worker failed with ENOMEM",
     "The worker process could not be started for lack of memory{memory_limits}.",
     kRaiseMemory},
    {CauseId::OpenFileLimitAtStart,
     "an open-file limit stops the worker's start",
     "starting the worker failed with EMFILE or ENFILE",
     "The worker process could not be started: too many files are open{open_file_limit}.",
     "Raise the open-file limit (ulimit -n): the check needs a few descriptors beyond those it "
     "inherits."},
    {CauseId::SpawnFailed,
     "the worker not started, cause not recognised",
     "any other error starting the worker: a defect of the check or its installation",
     "The check itself failed.",
     "Report this defect of the check with this report."},

    // ---- the worker's end without a verdict ----
    {CauseId::KilledFromOutside,
     "the worker killed from outside (the out-of-memory killer)",
     "the worker ended by a SIGKILL the check did not send (it sends one only on a timeout or an "
     "interrupt, which are reported as such)",
     "The worker process was killed by SIGKILL from outside the check during the {stage} stage, "
     "most often by the out-of-memory killer of a memory limit{memory_limits}.",
     kRaiseMemory},
    {CauseId::DiedForLackOfMemory,
     "the worker died for lack of memory",
     "the worker's last line of output says bad_alloc, Cannot allocate memory or out of memory",
     "The worker process died for lack of memory during the {stage} stage{memory_limits}.",
     kRaiseMemory},
    {CauseId::ThreadStartFailed,
     "the worker could not start a thread",
     "the worker's last line of output says Resource temporarily unavailable, Thread creation "
     "failed or pthread_create",
     "The worker process died when it could not start a thread during the {stage} "
     "stage{process_limits}.",
     kRaiseProcesses},
    {CauseId::WorkerFailed,
     "the worker died, cause not recognised",
     "any other end: another signal or exit status, or a report the check cannot use",
     "The worker process died or left no usable report during the {stage} stage{how}.",
     "Treat it as a failure and examine the environment."},

    // ---- an allocation refused ----
    {CauseId::AllocationUnderAddressSpaceLimit,
     "an allocation refused under an address-space limit",
     "an allocation failed (OUT_OF_MEMORY) while an address-space limit (ulimit -v) is set",
     "An allocation failed; the address-space limit (ulimit -v) is {address_space}, a likely "
     "cause.",
     "Raise the address-space limit (ulimit -v), then read the stage before running the full "
     "model."},

    // ---- output ----
    {CauseId::StdoutWriteFailed,
     "standard output refused the report",
     "writing the report to standard output failed after a pass (a full disk, a reader that "
     "left); the report did not reach standard output, so the line on stderr carries this message",
     "The report could not be written whole to standard output ({write_error}).",
     "Give the check a standard output that takes the whole report (a disk with room, a reader "
     "that reads to the end), or use --output."},
};

constexpr size_t kCauseCount = std::size(kCauses);

// Both tables name every cause once, in the enumeration's order: a row without its words, or
// words in another row's place, does not compile.
constexpr bool tables_follow_the_enumeration() {
  if (kCauseCount != static_cast<size_t>(CauseId::StdoutWriteFailed) + 1) return false;
  if (std::size(kWords) != kCauseCount) return false;
  for (size_t i = 0; i < kCauseCount; ++i) {
    if (static_cast<size_t>(kCauses[i].id) != i || static_cast<size_t>(kWords[i].id) != i) {
      return false;
    }
  }
  return true;
}
static_assert(tables_follow_the_enumeration(),
              "one row and one set of words per cause, in the enumeration's order");

// Each cause's row with its words, as cause_info gives them.
template <size_t... I>
constexpr std::array<CauseInfo, sizeof...(I)> joined(std::index_sequence<I...>) {
  return {CauseInfo{kCauses[I].id, kCauses[I].type, kCauses[I].key, kCauses[I].stage,
                    kCauses[I].outcome, kCauses[I].where, kCauses[I].how, kWords[I].title,
                    kWords[I].recognised, kWords[I].what, kWords[I].next_action}...};
}
constexpr std::array<CauseInfo, kCauseCount> kCatalogue =
    joined(std::make_index_sequence<kCauseCount>());

// The check's own failures: its name is its error.type.
#define FAILURE(name) Failure::name, #name

struct FailureRow {
  Failure id;
  std::string_view type;
};

constexpr FailureRow kFailures[] = {
    // the parent's
    {FAILURE(Timeout)},              // no verdict within the time limit
    {FAILURE(WatchFailed)},          // the worker could not be watched to its end
    {FAILURE(InconsistentVerdict)},  // a pass the worker's own facts do not support
    {FAILURE(OutputError)},          // the report not saved where --output asked
    {FAILURE(InternalError)},        // the parent's own defect
    // the worker's
    {FAILURE(GpuBackendAbsent)},     // a libtorch of neither CUDA nor HIP
    {FAILURE(DeviceIndexInvalid)},   // the index outside the visible devices
    {FAILURE(CheckMismatch)},        // the product or the gradient wrong
    {FAILURE(NotSynchronized)},      // results read without synchronizing the device
    {FAILURE(ProbeMissing)},         // the probe module missing or unreadable
    {FAILURE(ProbeIncompatible)},    // the probe module of another interface version
    {FAILURE(ProbeNeedsTorch)},      // a probe that loads libtorch, given no torch folder
    {FAILURE(WorkerException)},      // an exception the worker did not expect
};

#undef FAILURE

constexpr bool failures_follow_the_enumeration() {
  size_t i = 0;
  for (const FailureRow& row : kFailures) {
    if (static_cast<size_t>(row.id) != i++) return false;
  }
  return i == static_cast<size_t>(Failure::WorkerException) + 1;
}
static_assert(failures_follow_the_enumeration(), "one row per failure, in the enumeration's order");

bool has(std::string_view text, std::string_view word) {
  return !word.empty() && text.find(word) != std::string_view::npos;
}

bool names_number(const Recogniser& how, int number) {
  const auto& n = how.numbers;
  return number != 0 && std::find(n.begin(), n.end(), number) != n.end();
}

bool says_one_of(const Recogniser& how, std::string_view text) {
  bool one = std::any_of(how.words.begin(), how.words.end(),
                         [&](std::string_view w) { return has(text, w); });
  return one && (how.also_word.empty() || has(text, how.also_word));
}

bool api_fits(Api api, const std::string& runtime) {
  return api == Api::Both || (api == Api::Cuda && runtime == "cuda") ||
         (api == Api::Hip && runtime == "hip");
}

// The sign of a row that has one, asked of what was seen.
bool shows(const Recogniser& how, const Seen& seen) {
  return how.sign != nullptr && how.sign(seen);
}

const Evidence kNoEvidence;
const std::optional<LibraryCopy> kNoCopy;

// The first row met `where` that is generic or that `fits`.
template <typename Fits>
std::optional<CauseId> first_row(unsigned where, Fits fits) {
  for (const CauseRow& row : kCauses) {
    if ((row.where & where) != 0 && (row.how.generic() || fits(row.how))) return row.id;
  }
  return std::nullopt;
}

// The device or compute row for a runtime's answer, or for libtorch's words
// where no runtime could be asked.
std::optional<CauseId> first_runtime_row(const Evidence& e, std::string_view words,
                                         unsigned where) {
  const Seen seen{e, words, kNoCopy};
  if (e.runtime && e.runtime->error != 0) {
    return first_row(where, [&](const Recogniser& how) {
      return names_number(how, e.runtime->error) && api_fits(how.api, e.runtime->api) &&
             (how.sign == nullptr || how.sign(seen));
    });
  }
  return first_row(where, [&](const Recogniser& how) { return says_one_of(how, words); });
}

// The loader row of a sign, where it holds.
std::optional<CauseId> loader_row_of(Sign sign, const Seen& seen) {
  for (const CauseRow& row : kCauses) {
    if ((row.where & kLoader) != 0 && row.how.sign == sign && sign(seen)) return row.id;
  }
  return std::nullopt;
}

}  // namespace

const CauseInfo& cause_info(CauseId id) { return kCatalogue[static_cast<size_t>(id)]; }

std::vector<CauseId> all_causes() {
  std::vector<CauseId> all;
  for (const CauseRow& row : kCauses) all.push_back(row.id);
  return all;
}

std::optional<CauseId> cause_from_type(std::string_view type) {
  for (const CauseRow& row : kCauses) {
    if (row.type == type) return row.id;
  }
  return std::nullopt;
}

std::string failure_type(Failure failure) {
  return std::string(kFailures[static_cast<size_t>(failure)].type);
}

std::vector<std::string_view> failure_types() {
  std::vector<std::string_view> all;
  for (const FailureRow& row : kFailures) all.push_back(row.type);
  return all;
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
  const Seen seen{kNoEvidence, text, copy};
  return first_row(kLoader, [&](const Recogniser& how) {
           return says_one_of(how, text) || shows(how, seen);
         }).value_or(CauseId::LoaderError);
}

std::optional<CauseId> recognise_shadowing(std::string_view loader_words, const LibraryCopy& copy) {
  const std::optional<LibraryCopy> seen_copy = copy;
  return loader_row_of(copy_shadowing, Seen{kNoEvidence, loader_words, seen_copy});
}

std::optional<CauseId> recognise_damaged_library(const LibraryCopy& copy) {
  const std::optional<LibraryCopy> seen_copy = copy;
  return loader_row_of(copy_damaged, Seen{kNoEvidence, "", seen_copy});
}

CauseId recognise_worker_start(int error_number) {
  return first_row(kWorkerStart, [&](const Recogniser& how) {
           return names_number(how, error_number);
         }).value_or(CauseId::SpawnFailed);
}

CauseId recognise_worker_end(const WaitStatus& status, std::string_view last_words) {
  const Seen seen{kNoEvidence, last_words, kNoCopy, &status};
  return first_row(kWorkerEnd, [&](const Recogniser& how) {
           return says_one_of(how, last_words) || shows(how, seen);
         }).value_or(CauseId::WorkerFailed);
}

CauseId recognise_python_import(const PythonImport& facts) {
  const Seen seen{kNoEvidence, "", kNoCopy, nullptr, nullptr, &facts};
  return first_row(kPythonImport, [&](const Recogniser& how) { return shows(how, seen); })
      .value_or(CauseId::TorchImportError);
}

std::optional<CauseId> recognise_backend_library(const BackendLibrary& library) {
  Seen seen{kNoEvidence, "", kNoCopy};
  seen.library = &library;
  for (const CauseRow& row : kCauses) {
    if ((row.where & kBackendLibraries) != 0 && shows(row.how, seen)) return row.id;
  }
  return std::nullopt;
}

CauseId recognise_compile(const CompileFacts& facts) {
  Seen seen{kNoEvidence, "", kNoCopy};
  seen.compile = &facts;
  return first_row(kCompile, [&](const Recogniser& how) { return shows(how, seen); })
      .value_or(CauseId::CompileError);
}

CauseId recognise_weights(const WeightsFile& facts) {
  Seen seen{kNoEvidence, "", kNoCopy};
  seen.weights = &facts;
  return first_row(kWeights, [&](const Recogniser& how) { return shows(how, seen); })
      .value_or(CauseId::WeightsLoadError);
}

CauseId recognise_extension(const ExtensionImport& facts) {
  Seen seen{kNoEvidence, "", kNoCopy};
  seen.extension = &facts;
  return first_row(kApplication, [&](const Recogniser& how) { return shows(how, seen); })
      .value_or(CauseId::ExtensionImportError);
}

std::optional<CauseId> recognise_allocation(const ResourceLimits& limits) {
  const Seen seen{kNoEvidence, "", kNoCopy, nullptr, &limits};
  return first_row(kAllocation, [&](const Recogniser& how) { return shows(how, seen); });
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
