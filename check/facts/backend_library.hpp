// A library of the backend that torch loaded (cuDNN, MIOpen, NCCL, RCCL), as facts: its
// versions, whether torch accepts it, where it comes from, the wheel torch pins. Read by the
// python probe; judged by backend_libraries.hpp and the catalogue (causes.hpp).
#pragma once

#include <optional>
#include <string>

namespace kd {

struct BackendLibrary {
  std::string name;      // "cudnn", "miopen", "nccl", "rccl"
  std::string compiled;  // the version torch was built with: "9.26.0" ("" where not said)
  std::string runtime;   // the version of the library torch loaded: "9.19.0"
  bool refused = false;  // torch refuses it (a cuDNN or MIOpen only)
  // Where the library loaded comes from: "pinned_wheel" (the release torch pins), "other_wheel"
  // (another distribution's or another release's files), "replaced_wheel" (a file in a wheel's
  // place that is not the one the wheel installed: its size is not its RECORD's), "cuda_toolkit"
  // (a CUDA toolkit's folder
  // LD_LIBRARY_PATH names), "ld_library_path" (another folder it names), "system" (the system's
  // library path); "" where unknown.
  std::string origin;
  std::string distribution, version;  // the distribution whose files hold it: "nvidia-cudnn-cu13"
  std::string pinned;                  // torch's requirement: "nvidia-cudnn-cu13==9.26.0.51"
  std::string words;                   // torch's refusal in its words ("" where accepted)
  bool intact = true;  // a wheel's file: the size its RECORD gives (false: written over)
  // How the runtime version was learned (a cuDNN or MIOpen only): "wheel" (the release of the
  // wheel whose intact file it is), "library" (asked of the library itself); "" where not said.
  std::string source;
};

struct BackendLibraries {
  std::optional<BackendLibrary> dnn;   // cuDNN, or MIOpen on ROCm
  std::optional<BackendLibrary> ccl;   // NCCL, or RCCL on ROCm
};

// NCCL (RCCL) other than the release torch pins: a warning (backend_libraries.cpp).
bool ccl_other_than_pinned(const BackendLibrary& library);

}  // namespace kd
