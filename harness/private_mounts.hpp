// Changes a case makes to the filesystem in a private mount namespace, which
// no other process sees: a private /dev holding only the device nodes the
// case makes (mknod, so real root), a private /proc/driver holding the files
// it writes, a file bound over another. write() puts them in {tmp}/mounts.sh,
// which the wrapper in_private_mounts() runs before the check.
//
//   Case("uvm_missing")
//       .needs(Requirement::DeviceNodes)
//       .prepare([](const std::string& tmp) {
//         return kdh::PrivateMounts().device_node("nvidiactl", 195, 255, 0666).write(tmp);
//       }, "a private /dev with /dev/nvidiactl only")
//       .wrap(kdh::in_private_mounts(true), "");
#pragma once

#include <string>
#include <vector>

namespace kdh {

class PrivateMounts {
 public:
  // A private /dev with the basic nodes (null, zero, full, random, urandom,
  // tty) and this one, of root and group `gid`; `name` may be in a folder ("dri/renderD128").
  PrivateMounts& device_node(std::string name, unsigned major, unsigned minor, unsigned mode,
                             unsigned gid = 0);
  // A private /dev with the basic nodes only.
  PrivateMounts& private_dev();
  // A private /proc/driver holding `relative` ("nvidia/version") with `content`.
  PrivateMounts& proc_driver_file(std::string relative, std::string content);
  // `source` bound over `target`, a file or a folder; {tmp} in `source` is the case's folder.
  PrivateMounts& bind(std::string source, std::string target);

  // Writes {tmp}/mounts.sh (and what it binds); "" or why it could not.
  std::string write(const std::string& tmp) const;

 private:
  struct Node {
    std::string name;
    unsigned major, minor, mode, gid;
  };
  bool dev_ = false;
  std::vector<Node> nodes_;
  std::vector<std::pair<std::string, std::string>> driver_files_;
  std::vector<std::pair<std::string, std::string>> binds_;
};

// The wrapper that runs {tmp}/mounts.sh, then the check, in a private mount
// namespace: as real root (needed for device nodes) or as root of a user
// namespace (enough to bind files and folders).
std::vector<std::string> in_private_mounts(bool real_root);

}  // namespace kdh
