// Text helpers the JUnit converter's parts share: numbers and times as the report writes them,
// the lines of GoogleTest's messages, and what XML 1.0 may carry.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

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

// The value at a JSON pointer of a report; nullptr where there is none.
const nlohmann::json* field_at(const nlohmann::json& doc, const char* pointer);

// The text at a JSON pointer of a report; empty where there is none or it is not text.
std::string text_at(const nlohmann::json& doc, const char* pointer);

// Whether a check's report was made by one of its real probes (tool.probe "libtorch", the
// compiled probe, or "stable_abi"), not through the fault-injection seam ("override"): only
// those tell facts of the machine.
bool made_by_real_probe(const nlohmann::json& report);

// Newlines and tabs as spaces.
std::string one_line(std::string_view text);

// Valid UTF-8 with only the characters XML 1.0 allows; anything else becomes visible text.
std::string xml_safe(std::string_view text);

// One line for a message attribute: the first line of an assertion that says something (not
// GoogleTest's "file:line" or "Failed"), cut to a readable length.
std::string headline(std::string_view text);

inline constexpr std::size_t kTailLines = 60;

}  // namespace kd::junit
