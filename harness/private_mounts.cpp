#include "private_mounts.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>

#include "util/files.hpp"
#include "util/text.hpp"

namespace kdh {
namespace {

// The nodes every program expects in /dev: major, minor, name.
struct BasicNode {
  unsigned major, minor;
  const char* name;
};
constexpr BasicNode kBasicNodes[] = {{1, 3, "null"},    {1, 5, "zero"},    {1, 7, "full"},
                                     {1, 8, "random"}, {1, 9, "urandom"}, {5, 0, "tty"}};

std::string single_quoted(const std::string& text) { return "'" + text + "'"; }

bool plain(const std::string& text) {
  return !text.empty() && text.find('\'') == std::string::npos && text.find('\n') == std::string::npos;
}

std::string mode_text(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out.flush());
}

void mkdirs(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    mkdir(path.substr(0, slash).c_str(), 0755);
  }
  mkdir(path.c_str(), 0755);
}

}  // namespace

PrivateMounts& PrivateMounts::private_dev() {
  dev_ = true;
  return *this;
}

PrivateMounts& PrivateMounts::device_node(std::string name, unsigned major, unsigned minor,
                                          unsigned mode, unsigned gid) {
  dev_ = true;
  nodes_.push_back({std::move(name), major, minor, mode, gid});
  return *this;
}

PrivateMounts& PrivateMounts::proc_driver_file(std::string relative, std::string content) {
  driver_files_.emplace_back(std::move(relative), std::move(content));
  return *this;
}

PrivateMounts& PrivateMounts::bind(std::string source, std::string target) {
  binds_.emplace_back(std::move(source), std::move(target));
  return *this;
}

std::string PrivateMounts::write(const std::string& tmp) const {
  std::string script = "set -e\n";
  if (dev_) {
    const std::string dev = tmp + "/private-dev";
    mkdir(dev.c_str(), 0755);
    script += "mount -t tmpfs -o mode=0755 kd-dev " + single_quoted(dev) + "\n";
    for (const BasicNode& n : kBasicNodes) {
      script += "mknod -m 0666 " + single_quoted(dev + "/" + n.name) + " c " + std::to_string(n.major) +
                " " + std::to_string(n.minor) + "\n";
    }
    script += "mkdir -m 1777 " + single_quoted(dev + "/shm") + "\nln -s /proc/self/fd " +
              single_quoted(dev + "/fd") + "\n";
    for (const Node& n : nodes_) {
      if (!plain(n.name) || n.name.find("..") != std::string::npos) return "a node name is not plain";
      script += "mkdir -p " + single_quoted(kd::dirname_of(dev + "/" + n.name)) + "\nmknod -m " +
                mode_text(n.mode) + " " + single_quoted(dev + "/" + n.name) + " c " +
                std::to_string(n.major) + " " + std::to_string(n.minor) + "\n";
      if (n.gid != 0) script += "chown 0:" + std::to_string(n.gid) + " " + single_quoted(dev + "/" + n.name) + "\n";
    }
    script += "mount --bind " + single_quoted(dev) + " /dev\n";
  }
  if (!driver_files_.empty()) {
    const std::string driver = tmp + "/private-proc-driver";
    for (const auto& [relative, content] : driver_files_) {
      std::string path = driver + "/" + relative;
      mkdirs(kd::dirname_of(path));
      if (!write_text(path, content)) return "cannot write " + path;
    }
    script += "mount --bind " + single_quoted(driver) + " /proc/driver\n";
  }
  for (const auto& [bound, target] : binds_) {
    std::string source = bound;
    kd::replace_all(source, "{tmp}", tmp);
    if (!plain(source) || !plain(target)) return "a path to bind is not plain: " + target;
    script += "mount --bind " + single_quoted(source) + " " + single_quoted(target) + "\n";
  }
  script += "exec \"$@\"\n";
  return write_text(tmp + "/mounts.sh", script) ? "" : "cannot write " + tmp + "/mounts.sh";
}

std::vector<std::string> in_private_mounts(bool real_root) {
  if (real_root) {
    return {"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "{tmp}/mounts.sh"};
  }
  return {"/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh", "{tmp}/mounts.sh"};
}

}  // namespace kdh
