// The resource limits that can starve the check, and the words that name
// them: the process, open-file and memory limits this process runs under,
// which its worker inherits. The cause catalogue (causes.hpp) names them as
// the facts of its causes (a worker that could not be started, a worker
// killed or aborted for lack of memory or threads, an address space too small
// for libtorch or an allocation); the check itself stays the same.
//
//   ResourceLimits limits = read_resource_limits();
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
};

// This process's limits, which its worker inherits. The cgroup ones come
// from /proc/self/cgroup and /sys/fs/cgroup (v1 or v2) where those show them.
ResourceLimits read_resource_limits();

// "the address-space limit (ulimit -v) is 256 MiB and the memory limit of
// this cgroup is 1 GiB", or "" when none is set.
std::string memory_limits_text(const ResourceLimits& limits);
// "the process limit (ulimit -u) is 1 and the pids limit of this cgroup is 4", or "".
std::string process_limits_text(const ResourceLimits& limits);
// "the open-file limit (ulimit -n) is 8", or "".
std::string open_file_limit_text(const ResourceLimits& limits);

// "256 MiB", "1.5 GiB", "512 bytes".
std::string size_text(unsigned long long bytes);

}  // namespace kd
