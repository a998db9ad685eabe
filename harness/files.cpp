#include "files.hpp"

#include <dirent.h>

#include <algorithm>
#include <fstream>

namespace kdh {

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

std::optional<std::string> read_file(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // Read as far as the file goes, never allocating the whole limit up front.
  std::string data;
  char chunk[1 << 16];
  while (data.size() < limit) {
    size_t want = std::min(sizeof chunk, limit - data.size());
    in.read(chunk, static_cast<std::streamsize>(want));
    data.append(chunk, static_cast<size_t>(in.gcount()));
    if (static_cast<size_t>(in.gcount()) < want) break;
  }
  return data;
}

}  // namespace kdh
