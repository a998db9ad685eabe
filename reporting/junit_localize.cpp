// Paths made relative or anonymous, each reason first in its body, and where each case is
// declared.
#include "junit_localize.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <sstream>
#include <system_error>

#include "util/files.hpp"

namespace kd::junit {
namespace {

std::string read_text(const std::filesystem::path& path, bool& ok) {
  const auto text = kd::read_file(path.string(), std::numeric_limits<std::size_t>::max());
  ok = text.has_value();
  return text.value_or(std::string());
}

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

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
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

std::string case_declaration(const std::filesystem::path& source_root, const std::string& id) {
  namespace fs = std::filesystem;
  if (source_root.empty() || id.empty()) return "";
  // Read once per source root: every case of a report asks.
  static std::map<std::string, std::vector<std::pair<std::string, std::vector<std::string>>>>
      cache;
  auto [it, inserted] = cache.try_emplace(source_root.string());
  if (inserted) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator d(source_root / "suites", ec), end; !ec && d != end;
         d.increment(ec)) {
      if (d->path().extension() == ".cpp") files.push_back(d->path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      bool ok = false;
      it->second.emplace_back("suites/" + f.filename().string(), lines_of(read_text(f, ok)));
    }
  }
  // Case("<id>", ...) or a helper of the table: host_case("<id>", ...).
  const std::string needle = "(\"" + id + "\"";
  for (const auto& [name, lines] : it->second) {
    for (std::size_t n = 0; n < lines.size(); ++n) {
      if (lines[n].find(needle) != std::string::npos) return name + ":" + std::to_string(n + 1);
    }
  }
  return "";
}

void localize(Report& report, const PathScrub& scrub) {
  for (ReportSuite& suite : report.suites) {
    for (ReportCase& c : suite.cases) {
      c.message = scrub_paths(c.message, scrub);
      c.body = scrub_paths(c.body, scrub);
      c.system_out = scrub_paths(c.system_out, scrub);
      if (c.verdict == Verdict::Passed) continue;
      // The reason first, then where it was found.
      if (c.body.empty()) {
        c.body = c.message;
      } else if (first_line(c.body) != c.message) {
        c.body = c.message + "\n" + c.body;
      }
      if (std::string where = case_declaration(scrub.source_root, c.name); !where.empty())
        c.body += (c.body.empty() || c.body.back() == '\n' ? "" : "\n") +
                  std::string("Case declared at ") + where;
    }
  }
}

}  // namespace kd::junit
