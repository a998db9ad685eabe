// The resource limits that can starve the check, and the words that name
// them when they did: a worker that could not be started (a process or memory
// limit), a worker killed or aborted for lack of memory or threads; and the
// memory limits that the cause catalogue's address-space cause names. The check itself stays the same; the report's
// message then names the limit, its value here, and what to raise.
//
//   ResourceLimits limits = read_resource_limits();
//   if (auto cause = spawn_failure_cause(EAGAIN, limits)) report_input.cause = *cause;
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "outcome.hpp"
#include "kd/supervisor.hpp"

namespace kd {

// Finite limits only; nullopt is "no limit" (or one that could not be read).
struct ResourceLimits {
  std::optional<unsigned long long> address_space;  // RLIMIT_AS, bytes
  std::optional<unsigned long long> processes;      // RLIMIT_NPROC (processes and threads)
  std::optional<unsigned long long> open_files;     // RLIMIT_NOFILE
  std::optional<unsigned long long> cgroup_memory;  // bytes, the lowest on the way to the root
  std::optional<unsigned long long> cgroup_pids;    // the lowest on the way to the root
};

// This process's limits, which its worker inherits. The cgroup ones come
// from /proc/self/cgroup and /sys/fs/cgroup (v1 or v2) where those show them.
ResourceLimits read_resource_limits();

// fork, exec or a pipe of the worker failed with `err`: EAGAIN (a process
// limit), ENOMEM (memory), EMFILE/ENFILE (open files). Other errors are no
// resource limit (nullopt): a defect of the check or its installation.
std::optional<Cause> spawn_failure_cause(int err, const ResourceLimits& limits);

// "the address-space limit (ulimit -v) is 256 MiB and the memory limit of
// this cgroup is 1 GiB", or "" when none is set: what the address-space cause
// of the cause catalogue names (causes.hpp).
std::string memory_limits_text(const ResourceLimits& limits);

// The worker ended without a verdict: killed by SIGKILL that the check did
// not send (the out-of-memory killer), or its last words say an allocation
// or a thread start failed.
std::optional<Cause> worker_death_cause(const WaitStatus& status, std::string_view last_words,
                                             std::string_view stage, const ResourceLimits& limits);

// An allocation failed (OUT_OF_MEMORY) while an address-space limit is set.
std::optional<Cause> allocation_cause(const ResourceLimits& limits);

// "256 MiB", "1.5 GiB", "512 bytes".
std::string size_text(unsigned long long bytes);

}  // namespace kd
