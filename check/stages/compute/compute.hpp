// The compute stage: the contract's fixed computation on the chosen device, verified here (the
// product, the loss 196 and the gradient), and the memory the device's allocator then holds.
#pragma once

#include "probe/probe_abi.h"
#include "stages/stage.hpp"

namespace kd {

// The worker process's memory at a stage's end, for a probe that runs in it (the compiled and
// stable probes; memory_by_stage): its resident bytes and, on a GPU, the allocator's counters.
ojson stage_memory(const kd_probe& probe, const WorkerRequest& request);

// This process's resident memory in bytes (/proc/self/statm); null where it cannot be read.
ojson resident_bytes();

// compute: the fixed computation, verified. False once it has finished the run.
bool compute_stage(const kd_probe& probe, const WorkerRequest& request, Stages& s, kd_error& err);

}  // namespace kd
