// Text helpers the report writer's parts share: numbers and times as the report writes them,
// what XML 1.0 may carry, counted words, and files read whole.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kd::junit {

// A non-negative number of seconds as CTest or GoogleTest wrote it; 0 for anything else.
double parse_double(const std::string& text);

// Seconds with three decimals, as JUnit's time attributes carry them.
std::string format_seconds(double seconds);

// "1 case", "2 cases".
std::string plural(std::size_t n, const char* one, const char* many);

// The whole file; an InputError naming `what` and the path when it cannot be read.
std::string read_input(const std::string& path, const char* what);

// Every regular "*.json" of `dir`, or of its whole tree with `recursive`, in name order. A
// missing folder is an InputError unless `missing_ok`.
std::vector<std::filesystem::path> json_files(const std::filesystem::path& dir, bool missing_ok,
                                              bool recursive);

// Newlines and tabs as spaces.
std::string one_line(std::string_view text);

// `text` with the characters markup gives a meaning as character references, for XML and HTML
// alike: & < > always, and with `quotes` " and ' too (as &quot; and &#39;).
std::string escape_markup(std::string_view text, bool quotes = true);

// Valid UTF-8 with only the characters XML 1.0 allows; anything else becomes visible text.
std::string xml_safe(std::string_view text);

}  // namespace kd::junit
