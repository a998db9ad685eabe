// The report writer's text helpers: numbers, times, what XML 1.0 may carry, files read whole.
#include "junit_text.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "junit_report.hpp"
#include "util/files.hpp"

namespace kd::junit {

double parse_double(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);  // this program keeps the "C" locale
  return end == text.c_str() || !(value >= 0) || std::isinf(value) ? 0 : value;
}

std::string format_seconds(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds < 0 ? 0.0 : seconds);
  return buffer;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string read_input(const std::string& path, const char* what) {
  std::optional<std::string> content = kd::read_file(path, kd::kWholeFile);
  if (!content) throw InputError(std::string("cannot read ") + what + " " + path);
  return *content;
}

std::string one_line(std::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return line;
}

std::string xml_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto escape_byte = [&out](unsigned char byte) {
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "\\x%02X", byte);
    out += buffer;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if (byte == '\r') {
        // Parsers turn CR into LF anyway; doing it here keeps the file as readers see it.
        out += '\n';
        i += (i + 1 < text.size() && text[i + 1] == '\n') ? 2 : 1;
        continue;
      }
      if (byte < 0x20 && byte != '\t' && byte != '\n') {
        escape_byte(byte);
      } else if (byte == 0x7F) {
        escape_byte(byte);  // allowed by XML, but invisible and useless in a report
      } else {
        out += static_cast<char>(byte);
      }
      ++i;
      continue;
    }
    std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0;
    std::uint32_t cp = length == 4 ? byte & 0x07u : length == 3 ? byte & 0x0Fu : byte & 0x1Fu;
    bool valid = length != 0 && byte <= 0xF4 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) valid = false;
      cp = (cp << 6) | (next & 0x3Fu);
    }
    // Overlong forms, surrogates, and the two non-characters XML 1.0 forbids.
    if (valid) {
      const std::uint32_t minimum = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
      valid = cp >= minimum && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF) &&
              cp != 0xFFFE && cp != 0xFFFF;
    }
    if (!valid) {
      escape_byte(byte);
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

}  // namespace kd::junit
