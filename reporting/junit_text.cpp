// The JUnit converter's text helpers: numbers, times, GoogleTest's message lines, and what
// XML 1.0 may carry.
#include "junit_text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <cstdlib>
#include <system_error>

#include "junit_report.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

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

std::string format_limit(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", seconds);
  return buffer;
}

bool is_location_line(std::string_view line) {
  for (std::string_view suffix : {": Failure", ": Skipped"}) {
    if (line.size() > suffix.size() &&
        line.substr(line.size() - suffix.size()) == suffix) {
      line.remove_suffix(suffix.size());
      break;
    }
  }
  std::size_t colon = line.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == line.size()) return false;
  if (line.find(' ') != std::string_view::npos) return false;
  return std::all_of(line.begin() + static_cast<std::ptrdiff_t>(colon) + 1, line.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::string last_nonempty_line(std::string_view text) {
  auto lines = split_lines(text);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    std::string_view line = trim(*it);
    if (!line.empty()) return std::string(line);
  }
  return "";
}

std::string cut(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "...";
}

std::string skip_reason(std::string_view text) {
  std::string reason;
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line.empty() || is_location_line(line)) continue;
    if (!reason.empty()) reason += ' ';
    reason += line;
  }
  return reason;
}

std::string console_skip_text(std::string_view output) {
  constexpr std::string_view kSkipped = ": Skipped";
  std::string text;
  bool inside = false;
  for (std::string_view line : split_lines(output)) {
    if (!inside) {
      std::string_view t = trim(line);
      if (t.size() > kSkipped.size() && t.substr(t.size() - kSkipped.size()) == kSkipped &&
          is_location_line(t)) {
        text = std::string(t.substr(0, t.size() - kSkipped.size()));
        inside = true;
      }
      continue;
    }
    if (line.rfind("[  SKIPPED ]", 0) == 0) return text;
    text += '\n';
    text += line;
  }
  return "";
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c == '\n' || c == '\r' || c == '\t' ? ' ' : c;
    }
  }
  return out;
}

std::string read_input(const std::string& path, const char* what) {
  std::optional<std::string> content = kd::read_file(path, kd::kWholeFile);
  if (!content) throw InputError(std::string("cannot read ") + what + " " + path);
  return *content;
}

void write_output(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError("cannot write " + temporary);
    out << content;
    out.close();
    if (!out) throw InputError("cannot write " + temporary);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw InputError("cannot write " + path);
  }
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

std::string headline(std::string_view text) {
  std::string_view first_nonempty;
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line.empty()) continue;
    if (first_nonempty.empty()) first_nonempty = line;
    if (is_location_line(line) || line == "Failed") continue;
    return cut(line, 200);
  }
  return cut(first_nonempty, 200);
}

}  // namespace kd::junit
