#include "run/output_file.hpp"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/files.hpp"

namespace kd {
namespace {

struct Split {
  std::string dir;   // "." when the path has no folder part
  std::string name;  // last component
};

Split split_path(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

OutputProblem problem(const std::string& what, int err) {
  return {err != 0 ? what + ": " + strerror(err) : what, err};
}

class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }
  // close() reports delayed write errors (NFS, quota); it is never retried.
  int close_checked() {
    int rc = close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

// The whole report, on the disk: 0, or the errno that stopped it.
int write_durably(int fd, std::string_view content) {
  if (int err = write_all(fd, content); err != 0) return err;
  return fsync(fd) == 0 ? 0 : errno;
}

std::optional<OutputProblem> link_failure(int err) {
  if (err == EEXIST) return problem("the output file appeared while the check ran", 0);
  return problem("the output file could not be created", err);
}

// Preferred: an unnamed file, linked into place only once complete. A crash
// at any point leaves nothing behind.
enum class TmpfileResult { Done, Unsupported };
TmpfileResult write_with_tmpfile(const Split& where, int dirfd, std::string_view content,
                                 std::optional<OutputProblem>& outcome) {
  int raw = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (raw < 0) {
    // Old kernels and some filesystems (NFS, some overlays) lack O_TMPFILE.
    if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT) {
      return TmpfileResult::Unsupported;
    }
    outcome = problem("the output file could not be created", errno);
    return TmpfileResult::Done;
  }
  ScopedFd fd(raw);
  if (int err = write_durably(fd.get(), content); err != 0) {
    outcome = problem("the report could not be written", err);
    return TmpfileResult::Done;
  }
  char proc_path[64];
  snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd.get());
  if (linkat(AT_FDCWD, proc_path, dirfd, where.name.c_str(), AT_SYMLINK_FOLLOW) != 0) {
    int err = errno;
    if (err == ENOENT && access("/proc/self/fd", F_OK) != 0) {
      return TmpfileResult::Unsupported;  // no /proc: fall back
    }
    outcome = link_failure(err);
    return TmpfileResult::Done;
  }
  if (fd.close_checked() != 0) {
    int err = errno;
    unlinkat(dirfd, where.name.c_str(), 0);
    outcome = problem("the report could not be written", err);
  }
  return TmpfileResult::Done;
}

// Fallback: a hidden temporary beside the destination, linked (never
// renamed over anything) and always removed.
std::optional<OutputProblem> write_with_named_temp(const Split& where, int dirfd,
                                                   std::string_view content) {
  std::string temp;
  int raw = -1;
  for (int attempt = 0; attempt < 20 && raw < 0; ++attempt) {
    temp = "." + where.name + ".kd-" + random_name(10) + ".tmp";
    raw = openat(dirfd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (raw < 0 && errno != EEXIST) break;
  }
  if (raw < 0) return problem("the output file could not be created", errno);
  ScopedFd fd(raw);
  std::optional<OutputProblem> outcome;
  if (int err = write_durably(fd.get(), content); err != 0) {
    outcome = problem("the report could not be written", err);
  } else if (fd.close_checked() != 0) {
    outcome = problem("the report could not be written", errno);
  } else if (linkat(dirfd, temp.c_str(), dirfd, where.name.c_str(), 0) != 0) {
    int link_err = errno;
    if (link_err == EPERM || link_err == EOPNOTSUPP) {
      // Filesystems without hard links: rename, but never over a file.
      if (renameat2(dirfd, temp.c_str(), dirfd, where.name.c_str(), RENAME_NOREPLACE) != 0) {
        outcome = link_failure(errno);
      }
    } else {
      outcome = link_failure(link_err);
    }
  }
  unlinkat(dirfd, temp.c_str(), 0);  // gone after a rename: ENOENT is fine
  return outcome;
}

}  // namespace

std::optional<OutputProblem> preflight_new_file(const std::string& path) {
  if (path.empty()) return problem("no output file name was given", 0);
  if (path.back() == '/') return problem("the output name is a folder, not a file", 0);
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    return problem("the output file already exists and is never overwritten", 0);
  }
  if (errno != ENOENT) {
    int err = errno;
    if (err == ENOTDIR) return problem("the output file's folder is not a folder", 0);
    return problem("the output file cannot be checked", err);
  }
  Split where = split_path(path);
  if (stat(where.dir.c_str(), &st) != 0) {
    if (errno == ENOTDIR) return problem("the output file's folder is not a folder", 0);
    if (errno == ENOENT) return problem("the output file's folder does not exist", 0);
    return problem("the output file's folder cannot be reached", errno);
  }
  if (!S_ISDIR(st.st_mode)) return problem("the output file's folder is not a folder", 0);
  if (access(where.dir.c_str(), W_OK | X_OK) != 0) {
    return problem("the output file's folder does not accept new files", errno);
  }
  return std::nullopt;
}

std::optional<OutputProblem> write_new_file(const std::string& path, std::string_view content) {
  if (auto p = preflight_new_file(path)) return p;
  Split where = split_path(path);
  int raw = open(where.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (raw < 0) return problem("the output file's folder cannot be opened", errno);
  ScopedFd dirfd(raw);
  std::optional<OutputProblem> outcome;
  if (write_with_tmpfile(where, dirfd.get(), content, outcome) == TmpfileResult::Done) {
    return outcome;
  }
  return write_with_named_temp(where, dirfd.get(), content);
}

}  // namespace kd
