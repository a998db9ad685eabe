// The device stage: the GPU asked for is there (available, the index among the visible devices)
// and starts; on a failure, what the GPU runtime and the machine show of it.
#pragma once

#include "probe/probe_abi.h"
#include "stages/stage.hpp"

namespace kd {

// device: availability, the index, then starting the device. False once it has finished the
// run.
bool device_stage(const kd_probe& probe, const WorkerRequest& request, Stages& s, kd_error& err);

}  // namespace kd
