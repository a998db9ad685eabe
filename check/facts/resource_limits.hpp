// The resource limits that can starve the check, and the words that name
// them: the process, open-file and memory limits this process runs under,
// which its worker inherits, and what the memory cgroups' out-of-memory
// killer did while the worker ran. The cause catalogue (causes.hpp) names them
// as the facts of its causes (a worker that could not be started, a worker
// killed or aborted for lack of memory or threads, an address space too small
// for libtorch or an allocation); the check itself stays the same.
//
//   auto kills = read_cgroup_oom_kills();  // before the worker starts
//   ResourceLimits limits = read_resource_limits();  // after it ended
//   limits.oom_kills_while_running = oom_kills_since(kills, read_cgroup_oom_kills());
//   memory_limits_text(limits);  // "the address-space limit (ulimit -v) is 256 MiB"
#pragma once

#include <optional>
#include <string>


namespace kd {

// Finite limits only; nullopt is "no limit" (or one that could not be read).
struct ResourceLimits {
  std::optional<unsigned long long> address_space;  // RLIMIT_AS, bytes
  std::optional<unsigned long long> processes;      // RLIMIT_NPROC (processes and threads)
  std::optional<unsigned long long> open_files;     // RLIMIT_NOFILE
  std::optional<unsigned long long> cgroup_memory;  // bytes, the lowest on the way to the root
  std::optional<unsigned long long> cgroup_pids;    // the lowest on the way to the root
  // Not a limit but what the memory one did: how many processes the out-of-memory killer of
  // this process's memory cgroups killed while the worker ran (oom_kills_since); nullopt where
  // their count could not be read before and after. The parent sets it, never
  // read_resource_limits.
  std::optional<unsigned long long> oom_kills_while_running;
};

// This process's limits, which its worker inherits. The cgroup ones come
// from /proc/self/cgroup and /sys/fs/cgroup (v1 or v2) where those show them.
ResourceLimits read_resource_limits();

// How many processes the out-of-memory killer of the memory cgroups of the process whose
// /proc/<pid>/cgroup is `proc_cgroup` has killed: the oom_kill field of v2's memory.events or
// v1's memory.oom_control, summed from its own cgroup up to the hierarchy's root as the memory
// limit is read (`mount`: where the cgroup file systems are). nullopt where none could be read
// (no memory controller, a kernel older than the field).
std::optional<unsigned long long> read_cgroup_oom_kills(
    const std::string& proc_cgroup = "/proc/self/cgroup",
    const std::string& mount = "/sys/fs/cgroup");

// How many kills that count rose by from `before` to `after`; nullopt where either is unknown.
std::optional<unsigned long long> oom_kills_since(std::optional<unsigned long long> before,
                                                  std::optional<unsigned long long> after);

// "the address-space limit (ulimit -v) is 256 MiB and the memory limit of
// this cgroup is 1 GiB", or "" when none is set.
std::string memory_limits_text(const ResourceLimits& limits);
// "the memory limit of this cgroup is 1 GiB", the limit the out-of-memory killer keeps, or "".
std::string cgroup_memory_limit_text(const ResourceLimits& limits);
// "the process limit (ulimit -u) is 1 and the pids limit of this cgroup is 4", or "".
std::string process_limits_text(const ResourceLimits& limits);
// "the open-file limit (ulimit -n) is 8", or "".
std::string open_file_limit_text(const ResourceLimits& limits);

// "256 MiB", "1.5 GiB", "512 bytes".
std::string size_text(unsigned long long bytes);

}  // namespace kd
