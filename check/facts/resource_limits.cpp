#include "facts/resource_limits.hpp"

#include <sys/resource.h>

#include <cstdio>
#include <fstream>
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
  return joined(parts);
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

}  // namespace kd
