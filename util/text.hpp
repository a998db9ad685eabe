// Small text helpers shared by the check and the conformance harness: one
// definition each, so that both sides cut, trim and quote text alike.
//
//   kd::trim("  535.104.05 \r")           -> "535.104.05"
//   kd::tail_lines("1\n2\n3\n", 2)          -> "[... 1 earlier lines not shown ...]\n2\n3\n"
//   kd::joined({"a", "b", "c"})             -> "a, b and c"
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kd {

// `text` without leading and trailing white space (as std::isspace sees it).
std::string_view trim(std::string_view text);

// Every occurrence of `needle` in `text` replaced by `with`, left to right;
// a replacement is never searched again. An empty needle changes nothing.
void replace_all(std::string& text, std::string_view needle, std::string_view with);

// The lines of `text`, split at '\n', each without a trailing '\r'. A final
// line without '\n' counts; a final '\n' opens no empty line.
std::vector<std::string_view> split_lines(std::string_view text);

// The last `lines` lines of `text` (trailing blank lines dropped), each
// ending in '\n', after a note of how many earlier lines were left out.
std::string tail_lines(std::string_view text, std::size_t lines);

// Each line of `text` with `prefix` in front, each ending in '\n'.
std::string prefix_lines(std::string_view text, std::string_view prefix);

// Whether `c` is one of the digits 0-9, whatever the locale and whether char is signed (a byte
// of a UTF-8 sequence is none).
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// `parts` as a sentence lists them: "a", "a and b", "a, b and c", with `last_joint` before the
// last part and ", " before the others; "" for none.
std::string joined(const std::vector<std::string>& parts, std::string_view last_joint = " and ");

}  // namespace kd
