// Gathers evidence.hpp's facts from a Linux machine: /dev, /proc/driver, the
// objects loaded in this process, the environment's visibility variables, and
// the folders the dynamic loader searches.
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <tuple>

#include "evidence.hpp"
#include "sanitize.hpp"
#include "util/elf.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace kd {
namespace {

// Exists, and may this process read and write it (its effective ids, as open would)?
NodeState node_state(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return NodeState::Absent;
  return faccessat(AT_FDCWD, path.c_str(), R_OK | W_OK, AT_EACCESS) == 0 ? NodeState::Accessible
                                                                         : NodeState::NotAccessible;
}

// The nodes of `dir` whose names match `pattern`: how many, and how many this process may open.
std::pair<int, int> count_nodes(const std::string& dir, const std::regex& pattern) {
  int count = 0, accessible = 0;
  for (const auto& name : folder_entries(dir)) {
    if (!std::regex_match(name, pattern)) continue;
    ++count;
    if (node_state(dir + "/" + name) == NodeState::Accessible) ++accessible;
  }
  return {count, accessible};
}

// The file name behind the loaded libcuda.so.1 (libcuda.so.550.54.15), if loaded.
std::optional<std::string> loaded_driver_library() {
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        const char* name = info->dlpi_name;
        if (name == nullptr) return 0;
        const char* slash = std::strrchr(name, '/');
        if (std::strncmp(slash != nullptr ? slash + 1 : name, "libcuda.so", 10) != 0) return 0;
        *static_cast<std::string*>(data) = name;
        return 1;
      },
      &path);
  if (path.empty()) return std::nullopt;
  char real[PATH_MAX];
  std::string file = realpath(path.c_str(), real) != nullptr ? real : path;
  return file.substr(file.rfind('/') + 1);
}

VisibleDevices read_visible_devices() {
  VisibleDevices out;
  for (const auto& name : visibility_variables()) {
    const char* value = std::getenv(name.c_str());
    out.emplace_back(name, value != nullptr ? std::optional<std::string>(visibility_shape(value))
                                            : std::nullopt);
  }
  return out;
}

// The folders /etc/ld.so.conf lists, following its include lines (globs).
void ld_so_conf_folders(const std::string& file, int depth, std::vector<std::string>& out) {
  auto text = read_file(file, 1 << 16);
  if (!text || depth > 3) return;
  for (std::string_view line : split_lines(*text)) {
    line = trim(line.substr(0, line.find('#')));
    if (line.rfind("include", 0) == 0) {
      std::string pattern(trim(line.substr(7)));
      if (!pattern.empty() && pattern[0] != '/') pattern = dirname_of(file) + "/" + pattern;
      glob_t g{};
      if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; ++i) ld_so_conf_folders(g.gl_pathv[i], depth + 1, out);
      }
      globfree(&g);
    } else if (!line.empty() && line[0] == '/') {
      out.emplace_back(line);
    }
  }
}

void add_path_list(const char* list, std::vector<std::string>& out) {
  if (list == nullptr) return;
  std::string_view rest(list);
  while (!rest.empty()) {
    size_t sep = rest.find_first_of(":;");
    std::string_view item = rest.substr(0, sep);
    if (!item.empty()) out.emplace_back(item);
    if (sep == std::string_view::npos) break;
    rest = rest.substr(sep + 1);
  }
}

}  // namespace

DeviceNodes read_device_nodes(const std::string& dev) {
  DeviceNodes n;
  n.nvidiactl = node_state(dev + "/nvidiactl");
  n.nvidia_uvm = node_state(dev + "/nvidia-uvm");
  std::tie(n.nvidia_gpus, n.nvidia_gpus_accessible) = count_nodes(dev, std::regex("nvidia[0-9]+"));
  n.kfd = node_state(dev + "/kfd");
  std::tie(n.render_nodes, n.render_nodes_accessible) =
      count_nodes(dev + "/dri", std::regex("renderD[0-9]+"));
  return n;
}

Evidence device_evidence() {
  Evidence e;
  e.device_nodes = read_device_nodes();
  if (auto text = read_file("/proc/driver/nvidia/version", 4096)) {
    e.kernel_module = kernel_module_version(*text);
  }
  e.driver_library = loaded_driver_library();
  if (e.driver_library && Sanitizer::token(*e.driver_library).empty()) e.driver_library.reset();
  e.visible_devices = read_visible_devices();
  return e;
}

std::vector<std::string> loader_folders(const std::string& probe_path) {
  std::vector<std::string> folders;
  add_path_list(std::getenv("LD_LIBRARY_PATH"), folders);
  if (auto dynamic = read_elf_dynamic(probe_path)) {
    const std::string origin = dirname_of(probe_path);
    for (std::string dir : dynamic->runpath) {
      replace_all(dir, "${ORIGIN}", origin);
      replace_all(dir, "$ORIGIN", origin);
      folders.push_back(dir);
    }
  }
  ld_so_conf_folders("/etc/ld.so.conf", 0, folders);
  for (const char* dir : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) folders.emplace_back(dir);
  return folders;
}

LibraryCopy find_library_copy(const std::string& name, const std::vector<std::string>& folders) {
  LibraryCopy copy{name, CopyState::Absent, std::nullopt};
  for (const auto& folder : folders) {
    const std::string path = folder + "/" + name;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) {
      if (errno != EACCES) continue;
      // A folder on the way this process may not search hides the file as well.
      copy.found = CopyState::NotReadable;
      return copy;
    }
    if (faccessat(AT_FDCWD, path.c_str(), R_OK, AT_EACCESS) != 0) {
      copy.found = CopyState::NotReadable;
      return copy;
    }
    auto header = read_elf_header(path);
    if (header && header->machine != host_elf_machine()) {
      copy.found = CopyState::OtherMachine;
      copy.machine = elf_machine_name(header->machine);
      return copy;
    }
    copy.found = CopyState::Readable;
    return copy;
  }
  return copy;
}

}  // namespace kd
