// The commit a report certifies, as git tells it for the source tree: the short hash of HEAD
// (12 digits), with "+changes" when tracked files differ from it. git runs under the project's
// process supervisor (kd::run_supervised) with a deadline, so a hung git cannot hold a report.
//
//   commit_mark("/src")  -> "0123456789ab+changes"; nullopt outside a git work tree
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kd::junit {

// nullopt when git is not on PATH, `source_root` is not in a git work tree, or git does not
// answer within `seconds`.
std::optional<std::string> commit_mark(const std::filesystem::path& source_root,
                                       double seconds = 20);

}  // namespace kd::junit
