#include "manipulations.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "kd/supervisor.hpp"
#include "util/files.hpp"

namespace kdh {
namespace {

// The cgroup of this process for `controller` (v1), or its unified cgroup (v2) when empty.
std::string own_cgroup_path(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    size_t a = line.find(':');
    size_t b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    std::stringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');) {
      if (c == controller) return line.substr(b + 1);
    }
    if (controller.empty() && controllers.empty()) return line.substr(b + 1);
  }
  return "";
}

std::string cgroup_name() { return "kd-environment-" + std::to_string(getpid()); }
std::string devices_cgroup_name() { return "kd-devices-" + std::to_string(getpid()); }

}  // namespace

std::string write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return out.flush() ? "" : "cannot write " + path;
}

std::string make_virtual_environment(const std::string& folder, const std::string& interpreter,
                                     bool system_site_packages) {
  const char* path = std::getenv("PATH");
  auto python = interpreter.empty() ? kd::find_on_path("python3", path != nullptr ? path : "")
                                    : std::optional<std::string>(interpreter);
  if (!python) return "no python3 on PATH to make a virtual environment with";
  kd::SpawnSpec venv;
  venv.argv = {*python, "-m", "venv", "--without-pip", folder};
  if (system_site_packages) venv.argv.insert(venv.argv.begin() + 3, "--system-site-packages");
  venv.merge_err_into_out = true;
  kd::RunResult made = kd::run_supervised(venv, kd::deadline_in(60), {});
  if (made.status.exited() && made.status.code == 0) return "";
  return "python3 -m venv failed (" + made.status.describe() + "): " + made.out.data;
}

Preparation sparse_weights(const std::string& name, unsigned long long bytes) {
  return [name, bytes](const std::string& tmp) -> std::string {
    const unsigned long long side = 1ULL << 14;
    const std::string header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[" +
                               std::to_string(bytes / 4 / side) + "," + std::to_string(side) +
                               "],\"data_offsets\":[0," + std::to_string(bytes) + "]}}";
    std::string head(8, '\0');
    for (int i = 0; i < 8; ++i) head[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    const std::string path = tmp + "/" + name;
    if (std::string why = write_text_file(path, head + header); !why.empty()) return why;
    if (truncate(path.c_str(), static_cast<off_t>(8 + header.size() + bytes)) != 0) {
      return "could not make " + name + " sparse: " + std::strerror(errno);
    }
    return "";
  };
}

std::string run_shell(const std::string& cwd, const std::string& script) {
  kd::SpawnSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.cwd = cwd;
  spec.merge_err_into_out = true;
  spec.out = kd::CaptureSpec{true, 64 * 1024, true};
  kd::RunResult run = kd::run_supervised(spec, kd::deadline_in(120), {});
  if (run.status.exited() && run.status.code == 0) return "";
  return "/bin/sh -c '" + script + "' failed (" + run.status.describe() + "): " + run.out.data;
}

std::string virtual_environment_site(const std::string& venv) {
  for (const std::string& name : kd::folder_entries(venv + "/lib")) {
    if (name.rfind("python3", 0) == 0) return venv + "/lib/" + name + "/site-packages";
  }
  return "";
}

std::string link_installed(const std::string& folder, const std::string& site,
                           const std::vector<std::string>& left_out) {
  const std::vector<std::string> entries = kd::folder_entries(folder);
  if (entries.empty()) return "nothing installed in " + folder;
  for (const std::string& name : entries) {
    if (name.empty() || name[0] == '.' || name == "__pycache__" ||
        std::find(left_out.begin(), left_out.end(), name) != left_out.end()) {
      continue;
    }
    const std::string from = folder + "/" + name;
    const std::string to = site + "/" + name;
    if (symlink(from.c_str(), to.c_str()) != 0) return "cannot link " + name + " into " + site;
  }
  return "";
}

std::vector<std::string> as_user(uid_t uid) {
  std::string id = std::to_string(uid);
  return {kSetpriv, "--reuid=" + id, "--regid=" + id, "--clear-groups", "--"};
}

uid_t nameless_uid() {
  static const uid_t uid = [] {
    uid_t candidate = 1000000 + static_cast<uid_t>(getpid());
    while (getpwuid(candidate) != nullptr) ++candidate;
    return candidate;
  }();
  return uid;
}

Preparation user_folder(uid_t uid, const std::string& name) {
  return [uid, name](const std::string& tmp) -> std::string {
    if (chmod(tmp.c_str(), 0755) != 0) return "cannot open " + tmp + " to others";
    if (name.empty()) return "";
    std::string dir = tmp + "/" + name;
    if (mkdir(dir.c_str(), 0755) != 0 || chown(dir.c_str(), uid, uid) != 0) {
      return "cannot make " + name + " for uid " + std::to_string(uid);
    }
    return "";
  };
}

std::vector<std::string> in_mount_namespace(const std::string& setup) {
  return {kUnshare, "--user", "--map-root-user", "--mount", "/bin/sh", "-c",
          setup + " || exit 90; exec \"$@\"", "sh"};
}

std::optional<CgroupPlace> cgroup_place(std::string& why_not) {
  if (kd::path_exists("/sys/fs/cgroup/memory/memory.limit_in_bytes") ||
      kd::path_exists("/sys/fs/cgroup/memory/cgroup.procs")) {
    std::string own = own_cgroup_path("memory");
    return CgroupPlace{"/sys/fs/cgroup/memory", "memory.limit_in_bytes",
                       "memory.memsw.limit_in_bytes",
                       "/sys/fs/cgroup/memory" + (own == "/" ? "" : own) + "/cgroup.procs"};
  }
  auto controllers = kd::read_file("/sys/fs/cgroup/cgroup.subtree_control", 4096);
  if (controllers && controllers->find("memory") != std::string::npos) {
    std::string own = own_cgroup_path("");
    return CgroupPlace{"/sys/fs/cgroup", "memory.max", "memory.swap.max",
                       "/sys/fs/cgroup" + (own == "/" ? "" : own) + "/cgroup.procs"};
  }
  why_not = "no memory controller offered to new cgroups under /sys/fs/cgroup (neither a v1 "
            "memory hierarchy nor memory in the v2 root's cgroup.subtree_control)";
  return std::nullopt;
}

Preparation memory_cgroup(rlim_t bytes) {
  return [bytes](const std::string& tmp) -> std::string {
    std::string reason;
    auto place = cgroup_place(reason);
    if (!place) return reason;
    std::string cg = place->root + "/" + cgroup_name();
    if (mkdir(cg.c_str(), 0755) != 0) return "cannot make " + cg;
    if (!write_text_file(cg + "/" + place->limit_file, std::to_string(bytes) + "\n").empty()) {
      rmdir(cg.c_str());
      return "cannot set " + place->limit_file + " of " + cg;
    }
    // No swap to escape to (where the controller offers the setting).
    if (kd::path_exists(cg + "/" + place->swap_file)) {
      write_text_file(cg + "/" + place->swap_file,
                      (place->swap_file == "memory.swap.max" ? std::string("0")
                                                             : std::to_string(bytes)) + "\n");
    }
    return write_text_file(tmp + "/cgroup.sh",
                           "echo $$ > '" + cg + "/cgroup.procs' || exit 90\n"
                           "\"$@\"\nrc=$?\n"
                           "echo $$ > '" + place->home_procs + "'\n"
                           "rmdir '" + cg + "'\n"
                           "exit $rc\n");
  };
}

void cgroup_removed(const CaseRun&, std::vector<std::string>& problems) {
  std::string reason;
  auto place = cgroup_place(reason);
  std::string cg = place ? place->root + "/" + cgroup_name() : "";
  if (!cg.empty() && kd::path_exists(cg)) {
    problems.push_back("the case's cgroup " + cg + " was left behind");
    rmdir(cg.c_str());
  }
}

}  // namespace kdh

namespace kdh {

std::optional<std::string> devices_cgroup_home(std::string& why_not) {
  const std::string root = "/sys/fs/cgroup/devices";
  if (!kd::path_exists(root + "/devices.list")) {
    why_not = "no cgroup v1 devices hierarchy at " + root + " (a cgroup v2 machine: its device "
              "rules are BPF programs, which this suite does not load)";
    return std::nullopt;
  }
  std::string own = own_cgroup_path("devices");
  std::string home = root + (own == "/" ? "" : own);
  if (!kd::path_exists(home + "/cgroup.procs")) {
    why_not = "this process's devices cgroup " + own + " is not under " + root + " (a container "
              "that sees its own cgroup as the root)";
    return std::nullopt;
  }
  return home;
}

const std::vector<std::string>& container_device_rules() {
  static const std::vector<std::string> rules{
      "c *:* m",      "b *:* m",      "c 1:3 rwm",   "c 1:5 rwm", "c 1:7 rwm", "c 1:8 rwm",
      "c 1:9 rwm",    "c 5:0 rwm",    "c 5:1 rwm",   "c 5:2 rwm", "c 136:* rwm", "c 10:200 rwm"};
  return rules;
}

Preparation devices_cgroup(std::vector<std::string> allowed) {
  return [allowed](const std::string& tmp) -> std::string {
    std::string reason;
    auto home = devices_cgroup_home(reason);
    if (!home) return reason;
    const std::string cg = *home + "/" + devices_cgroup_name();
    if (mkdir(cg.c_str(), 0755) != 0) return "cannot make " + cg;
    std::string why = write_text_file(cg + "/devices.deny", "a\n");
    for (const auto& rule : allowed) {
      if (why.empty()) why = write_text_file(cg + "/devices.allow", rule + "\n");
    }
    if (!why.empty()) {
      rmdir(cg.c_str());
      return why;
    }
    return write_text_file(tmp + "/devices-cgroup.sh",
                           "echo $$ > '" + cg + "/cgroup.procs' || exit 90\n"
                           "\"$@\"\nrc=$?\n"
                           "echo $$ > '" + *home + "/cgroup.procs'\n"
                           "rmdir '" + cg + "'\n"
                           "exit $rc\n");
  };
}

void devices_cgroup_removed(const CaseRun&, std::vector<std::string>& problems) {
  std::string reason;
  auto home = devices_cgroup_home(reason);
  const std::string cg = home ? *home + "/" + devices_cgroup_name() : "";
  if (!cg.empty() && kd::path_exists(cg)) {
    problems.push_back("the case's devices cgroup " + cg + " was left behind");
    rmdir(cg.c_str());
  }
}

}  // namespace kdh
