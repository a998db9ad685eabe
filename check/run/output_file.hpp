// Writes the report to a new file and never to an existing one: the file
// appears whole or not at all (an unnamed O_TMPFILE linked into place, or a
// named temporary linked and removed where O_TMPFILE is unavailable), and
// link() refuses to replace anything, a dangling symlink included.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kd {

struct OutputProblem {
  std::string reason;  // for the report: says nothing of the path
  int error_number = 0;
};

// Checks, before any work, that `path` names nothing yet and that its folder
// exists and can take a new file.
std::optional<OutputProblem> preflight_new_file(const std::string& path);

// Creates `path` with `content`. On failure nothing is left at `path` or
// beside it.
std::optional<OutputProblem> write_new_file(const std::string& path, std::string_view content);

}  // namespace kd
