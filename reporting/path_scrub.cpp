#include "path_scrub.hpp"

#include <cctype>
#include <system_error>

namespace kd::junit {
namespace {

bool is_path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '/' || c == '.' || c == '_' ||
         c == '-' || c == '+' || c == '@' || c == '~';
}

bool is_file(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

// One absolute path, made relative or anonymous (see scrub_paths).
std::string scrub_one(const std::string& path, const PathScrub& scrub) {
  const std::string root = scrub.source_root.empty() ? "" : scrub.source_root.string();
  if (!root.empty()) {
    if (path == root) return ".";
    if (path.size() > root.size() + 1 && path.compare(0, root.size(), root) == 0 &&
        path[root.size()] == '/')
      return path.substr(root.size() + 1);
    // A file of this project compiled elsewhere: its longest tail that is a file here.
    for (std::size_t slash = path.find('/', 1); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      const std::string tail = path.substr(slash + 1);
      if (tail.find('/') != std::string::npos && is_file(scrub.source_root / tail))
        return tail;
    }
  }
  for (const auto& [prefix, replacement] : scrub.prefixes) {
    if (prefix.empty() || prefix == "/") continue;
    if (path == prefix) return replacement;
    if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
        path[prefix.size()] == '/')
      return replacement + path.substr(prefix.size());
  }
  return path;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

PathScrub path_scrub(const std::string& source_root, const std::vector<std::string>& hidden) {
  PathScrub scrub;
  if (!source_root.empty()) {
    std::string root = std::filesystem::absolute(source_root).lexically_normal().string();
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    scrub.source_root = root;
  }
  for (std::string prefix : hidden) {
    while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
    const std::string name = std::filesystem::path(prefix).filename().string();
    scrub.prefixes.emplace_back(prefix, "<" + (name.empty() ? std::string("hidden") : name) + ">");
  }
  return scrub;
}

std::string scrub_paths(std::string_view text, const PathScrub& scrub) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const bool starts = text[i] == '/' && (i == 0 || !is_path_char(text[i - 1])) &&
                        i + 1 < text.size() && is_path_char(text[i + 1]) && text[i + 1] != '/';
    if (!starts) {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_path_char(text[end])) ++end;
    std::string path(text.substr(i, end - i));
    // A sentence's full stop is not part of the path.
    std::string trailing;
    while (!path.empty() && path.back() == '.') {
      trailing += '.';
      path.pop_back();
    }
    out += scrub_one(path, scrub) + trailing;
    i = end;
  }
  return out;
}

void localize(Report& report, const PathScrub& scrub) {
  for (ReportSuite& suite : report.suites) {
    for (ReportCase& c : suite.cases) {
      c.message = scrub_paths(c.message, scrub);
      c.body = scrub_paths(c.body, scrub);
      c.system_out = scrub_paths(c.system_out, scrub);
      c.declared = scrub_paths(c.declared, scrub);
      if (c.verdict == Verdict::Passed) continue;
      // The reason first, then where it was found.
      if (c.body.empty()) {
        c.body = c.message;
      } else if (first_line(c.body) != c.message) {
        c.body = c.message + "\n" + c.body;
      }
      if (c.declared.empty()) continue;
      if (!c.body.empty() && c.body.back() != '\n') c.body += '\n';
      c.body += kDeclaredPrefix + c.declared;
    }
  }
}

}  // namespace kd::junit
