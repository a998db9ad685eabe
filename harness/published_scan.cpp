#include "published_scan.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <system_error>

#include "util/files.hpp"
#include "util/machine.hpp"
#include "util/text.hpp"

namespace kd::published {

namespace fs = std::filesystem;

// The plain files under `root`, relative to it and sorted. A link is a problem,
// `link_problem` (it would publish or follow what lies outside), and so is anything
// else that is neither a plain file nor a folder.
std::vector<fs::path> plain_files(const fs::path& root, const std::string& link_problem,
                                  std::vector<Problem>& problems) {
  const std::string dir = root.string();
  std::vector<fs::path> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, ec), end;
  if (ec) problems.push_back({dir, "cannot be read: " + ec.message()});
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path relative = it->path().lexically_relative(root);
    std::error_code type_ec;
    if (it->is_symlink(type_ec)) {
      problems.push_back({(root / relative).generic_string(), link_problem});
    } else if (it->is_directory(type_ec)) {
      continue;
    } else if (!it->is_regular_file(type_ec)) {
      problems.push_back({(root / relative).generic_string(), "is not a plain file"});
    } else {
      files.push_back(relative);
    }
  }
  if (ec) problems.push_back({dir, "cannot be read: " + ec.message()});
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

// The line of `text` that position `pos` is on, counted from 1.
long line_of(const std::string& text, size_t pos) {
  return 1 + std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n');
}

// Where a finding starts in the text and how long it is.
struct Finding {
  size_t pos;
  size_t len;
};

char char_at(const std::string& t, size_t i) { return i < t.size() ? t[i] : '\0'; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool hex_run(const std::string& t, size_t pos, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!is_hex(char_at(t, pos + i))) return false;
  }
  return true;
}

// /home/..., /tmp/... and the like; not after a placeholder ({out}/tmp/x), not
// inside a relative path (build/tmp/x) or a home-relative one (~/tmp/x).
std::vector<Finding> machine_paths(const std::string& t) {
  static const char* const roots[] = {"home", "root", "tmp", "work", "var", "mnt", "srv", "Users"};
  std::vector<Finding> found;
  for (size_t pos = t.find('/'); pos != std::string::npos; pos = t.find('/', pos + 1)) {
    if (pos > 0) {
      const char before = t[pos - 1];
      if (is_word(before) || before == '.' || before == '-' || before == '}' || before == '~') {
        continue;
      }
    }
    for (const char* root : roots) {
      const size_t n = std::strlen(root);
      if (t.compare(pos + 1, n, root) != 0 || char_at(t, pos + 1 + n) != '/') continue;
      size_t end = pos + 1 + n;
      while (end < t.size() && std::isspace(static_cast<unsigned char>(t[end])) == 0 &&
             std::strchr("\"'<>,;`", t[end]) == nullptr) {
        ++end;
      }
      found.push_back({pos, end - pos});
      break;
    }
  }
  return found;
}

// GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, and MIG-... of the same form.
std::vector<Finding> gpu_uuids(const std::string& t) {
  std::vector<Finding> found;
  for (const char* prefix : {"GPU-", "MIG-"}) {
    for (size_t pos = t.find(prefix); pos != std::string::npos; pos = t.find(prefix, pos + 1)) {
      size_t p = pos + 4;
      bool ok = true;
      for (size_t n : {8u, 4u, 4u, 4u, 12u}) {
        if (p != pos + 4 && char_at(t, p++) != '-') ok = false;
        ok = ok && hex_run(t, p, n);
        if (!ok) break;
        p += n;
      }
      if (ok) found.push_back({pos, p - pos});
    }
  }
  std::sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) { return a.pos < b.pos; });
  return found;
}

// Six pairs of hex digits separated all by ':' or all by '-'.
std::vector<Finding> mac_addresses(const std::string& t) {
  std::vector<Finding> found;
  for (size_t pos = 0; pos + 17 <= t.size(); ++pos) {
    if (pos > 0 && is_word(t[pos - 1])) continue;
    const char sep = t[pos + 2];
    if (sep != ':' && sep != '-') continue;
    bool ok = true;
    for (size_t k = 0; k < 6 && ok; ++k) {
      ok = hex_run(t, pos + 3 * k, 2) && (k == 5 || t[pos + 3 * k + 2] == sep);
    }
    if (ok && !is_word(char_at(t, pos + 17))) {
      found.push_back({pos, 17});
      pos += 16;
    }
  }
  return found;
}

// A version specifier's operator ends at `pos`: "==", "~=", ">=", "<=", "!=" (a pinned wheel's
// version, nvidia-cudnn-cu13==9.26.0.51), never a lone "=" (addr=10.1.2.3).
bool after_version_operator(const std::string& t, size_t pos) {
  return pos >= 2 && t[pos - 1] == '=' && std::string_view("=~<>!").find(t[pos - 2]) !=
                                              std::string_view::npos;
}

// Four numbers 0-255 joined by dots, not part of a longer dotted number or a
// word (libfoo.so.1.2.3.4, v1.2.3.4) nor a pinned version, other than 127.0.0.1 and 0.0.0.0.
std::vector<Finding> ipv4_addresses(const std::string& t) {
  std::vector<Finding> found;
  for (size_t pos = 0; pos < t.size(); ++pos) {
    if (!is_digit(t[pos])) continue;
    if (pos > 0 && (is_word(t[pos - 1]) || t[pos - 1] == '.' || t[pos - 1] == '+')) continue;
    if (after_version_operator(t, pos)) continue;
    size_t p = pos;
    bool ok = true;
    for (int octet = 0; octet < 4 && ok; ++octet) {
      if (octet > 0) ok = char_at(t, p++) == '.';
      size_t digits = 0;
      int value = 0;
      while (ok && is_digit(char_at(t, p))) {
        // More than three digits is no octet: counted, not summed (an int would overflow).
        if (digits < 3) value = value * 10 + (t[p] - '0');
        ++p;
        ++digits;
      }
      ok = ok && digits >= 1 && digits <= 3 && value <= 255;
    }
    const char after = char_at(t, p);
    if (!ok || is_word(after) || (after == '.' && is_digit(char_at(t, p + 1)))) continue;
    const std::string address = t.substr(pos, p - pos);
    if (address != "127.0.0.1" && address != "0.0.0.0") found.push_back({pos, p - pos});
    pos = p;
  }
  return found;
}

// local@domain.tld, the top-level domain letters only.
std::vector<Finding> email_addresses(const std::string& t) {
  auto local_char = [](char c) { return is_word(c) || std::strchr(".%+-", c) != nullptr; };
  auto domain_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-';
  };
  std::vector<Finding> found;
  for (size_t at = t.find('@'); at != std::string::npos; at = t.find('@', at + 1)) {
    size_t begin = at;
    while (begin > 0 && t[begin - 1] != '\0' && local_char(t[begin - 1])) --begin;
    size_t end = at + 1;
    while (end < t.size() && t[end] != '\0' && domain_char(t[end])) ++end;
    while (end > at + 1 && (t[end - 1] == '.' || t[end - 1] == '-')) --end;
    const std::string local = t.substr(begin, at - begin);
    const std::string domain = t.substr(at + 1, end - at - 1);
    if (std::none_of(local.begin(), local.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; })) {
      continue;
    }
    const size_t dot = domain.rfind('.');
    if (dot == std::string::npos || dot == 0 || domain.front() == '.' ||
        domain.find("..") != std::string::npos) {
      continue;
    }
    const std::string tld = domain.substr(dot + 1);
    if (tld.size() < 2 || !std::all_of(tld.begin(), tld.end(), [](char c) {
          return std::isalpha(static_cast<unsigned char>(c)) != 0;
        })) {
      continue;
    }
    found.push_back({begin, end - begin});
  }
  return found;
}

}  // namespace

std::vector<std::string> privacy_problems(const std::string& text) {
  using Scanner = std::vector<Finding> (*)(const std::string&);
  static const std::pair<const char*, Scanner> kinds[] = {
      {"an absolute path of the machine", machine_paths},
      {"a GPU UUID", gpu_uuids},
      {"a MAC address", mac_addresses},
      {"an IPv4 address", ipv4_addresses},
      {"an e-mail address", email_addresses},
  };
  std::vector<std::string> problems;
  for (const auto& [what, scan] : kinds) {
    const std::vector<Finding> found = scan(text);
    if (found.empty()) continue;
    const Finding& first = found.front();
    const long line = line_of(text, first.pos);
    std::string shown = text.substr(first.pos, std::min<size_t>(first.len, 80));
    std::string p = std::string(what) + " on line " + std::to_string(line) + ": " + shown;
    if (found.size() > 1) p += " (" + std::to_string(found.size()) + " in all)";
    problems.push_back(p);
  }
  return problems;
}

MachineDetails this_machine() {
  const kd::MachineStrings strings = kd::machine_strings();
  MachineDetails machine;
  if (!strings.home.empty()) machine.paths.push_back(strings.home);
  if (!strings.host.empty()) machine.names.push_back(strings.host);
  if (!strings.user.empty()) machine.names.push_back(strings.user);
  return machine;
}

std::vector<std::string> machine_problems(const std::string& text, const MachineDetails& machine) {
  std::vector<std::string> problems = privacy_problems(text);
  auto report = [&](const std::string& what, const std::string& needle, bool whole_word) {
    size_t first = std::string::npos, count = 0;
    for (size_t pos = text.find(needle); pos != std::string::npos;
         pos = text.find(needle, pos + 1)) {
      if (whole_word) {
        auto part_of_name = [](char c) { return is_word(c) || c == '-' || c == '.'; };
        const bool joined_before = pos > 0 && part_of_name(text[pos - 1]);
        const char after = char_at(text, pos + needle.size());
        // A full stop ends a sentence as often as it joins a name: only a
        // dot followed by more of a name ("vm.example") joins.
        const bool joined_after = (is_word(after) || after == '-') ||
                                  (after == '.' && is_word(char_at(text, pos + needle.size() + 1)));
        if (joined_before || joined_after) continue;
      }
      if (count++ == 0) first = pos;
    }
    if (count == 0) return;
    const long line = line_of(text, first);
    std::string p = what + " \"" + needle + "\" on line " + std::to_string(line);
    if (count > 1) p += " (" + std::to_string(count) + " in all)";
    problems.push_back(p);
  };
  for (const std::string& path : machine.paths) {
    if (path.size() > 1) report("the machine's folder", path, false);
  }
  for (const std::string& name : machine.names) {
    if (!name.empty()) report("the machine's name", name, true);
  }
  return problems;
}

std::vector<Problem> check_published_folder(const std::string& dir,
                                                    const MachineDetails& machine,
                                                    std::vector<std::string>& binary,
                                                    size_t& scanned) {
  std::vector<Problem> problems;
  const fs::path root(dir);
  auto shown = [&](const fs::path& relative) { return (root / relative).generic_string(); };
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    problems.push_back({dir, "is not a folder"});
    return problems;
  }
  const std::vector<fs::path> files =
      plain_files(root, "is a link into the machine; publish plain files", problems);
  for (const fs::path& relative : files) {
    const fs::path path = root / relative;
    // The whole file, however large: a secret past any limit would go unseen.
    const auto text = kd::read_file(path.string(), std::numeric_limits<std::size_t>::max());
    if (!text) {
      problems.push_back({shown(relative), "cannot be read"});
      continue;
    }
    if (text->find('\0') != std::string::npos) {
      binary.push_back(shown(relative));
      continue;
    }
    ++scanned;
    for (const auto& p : machine_problems(*text, machine)) problems.push_back({shown(relative), p});
  }
  return problems;
}

}  // namespace kd::published
