#include "junit_text.hpp"

#include <libxml/chvalid.h>
#include <libxml/xmlstring.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <system_error>

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

std::vector<std::filesystem::path> json_files(const std::filesystem::path& dir, bool missing_ok,
                                              bool recursive) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    if (missing_ok) return {};
    throw InputError("folder " + dir.string() + " does not exist");
  }
  std::vector<fs::path> files;
  const auto take = [&files, &ec](auto it) {
    for (decltype(it) end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json" && it->is_regular_file(ec)) files.push_back(it->path());
  };
  if (recursive) {
    take(fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec));
  } else {
    take(fs::directory_iterator(dir, ec));
  }
  if (ec) throw InputError("cannot list " + dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::string one_line(std::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return line;
}

std::string escape_markup(std::string_view text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += quotes ? "&quot;" : "\""; break;
      case '\'': out += quotes ? "&#39;" : "'"; break;
      default: out += c;
    }
  }
  return out;
}

std::string xml_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '\r') {
      // Parsers turn CR into LF anyway; doing it here keeps the file as readers see it.
      out += '\n';
      i += text.compare(i, 2, "\r\n") == 0 ? 2 : 1;
      continue;
    }
    int length = static_cast<int>(std::min<std::size_t>(4, text.size() - i));
    const int c = xmlGetUTF8Char(reinterpret_cast<const xmlChar*>(text.data() + i), &length);
    // Only a character's shortest form, led by a byte that is not a continuation, is UTF-8
    // (older libxml2 takes the others); DEL is allowed by XML, but invisible and useless here.
    const int shortest = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (c < 0 || length != shortest || (text[i] & 0xC0) == 0x80 || !xmlIsCharQ(c) || c == 0x7F) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "\\x%02X", static_cast<unsigned char>(text[i++]));
      out += byte;
      continue;
    }
    out.append(text.substr(i, static_cast<std::size_t>(length)));
    i += static_cast<std::size_t>(length);
  }
  return out;
}

}  // namespace kd::junit
