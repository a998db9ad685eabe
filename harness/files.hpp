// Small file helpers the harness needs in several places.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kdh {

// Names in `dir` (without . and ..), sorted; empty if it cannot be read.
std::vector<std::string> folder_entries(const std::string& dir);

// At most `limit` bytes of `path`; nullopt if it cannot be opened.
std::optional<std::string> read_file(const std::string& path, size_t limit = 64 << 20);

}  // namespace kdh
