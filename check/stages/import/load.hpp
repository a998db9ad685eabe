// The import stage: the probe module loaded and libtorch with it (or by it, from the torch folder
// the parent found), or the interpreter's own import as the python probe answered it; a refusal
// of the loader or of the interpreter named by its cause.
#pragma once

#include <string>

#include "facts/python_answers.hpp"
#include "probe/probe_abi.h"
#include "stages/stage.hpp"

namespace kd {

// The probe module, loaded (and with a compiled probe libtorch too); nullptr once it has
// finished the run.
const kd_probe* load_probe(const WorkerRequest& request, Stages& s, double& load_ms);

// A probe that does not link libtorch loads it now: the torch folder the parent found in the
// user's Python environment (torch_location.hpp). False once it has finished the run.
bool load_torch(const kd_probe& probe, const WorkerRequest& request, Stages& s, double& load_ms);

// The import, as the interpreter answered it; its facts and warnings into `findings`.
// `searched` says how the interpreter was found. False once it has finished the run.
bool python_import_stage(const PythonAnswers& answers, const WorkerRequest& request,
                         const std::string& searched, WorkerFindings& findings, Stages& s);

}  // namespace kd
