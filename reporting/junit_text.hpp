// Text helpers the report writer's parts share: numbers and times as the report writes them,
// the lines of GoogleTest's messages, what XML 1.0 and Markdown may carry, and files read and
// written whole.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>


namespace kd::junit {

// A non-negative number of seconds as CTest or GoogleTest wrote it; 0 for anything else.
double parse_double(const std::string& text);

// Seconds with three decimals, as JUnit's time attributes carry them.
std::string format_seconds(double seconds);

// Whole seconds print without a fraction so that "TIMEOUT of 2 s" reads as the user wrote it.
std::string format_limit(double seconds);

// GoogleTest opens each assertion with where it is ("path:42" in XML, "path:42: Failure" on
// the console); that says nothing about why, so summaries skip it.
bool is_location_line(std::string_view line);

std::string last_nonempty_line(std::string_view text);

// Cut at a character boundary so that the result stays valid UTF-8.
std::string cut(std::string_view text, std::size_t limit);

// A skip's reason without GoogleTest's location line, on one line.
std::string skip_reason(std::string_view text);

// The skip GoogleTest printed on the console, in the form of its XML record: the location line
// ("path:42: Skipped" becomes "path:42") and the reason's lines, up to "[  SKIPPED ]". Empty
// when the output holds no skip. Serves the gtest programs that write no XML.
std::string console_skip_text(std::string_view output);

// "1 case", "2 cases".
std::string plural(std::size_t n, const char* one, const char* many);

// Newlines, tabs and '|' made safe for one cell of a Markdown table.
std::string markdown_cell(std::string_view text);

// The whole file; an InputError naming `what` and the path when it cannot be read.
std::string read_input(const std::string& path, const char* what);

// Written to "<path>.tmp" and renamed, so that a dashboard never reads half of it; an
// InputError when it cannot be.
void write_output(const std::string& path, const std::string& content);

// Newlines and tabs as spaces.
std::string one_line(std::string_view text);

// Valid UTF-8 with only the characters XML 1.0 allows; anything else becomes visible text.
std::string xml_safe(std::string_view text);

// One line for a message attribute: the first line of an assertion that says something (not
// GoogleTest's "file:line" or "Failed"), cut to a readable length.
std::string headline(std::string_view text);

inline constexpr std::size_t kTailLines = 60;

}  // namespace kd::junit
