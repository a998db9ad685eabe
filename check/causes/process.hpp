// The worker process's causes: its start refused by a limit, its end without a verdict (the
// out-of-memory killer's among them), an allocation refused.
#pragma once

#include <errno.h>
#include <signal.h>

#include "causes/catalogue_entry.hpp"

namespace kd::catalogue {

inline constexpr std::string_view kRaiseMemory =
    "Raise the memory or address-space limit (ulimit -v, or the container's memory limit): "
    "loading libtorch takes hundreds of MiB of address space, a CUDA build several GiB.";

inline constexpr std::string_view kRaiseProcesses =
    "Raise the process limit (ulimit -u, or the container's pids limit): the check runs two "
    "processes at once, itself and its worker, and the limit counts every process and thread "
    "of the user.";

inline constexpr W kNoMemory{"bad_alloc", "Cannot allocate memory", "out of memory"};

inline constexpr W kNoThread{"Resource temporarily unavailable", "Thread creation failed",
                      "pthread_create"};

// ---- the signs: what must hold of what was seen ----

// The worker ended by SIGKILL, which the check sends only when it stops it.
inline bool killed_from_outside(const Seen& s) {
  return s.status != nullptr && s.status->signaled && s.status->signal == SIGKILL;
}

// That SIGKILL came while the out-of-memory killer of this process's memory cgroups killed: their
// count of kills (oom_kill) rose between the worker's start and its end.
inline bool killed_for_memory(const Seen& s) {
  return killed_from_outside(s) && s.limits != nullptr &&
         s.limits->oom_kills_while_running.value_or(0) > 0;
}

// An address-space limit (ulimit -v) is set.
inline bool address_space_limited(const Seen& s) {
  return s.limits != nullptr && s.limits->address_space.has_value();
}

// The causes, in the order they are tried: the first whose row fits is the cause.
// clang-format off
inline constexpr CauseInfo kProcessCauses[] = {
    // ---- the worker's start: fork, exec or one of its pipes failed ----
    {CAUSE(ProcessLimitAtStart),              Import,  WorkerFailed,      kWorkerStart,  system_errors({EAGAIN}),
     "a process limit stops the worker's start",
     "starting the worker (fork, exec or one of its pipes) failed with EAGAIN",
     "The worker process could not be started: a process limit is reached{process_limits}.",
     kRaiseProcesses},
    {CAUSE(OutOfMemoryAtStart),               Import,  WorkerFailed,      kWorkerStart,  system_errors({ENOMEM}),
     "no memory to start the worker",
     "starting the worker failed with ENOMEM",
     "The worker process could not be started for lack of memory{memory_limits}.",
     kRaiseMemory},
    {CAUSE(OpenFileLimitAtStart),             Import,  WorkerFailed,      kWorkerStart,  system_errors({EMFILE, ENFILE}),
     "an open-file limit stops the worker's start",
     "starting the worker failed with EMFILE or ENFILE",
     "The worker process could not be started: too many files are open{open_file_limit}.",
     "Raise the open-file limit (ulimit -n): the check needs a few descriptors beyond those it "
     "inherits."},
    {CAUSE(SpawnFailed),                      Import,  InternalError,     kWorkerStart,  kOtherwise,
     "the worker not started, cause not recognised",
     "any other error starting the worker: a defect of the check or its installation",
     "The check itself failed.",
     "Report this defect of the check with this report."},
    // ---- the worker's end without a verdict ----
    {CAUSE(KilledForMemory),                  Import,  OutOfMemory,       kWorkerEnd,    seeing(killed_for_memory),
     "the worker killed by the out-of-memory killer",
     "the worker ended by a SIGKILL the check did not send while the out-of-memory kill count "
     "(oom_kill) of its memory cgroups rose",
     "The worker process was killed by the out-of-memory killer during the {stage} stage: its "
     "memory cgroup counted an out-of-memory kill while it ran{cgroup_memory_limit}.",
     "Raise the container's memory limit (resources.limits.memory in Kubernetes, docker run "
     "--memory): loading libtorch takes hundreds of MiB, a CUDA build several GiB; or make the "
     "application's weights take less, loaded with mmap=True (torch.load) or in a smaller dtype "
     "(bfloat16, float16)."},
    {CAUSE(KilledFromOutside),                Import,  WorkerFailed,      kWorkerEnd,    seeing(killed_from_outside),
     "the worker killed from outside (the out-of-memory killer)",
     "the worker ended by a SIGKILL the check did not send (it sends one only on a timeout or an "
     "interrupt, which are reported as such)",
     "The worker process was killed by SIGKILL from outside the check during the {stage} stage, "
     "most often by the out-of-memory killer of a memory limit{memory_limits}.",
     kRaiseMemory},
    {CAUSE(DiedForLackOfMemory),              Import,  WorkerFailed,      kWorkerEnd,    says(kNoMemory),
     "the worker died for lack of memory",
     "the worker's last line of output says bad_alloc, Cannot allocate memory or out of memory",
     "The worker process died for lack of memory during the {stage} stage{memory_limits}.",
     kRaiseMemory},
    {CAUSE(ThreadStartFailed),                Import,  WorkerFailed,      kWorkerEnd,    says(kNoThread),
     "the worker could not start a thread",
     "the worker's last line of output says Resource temporarily unavailable, Thread creation "
     "failed or pthread_create",
     "The worker process died when it could not start a thread during the {stage} "
     "stage{process_limits}.",
     kRaiseProcesses},
    {CAUSE(WorkerFailed),                     Import,  WorkerFailed,      kWorkerEnd,    kOtherwise,
     "the worker died, cause not recognised",
     "any other end: another signal or exit status, or a report the check cannot use",
     "The worker process died or left no usable report during the {stage} stage{how}.",
     "Treat it as a failure and examine the environment."},
    // ---- an allocation refused ----
    {CAUSE(AllocationUnderAddressSpaceLimit), Device,  OutOfMemory,       kAllocation,   seeing(address_space_limited),
     "an allocation refused under an address-space limit",
     "an allocation failed (OUT_OF_MEMORY) while an address-space limit (ulimit -v) is set",
     "An allocation failed; the address-space limit (ulimit -v) is {address_space}, a likely "
     "cause.",
     "Raise the address-space limit (ulimit -v), then read the stage before running the full "
     "model."},
};
// clang-format on

}  // namespace kd::catalogue
