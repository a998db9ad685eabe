// The causes the check tells apart inside a failing layer, registered once:
// for each its layer and outcome, how it is recognised (the GPU runtime's error
// number, the loader's words, the evidence), its error.type, its message and
// its next action. The worker recognises a cause and names it in error.type;
// the parent words the report's message from the same row. The contract's
// causes section and the README's table are generated from this table
// (kernodeck-causes, checked by the test docs.causes).
//
//   CauseId id = recognise_device(evidence, libtorch_words, kDeviceCount);
//   ErrorInfo error{std::string(cause_info(id).type), words};
//   Cause words = cause_words(id, facts);   // in the parent
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence.hpp"
#include "loader_error.hpp"
#include "outcome.hpp"
#include "sanitize.hpp"

namespace kd {

enum class CauseId {
  // device: no usable GPU
  NoDriver,
  DriverTooOld,
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
  MixedBuilds,
  CorruptLibrary,
  LibraryUnreadable,
  WrongArchitecture,
  TorchNotFound,
  DependencyNotFound,
  LoaderError,
  // compute: the computation failed on the GPU
  NoKernelImage,
  GpuFault,
  UncorrectableEcc,
};

// Where a failure was met, which is what the runtime or the loader was asked.
enum Where : unsigned {
  kDeviceCount = 1,  // whether a GPU is usable (the runtime's initialisation)
  kDeviceStart = 2,  // starting the chosen device
  kCompute = 4,      // the fixed computation
  kLoader = 8,       // loading libtorch
};

// The GPU runtimes whose error numbers a row names.
enum class Api { Cuda, Hip, Both };

// What a row needs of the evidence beside the numbers or words.
enum class Sign {
  None,
  NoDriverVersion,     // the runtime reports no driver version (0)
  DriverVersion,       // it reports one
  NodesNotAccessible,  // a GPU device node exists that this process may not open
  NoGpuNodes,          // no GPU device node of the backend's vendor
  GpusHidden,          // GPU nodes there, and a visibility variable set
  UvmMissing,          // /dev/nvidiaN there, /dev/nvidia-uvm not
  LoaderOutOfMemory,   // the loader could not map a library for lack of memory
  TorchLibraryMissing, // the library the loader did not find is libtorch's, and no copy is seen
  CopyUnreadable,      // a copy is where the loader looks, but this user may not read it
  CopyOtherMachine,    // a copy is there, built for another machine
};

struct CauseInfo {
  CauseId id;
  std::string_view key;    // stable, lower case: "driver_mismatch"
  std::string_view title;  // the cause, for people
  Stage stage;
  Outcome outcome;
  std::string_view type;   // the report's error.type; no two causes share one
  unsigned where;          // Where bits
  Api api;
  std::array<int, 4> numbers;                 // runtime error numbers; 0 ends the list
  std::array<std::string_view, 3> words;      // loader or libtorch words, one of them
  std::string_view also_word;                 // and this one, where given
  Sign sign;
  std::string_view recognised;   // how, for people (the docs' column)
  std::string_view what;         // the message's first sentence; {fact} placeholders
  std::string_view next_action;  // the message's second sentence; the same placeholders
};

const CauseInfo& cause_info(CauseId id);
// Every cause, in the table's order, which is the order they are tried in.
std::vector<CauseId> all_causes();
std::optional<CauseId> cause_from_type(std::string_view type);

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

// The placeholders' values of one run: "vendor" -> "NVIDIA", "library" -> "libc10.so".
using Facts = std::map<std::string, std::string>;

// Where a run's facts come from: the error the worker gave, and what the
// parent knows of the run.
struct FactSources {
  const Evidence* evidence = nullptr;
  std::string_view error_message;  // the loader's or the runtime's words
  std::string_view backend;        // pytorch.backend: "cuda", "rocm"
  std::string_view capability;     // execution.capability: "9.0", "gfx942"
  std::string memory_limits;       // "the address-space limit (ulimit -v) is 256 MiB", or ""
};
// Every placeholder's value for this run. What comes from outside the check
// (library names, versions) is kept only as a sanitized token.
Facts cause_facts(const FactSources& sources, const Sanitizer& sanitizer);

// The row's sentences with `facts` filled in ("unknown" where one is missing).
Cause cause_words(CauseId id, const Facts& facts);
std::string fill(std::string_view text, const Facts& facts);

}  // namespace kd
