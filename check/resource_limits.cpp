#include "resource_limits.hpp"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>


namespace kd {
namespace {

constexpr unsigned long long kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

// cgroup v1 writes "no limit" as a page-rounded LLONG_MAX; v2 as "max".
constexpr unsigned long long kNoLimitAbove = 1ULL << 62;

constexpr std::string_view kMemoryAction =
    "Raise the memory or address-space limit (ulimit -v, or the container's memory limit): "
    "loading libtorch takes hundreds of MiB of address space, a CUDA build several GiB.";
constexpr std::string_view kProcessAction =
    "Raise the process limit (ulimit -u, or the container's pids limit): the check runs two "
    "processes at once, itself and its worker, and the limit counts every process and thread "
    "of the user.";

std::optional<unsigned long long> rlimit_of(int resource) {
  rlimit rl{};
  if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<unsigned long long>(rl.rlim_cur);
}

std::optional<unsigned long long> read_limit_file(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return std::nullopt;
  unsigned long long value = 0;
  std::istringstream number(word);
  if (!(number >> value) || value >= kNoLimitAbove) return std::nullopt;
  return value;
}

// The lowest limit in `file` from this cgroup up to the hierarchy's root.
std::optional<unsigned long long> lowest_on_the_way_up(const std::string& mount,
                                                       std::string path,
                                                       const std::string& file) {
  if (path.empty() || path[0] != '/' || path.find("..") != std::string::npos) return std::nullopt;
  std::optional<unsigned long long> lowest;
  for (;;) {
    auto value = read_limit_file(mount + (path == "/" ? "" : path) + "/" + file);
    if (value && (!lowest || *value < *lowest)) lowest = value;
    if (path == "/") break;
    size_t slash = path.rfind('/');
    path = slash == 0 ? "/" : path.substr(0, slash);
  }
  return lowest;
}

void read_cgroup_limits(ResourceLimits& limits) {
  std::ifstream in("/proc/self/cgroup");
  std::ifstream unified("/sys/fs/cgroup/cgroup.controllers");
  const bool pure_v2 = static_cast<bool>(unified);
  for (std::string line; std::getline(in, line);) {
    size_t a = line.find(':');
    size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    auto lower = [](std::optional<unsigned long long>& slot, std::optional<unsigned long long> v) {
      if (v && (!slot || *v < *slot)) slot = v;
    };
    if (controllers.empty() && pure_v2) {
      lower(limits.cgroup_memory, lowest_on_the_way_up("/sys/fs/cgroup", path, "memory.max"));
      lower(limits.cgroup_pids, lowest_on_the_way_up("/sys/fs/cgroup", path, "pids.max"));
      continue;
    }
    std::istringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');) {
      if (c == "memory") {
        lower(limits.cgroup_memory, lowest_on_the_way_up("/sys/fs/cgroup/memory", path,
                                                         "memory.limit_in_bytes"));
      } else if (c == "pids") {
        lower(limits.cgroup_pids, lowest_on_the_way_up("/sys/fs/cgroup/pids", path, "pids.max"));
      }
    }
  }
}

}  // namespace

std::string memory_limits_text(const ResourceLimits& l) {
  std::vector<std::string> parts;
  if (l.address_space) {
    parts.push_back("the address-space limit (ulimit -v) is " + size_text(*l.address_space));
  }
  if (l.cgroup_memory) {
    parts.push_back("the memory limit of this cgroup is " + size_text(*l.cgroup_memory));
  }
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? " and " : "") + parts[i];
  return text;
}

namespace {

std::string process_limits_text(const ResourceLimits& l) {
  std::vector<std::string> parts;
  if (l.processes) parts.push_back("the process limit (ulimit -u) is " + std::to_string(*l.processes));
  if (l.cgroup_pids) parts.push_back("the pids limit of this cgroup is " + std::to_string(*l.cgroup_pids));
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? " and " : "") + parts[i];
  return text;
}

// "<sentence>; <limits>." or "<sentence>." without any.
std::string with_limits(const std::string& sentence, const std::string& limits) {
  return limits.empty() ? sentence + "." : sentence + "; " + limits + ".";
}

bool contains(std::string_view text, std::string_view word) {
  return text.find(word) != std::string_view::npos;
}

}  // namespace

std::string size_text(unsigned long long bytes) {
  auto in_unit = [bytes](unsigned long long unit, const char* name) {
    char buf[48];
    if (bytes % unit == 0) {
      std::snprintf(buf, sizeof buf, "%llu %s", bytes / unit, name);
    } else {
      std::snprintf(buf, sizeof buf, "%.1f %s", static_cast<double>(bytes) / static_cast<double>(unit),
                    name);
    }
    return std::string(buf);
  };
  if (bytes >= kGiB) return in_unit(kGiB, "GiB");
  if (bytes >= kMiB) return in_unit(kMiB, "MiB");
  if (bytes >= kKiB) return in_unit(kKiB, "KiB");
  return std::to_string(bytes) + " bytes";
}

ResourceLimits read_resource_limits() {
  ResourceLimits limits;
  limits.address_space = rlimit_of(RLIMIT_AS);
  limits.processes = rlimit_of(RLIMIT_NPROC);
  limits.open_files = rlimit_of(RLIMIT_NOFILE);
  read_cgroup_limits(limits);
  return limits;
}

std::optional<Cause> spawn_failure_cause(int err, const ResourceLimits& limits) {
  switch (err) {
    case EAGAIN:
      return Cause{with_limits("The worker process could not be started: a process limit is "
                                    "reached",
                                    process_limits_text(limits)),
                        std::string(kProcessAction)};
    case ENOMEM:
      return Cause{with_limits("The worker process could not be started for lack of memory",
                                    memory_limits_text(limits)),
                        std::string(kMemoryAction)};
    case EMFILE:
    case ENFILE:
      return Cause{
          with_limits("The worker process could not be started: too many files are open",
                      limits.open_files ? "the open-file limit (ulimit -n) is " +
                                              std::to_string(*limits.open_files)
                                        : ""),
          "Raise the open-file limit (ulimit -n): the check needs a few descriptors beyond those "
          "it inherits."};
    default:
      return std::nullopt;
  }
}

std::optional<Cause> worker_death_cause(const WaitStatus& status, std::string_view last_words,
                                             std::string_view stage,
                                             const ResourceLimits& limits) {
  const std::string during = " during the " + std::string(stage) + " stage";
  if (status.signaled && status.signal == SIGKILL) {
    // The check sends SIGKILL only on a timeout or an interrupt, which end
    // otherwise: this one came from outside.
    return Cause{with_limits("The worker process was killed by SIGKILL from outside the "
                                  "check" + during + ", most often by the out-of-memory killer "
                                  "of a memory limit",
                                  memory_limits_text(limits)),
                      std::string(kMemoryAction)};
  }
  if (contains(last_words, "bad_alloc") || contains(last_words, "Cannot allocate memory") ||
      contains(last_words, "out of memory")) {
    return Cause{with_limits("The worker process died for lack of memory" + during,
                                  memory_limits_text(limits)),
                      std::string(kMemoryAction)};
  }
  if (contains(last_words, "Resource temporarily unavailable") ||
      contains(last_words, "Thread creation failed") || contains(last_words, "pthread_create")) {
    return Cause{with_limits("The worker process died when it could not start a thread" +
                                      during,
                                  process_limits_text(limits)),
                      std::string(kProcessAction)};
  }
  return std::nullopt;
}

std::optional<Cause> allocation_cause(const ResourceLimits& limits) {
  if (!limits.address_space) return std::nullopt;
  return Cause{"An allocation failed; the address-space limit (ulimit -v) is " +
                        size_text(*limits.address_space) + ", a likely cause.",
                    "Raise the address-space limit (ulimit -v), then read the stage before "
                    "running the full model."};
}

}  // namespace kd
