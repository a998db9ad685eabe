// The causes the check tells apart inside a failing layer, each registered once
// in its layer's table (causes/<layer>.hpp, joined by catalogue.cpp in the
// enumeration's order) as one entry: its row on one line, its name (the CauseId,
// the error.type and the key), its layer and outcome, where it is met and how
// it is recognised (the GPU runtime's error number, the loader's words, a sign
// of the evidence; the system's error number, the signal or the last words of
// a worker that could not start or ended without a verdict); and below it its
// words for people: its title, how it is recognised, its message and its next
// action. cause_info gives the entry; a cause missing, or out of the
// enumeration's order, does not compile. The worker
// recognises the causes of its layers and names them in error.type; the parent
// recognises those of the worker's start and end, of an allocation refused
// under a limit and of a standard output that refused the report, and words
// every report's message from the same catalogue. The contract's causes
// section and the README's table are generated from it (kernodeck-causes,
// checked by the test docs.causes).
//
//   CauseId id = recognise_device(evidence, libtorch_words, kDeviceCount);
//   ErrorInfo error{std::string(cause_info(id).type), words};
//   ErrorInfo timeout{failure_type(Failure::Timeout), words};  // the check's own
//   Cause words = cause_words(id, facts);   // in the parent
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/evidence.hpp"
#include "facts/extension_import.hpp"
#include "kd/supervisor.hpp"
#include "facts/loader_error.hpp"
#include "facts/outcome.hpp"
#include "facts/python_import.hpp"
#include "facts/resource_limits.hpp"
#include "facts/backend_library.hpp"
#include "facts/compile_facts.hpp"
#include "facts/sanitize.hpp"
#include "facts/precision.hpp"
#include "facts/weights_file.hpp"

namespace kd {

enum class CauseId {
  // device: no usable GPU
  WslGpuNotReached,
  GpusWithoutNvidiaRuntime,
  DriverLinkMissing,
  DriverCapabilityMissing,
  NoDriver,
  DriverTooOld,
  StubDriver,
  DeviceCgroupDenied,
  NoGpuGranted,
  NodeGroupUnmapped,
  DeviceNodesNotAccessible,
  NoDeviceNodes,
  GpusHidden,
  UvmMissing,
  DriverMismatch,
  FabricManagerNotRunning,
  CompatNotSupported,
  DevicesBusy,
  OsCallRefused,
  DriverInitFailed,
  OutOfMemoryAtInit,
  UnknownDriverError,
  NoDevice,
  GpuUnavailable,
  // import: libtorch not found or not loaded
  AddressSpaceLimit,
  CxxRuntimeTooOld,
  CLibraryTooOld,
  CudaLibraryShadowed,
  MixedBuilds,
  CorruptLibrary,
  LibraryUnreadable,
  WrongArchitecture,
  TorchNotFound,
  DependencyNotFound,
  LoaderError,
  // import: the stable probe's libtorch not found or too old
  TorchPackageMissing,
  NoPythonForTorch,
  StableAbiTooOld,
  // import: the interpreter's own import of torch failed (the python probe)
  TorchShadowed,
  TorchForOtherPython,
  TorchFilesIncomplete,
  PythonDependencyMissing,
  PythonDependencyTooOld,
  TorchImportError,
  // compute: the computation failed on the GPU
  RocmArchitectureMissing,
  NoKernelImage,
  PtxTooNew,
  GpuFault,
  UncorrectableEcc,
  // application: a module of the application asked with --import (the python probe)
  ExtensionNotInstalled,
  ExtensionOtherCxxAbi,
  ExtensionBuiltAgainstOtherTorch,
  ExtensionForOtherTorch,
  ExtensionCudaMismatch,
  ExtensionDependencyMissing,
  ExtensionImportError,
  // application: a weights file asked with --weights (the python probe)
  WeightsNotFound,
  WeightsNotReadable,
  WeightsGitLfsPointer,
  WeightsCutShort,
  WeightsNotAWeightsFile,
  WeightsFormatUnsupported,
  WeightsOnlyRefused,
  WeightsArchiveDamaged,
  WeightsLoadError,
  // application: the memory the weights asked need (the python probe)
  WeightsExceedMemory,
  // application: the computation in a precision asked or of the weights (the python probe)
  PrecisionNotInTorch,
  PrecisionKernelMissing,
  PrecisionError,
  // backend: the backend's own libraries (the python probe)
  CudnnFromLibraryPath,
  CudnnFilesReplaced,
  CudnnOtherRelease,
  CudnnFromSystem,
  NcclNotPinned,
  // compile: the computation through torch.compile (--compile, the python probe)
  CompileNotInTorch,
  CompileNoCxxCompiler,
  CompilePythonHeadersMissing,
  CompileTritonMismatch,
  CompileNoCCompiler,
  CompileError,
  // the worker could not be started
  ProcessLimitAtStart,
  OutOfMemoryAtStart,
  OpenFileLimitAtStart,
  SpawnFailed,
  // the worker ended without a verdict
  KilledForMemory,
  KilledFromOutside,
  DiedForLackOfMemory,
  ThreadStartFailed,
  WorkerFailed,
  // an allocation refused
  AllocationUnderAddressSpaceLimit,
  // the report refused by standard output
  StdoutWriteFailed,
};

// Where a failure was met: what the runtime or the loader was asked, or what
// the parent was doing with its worker.
enum Where : unsigned {
  kDeviceCount = 1,  // whether a GPU is usable (the runtime's initialisation)
  kDeviceStart = 2,  // starting the chosen device
  kCompute = 4,      // the fixed computation
  kLoader = 8,       // loading libtorch
  kWorkerStart = 16, // starting the worker: fork, exec, its pipes (the parent)
  kWorkerEnd = 32,   // the worker ended without a verdict, at whatever stage it reached
  kAllocation = 64,  // an allocation failed (OUT_OF_MEMORY), at the device or compute stage
  kStdout = 128,     // writing the report to standard output, after a pass
  kTorchSearch = 256,  // the stable probe's search for the torch of the Python environment
  kStableProbe = 512,  // the stable probe's check of the libtorch it loaded
  kPythonImport = 1024,  // the interpreter's own `import torch` (the python probe)
  kApplication = 2048,   // a module of the application asked with --import (the python probe)
  kWeights = 4096,       // a weights file asked with --weights (the python probe)
  kBackendLibraries = 8192,  // the backend's own libraries torch loaded: cuDNN, NCCL (python probe)
  kCompile = 16384,      // the computation through torch.compile (--compile, the python probe)
  kWeightsMemory = 32768,  // the memory the weights asked need, before they load (python probe)
  kPrecision = 65536,    // the computation in a precision (--dtype, the weights', python probe)
};

// Whose error numbers a row names: a GPU runtime's, or the system's (errno,
// for the worker's start).
enum class Api { Cuda, Hip, Both, System };

// What is known where a cause is looked for: the evidence of the device or
// compute layer, the loader's words or the worker's last words, the copy of
// the library the loader was looking for, how the worker ended and the limits
// it ran under. What a layer does not know is empty.
struct Seen {
  const Evidence& evidence;
  std::string_view words;
  const std::optional<LibraryCopy>& copy;
  const WaitStatus* status = nullptr;
  const ResourceLimits* limits = nullptr;
  const PythonImport* import = nullptr;  // the python probe's import that failed
  const ExtensionImport* extension = nullptr;  // a module asked with --import that failed
  const WeightsFile* weights = nullptr;        // a weights file asked with --weights
  const BackendLibrary* library = nullptr;     // a library of the backend's torch loaded
  const CompileFacts* compile = nullptr;       // a torch.compile that failed
  const WeightsMemory* memory = nullptr;       // the weights asked against the memory left
  const PrecisionRun* precision = nullptr;     // a precision the computation failed in
};

// A sign: what must hold of what was seen for a row, beside its numbers or
// words ("no /dev/nvidia-uvm", "the copy is unreadable").
using Sign = bool (*)(const Seen&);

// How a row is recognised. A row with numbers: one of them (of its api), and
// its sign where it has one; without a runtime to ask, its words. A row
// without numbers: one of its words (and also_word where given), or its sign.
// A row with none of these is its layer's generic row, met last.
struct Recogniser {
  Api api = Api::Both;
  std::array<int, 4> numbers{};            // 0 ends the list
  std::array<std::string_view, 3> words{};  // the loader's, libtorch's or the worker's last
  std::string_view also_word;
  Sign sign = nullptr;

  // The same, and libtorch's words where no runtime could be asked.
  constexpr Recogniser saying(std::array<std::string_view, 3> these) const {
    Recogniser r = *this;
    r.words = these;
    return r;
  }
  // The same words, or else this sign.
  constexpr Recogniser or_seeing(Sign holds) const {
    Recogniser r = *this;
    r.sign = holds;
    return r;
  }
  constexpr bool generic() const { return numbers[0] == 0 && words[0].empty() && sign == nullptr; }
};

// One cause of the catalogue: its row and its words (an entry of its layer's
// table, causes/<layer>.hpp). `type` is the cause's name ("DriverMismatch"), the report's
// error.type, and `key` the same name in lower snake case ("driver_mismatch"),
// both spelled by the row's one CAUSE(DriverMismatch).
struct CauseInfo {
  CauseId id;
  std::string_view type;   // no two causes share one
  SnakeCase key;           // stable, for the docs and dashboards
  Stage stage;             // the report's stage; kWorkerEnd and kAllocation: the first it can be
  Outcome outcome;
  unsigned where;          // Where bits
  Recogniser how;
  std::string_view title;        // the cause, for people
  std::string_view recognised;   // how, for people (the docs' column)
  std::string_view what;         // the message's first sentence; {fact} placeholders
  std::string_view next_action;  // the message's second sentence; the same placeholders
};

// The check's own failures, which are none of the environment's causes; the
// error.type of each is its name ("Timeout"). Every error.type the check
// writes is a cause's, a failure's, or the backend's own (probe_abi.h).
enum class Failure {
  // the parent's
  Timeout,
  WatchFailed,
  InconsistentVerdict,
  OutputError,
  InternalError,
  // the worker's
  GpuBackendAbsent,
  DeviceIndexInvalid,
  CheckMismatch,
  NotSynchronized,
  ProbeMissing,
  ProbeIncompatible,
  ProbeNeedsTorch,
  WorkerException,
};
std::string failure_type(Failure failure);
// Every failure's error.type, in the enumeration's order.
std::vector<std::string_view> failure_types();

const CauseInfo& cause_info(CauseId id);
// Every cause, in the table's order, which is the order they are tried in.
std::vector<CauseId> all_causes();
std::optional<CauseId> cause_from_type(std::string_view type);
// The stages a cause's report can name, for people: "device", "device or
// compute", "the last stage reached".
std::string stage_text(CauseId id);
// "EAGAIN" for a number of the system's that a row names.
std::string errno_name(int number);

// The device layer failed in GPU mode (`where`: kDeviceCount or kDeviceStart).
// By the runtime's error number and the evidence; where the runtime could not
// be asked, by libtorch's words. nullopt when no row fits a device start (its
// failure stays the backend's error); a device count always has a cause.
std::optional<CauseId> recognise_device(const Evidence& evidence, std::string_view library_words,
                                        unsigned where);
// The computation failed on a GPU: by the runtime's error number only.
std::optional<CauseId> recognise_compute(const Evidence& evidence);
// The probe module did not load: by the loader's words and, where it says a
// library is not found, the copy of it seen where the loader looks.
CauseId recognise_loader(std::string_view loader_words, const std::optional<LibraryCopy>& copy);
// After an import that failed on an undefined symbol of a versioned library not of
// libtorch, `copy` is that library as the loader took it (its folder's role):
// the cause, or nullopt where the loader's words and the copy name none.
std::optional<CauseId> recognise_shadowing(std::string_view loader_words, const LibraryCopy& copy);
// After an import that failed or killed the worker, a file it needs found
// damaged (library_damage.hpp): the import row of that sign; nullopt for a
// copy that is not damaged.
std::optional<CauseId> recognise_damaged_library(const LibraryCopy& copy);
// The worker could not be started: by the system's error number (errno);
// SpawnFailed, a defect of the check or its installation, where no row fits.
CauseId recognise_worker_start(int error_number);
// The worker ended without a verdict: by how it ended, its last line of
// output and what the memory cgroups' out-of-memory killer did meanwhile
// (`limits`' oom_kills_while_running); WorkerFailed where no row fits.
CauseId recognise_worker_end(const WaitStatus& status, std::string_view last_words,
                             const ResourceLimits& limits);
// The interpreter's own `import torch` failed, short of the loader's refusal (whose words
// recognise_loader reads): by the exception's facts (python_import.hpp); TorchImportError
// where no row fits.
CauseId recognise_python_import(const PythonImport& facts);
// A module of the application asked with --import failed to import, or a library of its
// distribution that links libtorch failed to load: by the facts of extension_import.hpp
// (the exception's, the distribution's metadata, the undefined symbol against torch's exports,
// the CUDA runtime its libraries need); ExtensionImportError where no row fits.
CauseId recognise_extension(const ExtensionImport& facts);
// A weights file asked with --weights could not be used: by the facts of weights_file.hpp (the
// system's error number, the format its first bytes show, the size its header promises, the
// globals weights_only refuses, the damage found); WeightsLoadError where no row fits.
CauseId recognise_weights(const WeightsFile& facts);
// A cuDNN (MIOpen) torch refuses, by where the one loaded comes from; an NCCL (RCCL) other than
// the release torch pins, NcclNotPinned (a warning). nullopt for a library torch accepts.
std::optional<CauseId> recognise_backend_library(const BackendLibrary& library);
// torch.compile failed: by what its toolchain lacks (compile_facts.hpp); CompileError where no
// row fits.
CauseId recognise_compile(const CompileFacts& facts);
// The weights asked do not fit in the memory this process may use: WeightsExceedMemory.
CauseId recognise_weights_memory(const WeightsMemory& facts);
// The computation failed in a precision (precision.hpp): by what stopped it; PrecisionError where
// no row fits.
CauseId recognise_precision(const PrecisionRun& facts);
// An allocation failed (OUT_OF_MEMORY): by the limits the worker ran under.
std::optional<CauseId> recognise_allocation(const ResourceLimits& limits);

// The placeholders' values of one run: "vendor" -> "NVIDIA", "library" -> "libc10.so".
using Facts = std::map<std::string, std::string>;

// Where a run's facts come from: the error the worker gave, and what the
// parent knows of the run.
struct FactSources {
  const Evidence* evidence = nullptr;
  std::string_view error_message;  // the loader's or the runtime's words
  std::string_view backend;        // pytorch.backend: "cuda", "rocm"
  std::string_view capability;     // execution.capability: "9.0", "gfx942"
  const ResourceLimits* limits = nullptr;  // this process's, which the worker inherits
  std::string_view stage;          // the stage the worker reached: "import"
  std::string_view how;            // how it ended, sanitized: "killed by signal SIGSEGV"
  std::string_view write_error;    // why stdout refused the report: "No space left on device"
  const PythonImport* import = nullptr;  // the python probe's import that failed
  std::string_view python_version;       // the interpreter's: "3.11.2"
  const ExtensionImport* extension = nullptr;  // a module of the application (--import)
  const WeightsFile* weights = nullptr;        // a weights file (--weights)
  const BackendLibrary* library = nullptr;     // a library of the backend (cuDNN, NCCL)
  const CompileFacts* compile = nullptr;       // torch.compile's toolchain (--compile)
  const WeightsMemory* memory = nullptr;       // the weights asked against the memory left
  const PrecisionRun* precision = nullptr;     // a precision the computation failed in
  std::string_view torch_version;              // the torch imported: "2.15.0"
};
// Every placeholder's value for this run. What comes from outside the check
// (library names, versions) is kept only as a sanitized token.
Facts cause_facts(const FactSources& sources, const Sanitizer& sanitizer);

// The row's sentences with `facts` filled in ("unknown" where one is missing).
Cause cause_words(CauseId id, const Facts& facts);
std::string fill(std::string_view text, const Facts& facts);

}  // namespace kd
