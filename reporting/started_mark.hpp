// The mark a case leaves when it starts, "<GoogleTest's XML file>.started": one line per case,
// its full GoogleTest name, a tab and where GoogleTest says the case is declared
// ("<file>:<line>"). started_mark.cpp writes it in every conformance program; load_gtest_dir
// reads it, so that a case that crashed before writing its XML still has its name and place.
//
//   started_line("cli.run/usage", "/src/suites/cli_cases.cpp", 95)
//       -> "cli.run/usage\t/src/suites/cli_cases.cpp:95\n"
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kd::junit {

inline constexpr const char* kStartedSuffix = ".started";

// What one line of a mark says. `file` is empty (and `line` 0) for a mark without a place:
// one an older build wrote, or GoogleTest knew none.
struct StartedCase {
  std::string name;
  std::string file;
  int line = 0;
};

inline std::string started_line(std::string_view name, std::string_view file, int line) {
  std::string out(name);
  if (!file.empty() && line > 0) {
    out += '\t';
    out += file;
    out += ':' + std::to_string(line);
  }
  return out + '\n';
}

// One line of a mark without its '\n'; nullopt for a blank line.
inline std::optional<StartedCase> parse_started_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
  const std::size_t tab = text.find('\t');
  StartedCase c;
  c.name = std::string(text.substr(0, tab));
  if (c.name.empty()) return std::nullopt;
  if (tab == std::string_view::npos) return c;
  const std::string_view place = text.substr(tab + 1);
  const std::size_t colon = place.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == place.size()) return c;
  int line = 0;
  for (const char digit : place.substr(colon + 1)) {
    if (digit < '0' || digit > '9' || line > 100000000) return c;
    line = line * 10 + (digit - '0');
  }
  if (line == 0) return c;
  c.file = std::string(place.substr(0, colon));
  c.line = line;
  return c;
}

}  // namespace kd::junit
