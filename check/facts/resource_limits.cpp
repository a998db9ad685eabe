#include "facts/resource_limits.hpp"

#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include "util/text.hpp"

namespace kd {
namespace {

constexpr unsigned long long kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

// cgroup v1 writes "no limit" as a page-rounded LLONG_MAX; v2 as "max".
constexpr unsigned long long kNoLimitAbove = 1ULL << 62;

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

// The value of `key` in a flat keyed file ("oom_kill 3" among v2's memory.events or v1's
// memory.oom_control); nullopt where the file or the key is not there.
std::optional<unsigned long long> read_keyed_count(const std::string& path,
                                                   const std::string& key) {
  std::ifstream in(path);
  std::string name;
  unsigned long long value = 0;
  while (in >> name >> value) {
    if (name == key) return value;
  }
  return std::nullopt;
}

using Reader = std::function<std::optional<unsigned long long>(const std::string& file)>;

// `read` of `file` in this cgroup and each one above it, up to the hierarchy's root, as
// `combine` folds them; nullopt where none could be read.
std::optional<unsigned long long> on_the_way_up(
    const std::string& mount, std::string path, const std::string& file, const Reader& read,
    unsigned long long (*combine)(unsigned long long, unsigned long long)) {
  if (path.empty() || path[0] != '/' || path.find("..") != std::string::npos) return std::nullopt;
  std::optional<unsigned long long> folded;
  for (;;) {
    auto value = read(mount + (path == "/" ? "" : path) + "/" + file);
    if (value) folded = folded ? combine(*folded, *value) : *value;
    if (path == "/") break;
    size_t slash = path.rfind('/');
    path = slash == 0 ? "/" : path.substr(0, slash);
  }
  return folded;
}

unsigned long long lower_of(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
unsigned long long sum_of(unsigned long long a, unsigned long long b) { return a + b; }

// The lowest limit in `file` from this cgroup up to the hierarchy's root.
std::optional<unsigned long long> lowest_on_the_way_up(const std::string& mount,
                                                       const std::string& path,
                                                       const std::string& file) {
  return on_the_way_up(mount, path, file, read_limit_file, lower_of);
}

// The out-of-memory kills in `file` from this cgroup up to the hierarchy's root, summed: each
// level counts the kills of its own processes, or of all below it (the kernel's default), so
// either way a kill in this cgroup raises the sum.
std::optional<unsigned long long> oom_kills_on_the_way_up(const std::string& mount,
                                                          const std::string& path,
                                                          const std::string& file) {
  auto oom_kill = [](const std::string& f) { return read_keyed_count(f, "oom_kill"); };
  return on_the_way_up(mount, path, file, oom_kill, sum_of);
}

// Each controller's cgroup of a process whose /proc/<pid>/cgroup is `proc_cgroup`: `visit`
// is given the controller ("memory", "pids"), the mount of its hierarchy under `mount` (the
// cgroup file systems' folder, /sys/fs/cgroup) and the cgroup's path there, and whether that is
// cgroup v2's unified hierarchy. A hybrid machine's v2 line is skipped: its controllers are v1's.
void each_cgroup(const std::string& proc_cgroup, const std::string& mount,
                 const std::function<void(const std::string& controller,
                                          const std::string& hierarchy,
                                          const std::string& path, bool v2)>& visit) {
  std::ifstream in(proc_cgroup);
  std::ifstream unified(mount + "/cgroup.controllers");
  const bool pure_v2 = static_cast<bool>(unified);
  for (std::string line; std::getline(in, line);) {
    size_t a = line.find(':');
    size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    if (controllers.empty() && pure_v2) {
      for (const char* c : {"memory", "pids"}) visit(c, mount, path, true);
      continue;
    }
    std::istringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');) visit(c, mount + "/" + c, path, false);
  }
}

void read_cgroup_limits(ResourceLimits& limits) {
  auto lower = [](std::optional<unsigned long long>& slot, std::optional<unsigned long long> v) {
    if (v && (!slot || *v < *slot)) slot = v;
  };
  each_cgroup("/proc/self/cgroup", "/sys/fs/cgroup",
              [&](const std::string& controller, const std::string& hierarchy,
                  const std::string& path, bool v2) {
                if (controller == "memory") {
                  lower(limits.cgroup_memory,
                        lowest_on_the_way_up(hierarchy, path,
                                             v2 ? "memory.max" : "memory.limit_in_bytes"));
                } else if (controller == "pids") {
                  lower(limits.cgroup_pids, lowest_on_the_way_up(hierarchy, path, "pids.max"));
                }
              });
}

}  // namespace

std::string memory_limits_text(const ResourceLimits& l) {
  std::vector<std::string> parts;
  if (l.address_space) {
    parts.push_back("the address-space limit (ulimit -v) is " + size_text(*l.address_space));
  }
  if (l.cgroup_memory) parts.push_back(cgroup_memory_limit_text(l));
  return joined(parts);
}

std::string cgroup_memory_limit_text(const ResourceLimits& l) {
  return l.cgroup_memory ? "the memory limit of this cgroup is " + size_text(*l.cgroup_memory)
                         : "";
}

std::string process_limits_text(const ResourceLimits& l) {
  std::vector<std::string> parts;
  if (l.processes) parts.push_back("the process limit (ulimit -u) is " + std::to_string(*l.processes));
  if (l.cgroup_pids) parts.push_back("the pids limit of this cgroup is " + std::to_string(*l.cgroup_pids));
  return joined(parts);
}

std::string open_file_limit_text(const ResourceLimits& l) {
  return l.open_files ? "the open-file limit (ulimit -n) is " + std::to_string(*l.open_files) : "";
}

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

std::optional<unsigned long long> read_cgroup_oom_kills(const std::string& proc_cgroup,
                                                        const std::string& mount) {
  std::optional<unsigned long long> kills;
  each_cgroup(proc_cgroup, mount,
              [&kills](const std::string& controller, const std::string& hierarchy,
                       const std::string& path, bool v2) {
                if (controller != "memory") return;
                auto counted = oom_kills_on_the_way_up(
                    hierarchy, path, v2 ? "memory.events" : "memory.oom_control");
                if (counted) kills = kills.value_or(0) + *counted;
              });
  return kills;
}

std::optional<unsigned long long> oom_kills_since(std::optional<unsigned long long> before,
                                                  std::optional<unsigned long long> after) {
  if (!before || !after) return std::nullopt;
  return *after > *before ? *after - *before : 0;
}

}  // namespace kd
