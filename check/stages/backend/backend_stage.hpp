// The backend stage: what the loaded libtorch is (its release, CUDA or HIP), without touching a
// driver; a GPU run on a libtorch built for neither ends here.
#pragma once

#include "probe/probe_abi.h"
#include "stages/stage.hpp"

namespace kd {

// backend: false once it has finished the run.
bool backend_stage(const kd_probe& probe, const WorkerRequest& request, Stages& s, kd_error& err);

}  // namespace kd
