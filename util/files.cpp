#include "util/files.hpp"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>

namespace kd {

int write_all(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

std::optional<std::string> read_file(const std::string& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string data;
  char chunk[1 << 16];
  while (data.size() < limit) {
    size_t want = std::min(sizeof chunk, limit - data.size());
    in.read(chunk, static_cast<std::streamsize>(want));
    data.append(chunk, static_cast<size_t>(in.gcount()));
    if (static_cast<size_t>(in.gcount()) < want) break;
  }
  if (in.bad()) return std::nullopt;
  return data;
}

std::string read_text(const std::string& path, std::size_t limit) {
  return read_file(path, limit).value_or(std::string());
}

std::vector<std::string> folder_entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

std::string dirname_of(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  return slash == 0 ? "/" : std::string(path.substr(0, slash));
}

std::string file_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool is_dist_info(std::string_view name) {
  constexpr std::string_view kSuffix = ".dist-info";
  return name.size() > kSuffix.size() &&
         name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

std::optional<std::string> find_on_path(std::string_view program, std::string_view path_value) {
  size_t start = 0;
  while (start <= path_value.size()) {
    size_t colon = path_value.find(':', start);
    if (colon == std::string_view::npos) colon = path_value.size();
    std::string dir(path_value.substr(start, colon - start));
    start = colon + 1;
    // An empty element would mean the working folder: never run a program
    // from wherever the check happens to be started.
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + std::string(program);
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return std::nullopt;
}

std::string random_name(std::size_t length) {
  // One generator per thread: the harness names things from several at once.
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string name;
  for (size_t i = 0; i < length; ++i) name.push_back(kAlphabet[rng() % (sizeof kAlphabet - 1)]);
  return name;
}

}  // namespace kd
