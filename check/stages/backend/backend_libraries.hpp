// The backend's own libraries, as the python probe (probe/python/backend.py, backend_libraries)
// read them in the torch the environment imported, without a GPU or its driver: cuDNN (MIOpen on
// ROCm), the version torch was built with and the one it loaded, whether torch accepts it (its own
// check, torch.backends.cudnn.version()), where the one loaded comes from and the wheel torch pins;
// NCCL (RCCL) the same, which torch never refuses. The backend stage reports them (pytorch.cudnn,
// pytorch.nccl, ...) and fails on a cuDNN torch refuses (causes.hpp, recognise_backend_library):
//
//   BackendLibraries found = backend_libraries_of(answer);
//   if (found.dnn && found.dnn->refused) ... BACKEND_LIBRARY_MISMATCH
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "facts/backend_library.hpp"
#include "facts/protocol.hpp"
#include "facts/python_answers.hpp"

namespace kd {

// From the python probe's "backend_libraries" answer; missing or mistyped keys stay empty.
BackendLibraries backend_libraries_of(const nlohmann::json& answer);

// The report's object of one library (pytorch.cudnn, pytorch.nccl, ...): its versions as tokens,
// whether torch accepts it (null for NCCL), its origin, the wheel torch pins.
ojson library_json(const BackendLibrary& library);

// The backend stage's part of the python probe's answers, once the backend is known: the
// libraries' facts (pytorch.cudnn, .nccl, .miopen, .rccl) through `sink`; on a GPU, a cuDNN
// (MIOpen) torch refuses is BACKEND_LIBRARY_MISMATCH, its facts in `findings`; on the CPU it is a
// warning, as an NCCL (RCCL) other than the release torch pins always is. False once it has
// finished the run.
bool backend_libraries_stage(const PythonAnswers& answers, bool gpu, WorkerFindings& findings,
                             FindingsSink& sink);

}  // namespace kd
