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
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <tuple>

#include "facts/evidence.hpp"
#include "facts/sanitize.hpp"
#include "util/elf.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace kd {
namespace {

// A GPU node, as this process may use it (its effective ids, as open would):
// asked of the kernel with access(2), which also asks the device cgroup, never
// opened (an open would start a GPU).
struct Node {
  NodeState state = NodeState::Absent;
  bool refused = false;  // EPERM: the device cgroup, not the mode, refuses it
  bool unmapped_group = false;  // refused by its mode, its group the overflow gid, not mapped here
  unsigned major = 0, minor = 0;
};

// The overflow gid and this process's gid map: what an unmapped group shows as.
struct GroupView {
  std::optional<unsigned long> overflow_gid;
  std::string gid_map;
};

GroupView group_view() {
  GroupView g;
  if (auto text = read_file("/proc/sys/kernel/overflowgid", 64)) {
    std::string t(trim(*text));
    if (!t.empty() && t.find_first_not_of("0123456789") == std::string::npos && t.size() < 12) {
      g.overflow_gid = std::stoul(t);
    }
  }
  g.gid_map = read_file("/proc/self/gid_map", 4096).value_or("");
  return g;
}

Node node_at(const std::string& path, const GroupView& groups) {
  Node n;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return n;
  n.major = major(st.st_rdev);
  n.minor = minor(st.st_rdev);
  if (faccessat(AT_FDCWD, path.c_str(), R_OK | W_OK, AT_EACCESS) == 0) {
    n.state = NodeState::Accessible;
    return n;
  }
  const int error = errno;
  n.state = NodeState::NotAccessible;
  n.refused = error == EPERM && S_ISCHR(st.st_mode);
  n.unmapped_group = error == EACCES && groups.overflow_gid && st.st_gid == *groups.overflow_gid &&
                     !groups.gid_map.empty() && !gid_map_covers(groups.gid_map, st.st_gid);
  return n;
}

// Every GPU node under `dev`, by its evidence name: nvidiactl, nvidia_uvm, nvidia_gpus (each
// /dev/nvidiaN), kfd, render_nodes (each /dev/dri/renderD*), dxg.
std::vector<std::pair<std::string, Node>> gpu_nodes(const std::string& dev, const GroupView& groups) {
  std::vector<std::pair<std::string, Node>> nodes;
  auto one = [&](const char* name, const std::string& path) {
    nodes.emplace_back(name, node_at(path, groups));
  };
  auto each = [&](const char* name, const std::string& dir, const std::regex& pattern) {
    for (const auto& entry : folder_entries(dir)) {
      if (std::regex_match(entry, pattern)) one(name, dir + "/" + entry);
    }
  };
  one("nvidiactl", dev + "/nvidiactl");
  one("nvidia_uvm", dev + "/nvidia-uvm");
  each("nvidia_gpus", dev, std::regex("nvidia[0-9]+"));
  one("kfd", dev + "/kfd");
  each("render_nodes", dev + "/dri", std::regex("renderD[0-9]+"));
  one("dxg", dev + "/dxg");
  return nodes;
}

DeviceNodes nodes_summary(const std::vector<std::pair<std::string, Node>>& nodes) {
  DeviceNodes n;
  for (const auto& [name, node] : nodes) {
    const bool open = node.state == NodeState::Accessible;
    if (name == "nvidiactl") n.nvidiactl = node.state;
    if (name == "nvidia_uvm") n.nvidia_uvm = node.state;
    if (name == "kfd") n.kfd = node.state;
    if (name == "dxg") n.dxg = node.state;
    if (name == "nvidia_gpus") {
      ++n.nvidia_gpus;
      n.nvidia_gpus_accessible += open ? 1 : 0;
    }
    if (name == "render_nodes") {
      ++n.render_nodes;
      n.render_nodes_accessible += open ? 1 : 0;
    }
  }
  return n;
}

// What refuses the nodes (EPERM), and what this process's v1 devices.list says of them.
DeviceCgroup device_cgroup_of(const std::vector<std::pair<std::string, Node>>& nodes) {
  DeviceCgroup c;
  const std::string folder = devices_cgroup_folder(read_file("/proc/self/cgroup", 1 << 16).value_or(""),
                                                   read_file("/proc/self/mountinfo", 1 << 20).value_or(""));
  auto list = folder.empty() ? std::nullopt : read_file(folder + "/devices.list", 1 << 16);
  if (list) {
    c.hierarchy = "v1";
  } else if (auto controllers = read_file("/sys/fs/cgroup/cgroup.controllers", 4096)) {
    c.hierarchy = "v2";  // a BPF device program, which cannot be read back
  }
  bool denies = false;
  for (const auto& [name, node] : nodes) {
    if (node.state == NodeState::Absent || name == "dxg") continue;
    if (list && !devices_list_allows(*list, node.major, node.minor)) denies = true;
    if (!node.refused) continue;
    if (name == "nvidiactl") c.nvidiactl = true;
    if (name == "nvidia_uvm") c.nvidia_uvm = true;
    if (name == "kfd") c.kfd = true;
    if (name == "nvidia_gpus") ++c.nvidia_gpus;
    if (name == "render_nodes") ++c.render_nodes;
  }
  const bool any_node = std::any_of(nodes.begin(), nodes.end(), [](const auto& n) {
    return n.second.state != NodeState::Absent && n.first != "dxg";
  });
  if (list && any_node) c.devices_list = denies ? "denies" : "allows";
  return c;
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
  return nodes_summary(gpu_nodes(dev, GroupView{}));
}

Evidence device_evidence() {
  Evidence e;
  const GroupView groups = group_view();
  const auto nodes = gpu_nodes("/dev", groups);
  e.device_nodes = nodes_summary(nodes);
  e.device_cgroup = device_cgroup_of(nodes);
  UserNamespace user{gid_map_is_identity(groups.gid_map), 0};
  for (const auto& [name, node] : nodes) user.unmapped_group_nodes += node.unmapped_group ? 1 : 0;
  e.user_namespace = user;
  if (auto text = read_file("/proc/driver/nvidia/version", 4096)) {
    e.kernel_module = kernel_module_version(*text);
  }
  e.driver_library = loaded_driver_library();
  if (e.driver_library && Sanitizer::token(*e.driver_library).empty()) e.driver_library.reset();
  e.driver_files = driver_files_in(search_folders());
  e.visible_devices = read_visible_devices();
  if (auto release = read_file("/proc/sys/kernel/osrelease", 256)) {
    std::string lower(*release);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    e.wsl_kernel = lower.find("microsoft") != std::string::npos;
  }
  return e;
}

RocmFacts rocm_facts(long long index, const std::string& sysfs) {
  RocmFacts r;
  // Each KFD node's properties: "gfx_target_version 100301"; a CPU node's is 0.
  const std::string nodes = sysfs + "/class/kfd/kfd/topology/nodes";
  std::vector<std::pair<int, std::string>> gpus;
  for (const auto& entry : folder_entries(nodes)) {
    if (entry.empty() || entry.size() > 6 || entry.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    auto text = read_file(nodes + "/" + entry + "/properties", 1 << 16);
    static const std::regex line("(^|\\n)gfx_target_version ([0-9]{1,9})(\\n|$)");
    std::smatch m;
    if (!text || !std::regex_search(*text, m, line)) continue;
    if (auto name = gfx_target_name(std::stoll(m[2].str()))) gpus.emplace_back(std::stoi(entry), *name);
  }
  std::sort(gpus.begin(), gpus.end());
  const bool one_kind = !gpus.empty() && std::all_of(gpus.begin(), gpus.end(), [&](const auto& g) {
    return g.second == gpus[0].second;
  });
  if (one_kind) {
    r.gfx_target = gpus[0].second;
  } else if (index >= 0 && static_cast<size_t>(index) < gpus.size()) {
    r.gfx_target = gpus[static_cast<size_t>(index)].second;
  }
  if (const char* value = std::getenv("HSA_OVERRIDE_GFX_VERSION")) {
    r.hsa_override_gfx_version = gfx_override_shape(value);
  }
  return r;
}

DriverFiles driver_files_in(const std::vector<std::string>& folders) {
  DriverFiles d;
  static const std::regex versioned("libcuda\\.so\\.[0-9]+\\.[0-9][0-9.]*");
  for (const auto& folder : folders) {
    struct stat st {};
    const std::string link = folder + "/libcuda.so.1";
    if (!d.libcuda_so_1 && stat(link.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      d.libcuda_so_1 = true;
      char real[PATH_MAX];
      const std::string file = realpath(link.c_str(), real) != nullptr ? real : link;
      const std::string name = Sanitizer::token(file.substr(file.rfind('/') + 1));
      if (!name.empty()) d.libcuda_file = name;
      const std::string folder_of_file = dirname_of(file);
      const std::string parent = folder_of_file.substr(folder_of_file.rfind('/') + 1);
      d.libcuda_folder = parent == "stubs" ? "stubs" : parent == "compat" ? "compat" : "other";
    }
    if (!d.libnvidia_ml_so_1 && stat((folder + "/libnvidia-ml.so.1").c_str(), &st) == 0) {
      d.libnvidia_ml_so_1 = true;
    }
    if (d.libcuda_version_without_link) continue;
    for (const auto& entry : folder_entries(folder)) {
      if (std::regex_match(entry, versioned)) d.libcuda_version_without_link = library_file_version(entry);
    }
  }
  if (d.libcuda_so_1) d.libcuda_version_without_link.reset();
  return d;
}

std::vector<std::string> search_folders() {
  std::vector<std::string> folders;
  add_path_list(std::getenv("LD_LIBRARY_PATH"), folders);
  ld_so_conf_folders("/etc/ld.so.conf", 0, folders);
  for (const char* dir : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) folders.emplace_back(dir);
  return folders;
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
