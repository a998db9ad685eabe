// Small file and path helpers shared by the check, the conformance harness and the report
// writer: whole writes, bounded reads, whether a name exists, a path's folder and name, a wheel's
// metadata folder, a PATH lookup, random names.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kd {

// Writes all of `data` to `fd`, retrying short writes and EINTR. 0 when
// done, else the errno of the failure (EIO for a write of nothing).
int write_all(int fd, std::string_view data);

inline constexpr std::size_t kDefaultReadLimit = std::size_t{64} << 20;

// No bound on a read: the whole file, however long.
inline constexpr std::size_t kWholeFile = std::numeric_limits<std::size_t>::max();

// At most `limit` bytes of `path`, read as far as the file goes (the limit
// is never allocated up front); nullopt if it cannot be opened or read.
std::optional<std::string> read_file(const std::string& path,
                                     std::size_t limit = kDefaultReadLimit);

// read_file's text, "" where it cannot be opened or read: for a file whose absence says no more
// than an empty one (a /proc entry of a process that has gone).
std::string read_text(const std::string& path, std::size_t limit = kDefaultReadLimit);

// Names in `dir` (without . and ..), sorted; empty if it cannot be read.
std::vector<std::string> folder_entries(const std::string& dir);

// Whether anything is at `path` (lstat: a dangling symlink is there too).
bool path_exists(const std::string& path);

// The folder part of `path`: "." when it has none, "/" for a name at the root.
std::string dirname_of(std::string_view path);

// The name part of `path`, after its last '/': all of it when it has none, "" after a final '/'.
std::string file_name(std::string_view path);

// Whether `name` is a wheel's metadata folder, "<distribution>-<version>.dist-info": more than
// the suffix alone.
bool is_dist_info(std::string_view name);

// The first executable regular file `program` in the PATH directories of
// `path_value`; empty elements (the working folder) are skipped.
std::optional<std::string> find_on_path(std::string_view program, std::string_view path_value);

// `length` characters of [a-z0-9], from a generator seeded by the system's
// random source; for names of temporary files and markers, not for keys.
std::string random_name(std::size_t length);

}  // namespace kd
