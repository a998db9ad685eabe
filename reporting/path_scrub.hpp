// The report as it may be published: no path of the machine it ran on (paths under the source
// root become relative, a temporary folder becomes "<tmp>"), each reason first in its body, and
// where each case is declared, as GoogleTest recorded it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "junit_report.hpp"

namespace kd::junit {

// Where paths in the report's text are made relative or anonymous.
struct PathScrub {
  std::filesystem::path source_root;  // a path under it becomes relative to it
  // Other prefixes (a temporary folder, a build tree elsewhere) and what replaces them.
  std::vector<std::pair<std::string, std::string>> prefixes;
};

// The scrub of a source root (made absolute; empty for none) and of hidden folders, each shown
// as "<its name>" ("/tmp" as "<tmp>").
PathScrub path_scrub(const std::string& source_root, const std::vector<std::string>& hidden);

// Absolute paths in `text`: under the source root, relative to it; one that ends in a file of
// the source root (GoogleTest's file of a build made elsewhere), that file's relative path;
// under a given prefix, the prefix replaced. Other text is left as it is.
std::string scrub_paths(std::string_view text, const PathScrub& scrub);

// Makes paths relative or anonymous in every text of the report, puts each skip's, failure's
// and error's reason first in its body, and ends that body with "Case declared at <file>:<line>"
// when GoogleTest recorded where the case is declared (ReportCase::declared).
void localize(Report& report, const PathScrub& scrub);

}  // namespace kd::junit
