#include "facts/sanitize.hpp"

#include <limits.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "util/text.hpp"

extern char** environ;

namespace kd {
namespace {

constexpr size_t kMinSecretLength = 6;

bool is_separator(char c) {
  return c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '`' || c == '(' || c == ')' ||
         c == '[' || c == ']' || c == '{' || c == '}' || c == '<' || c == '>' || c == ',' ||
         c == ';' || c == '=';
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// Each place `secret` stands in `text` (at word boundaries where it asks for them) replaced.
void replace_secret(std::string& text, const Secret& secret, std::string_view with) {
  const std::string& s = secret.text;
  for (size_t pos = text.find(s); pos != std::string::npos; pos = text.find(s, pos)) {
    const size_t end = pos + s.size();
    const bool joined = secret.whole_word &&
                        ((is_name_char(s.front()) && pos > 0 && is_name_char(text[pos - 1])) ||
                         (is_name_char(s.back()) && end < text.size() && is_name_char(text[end])));
    if (joined) {
      ++pos;
      continue;
    }
    text.replace(pos, s.size(), with);
    pos += with.size();
  }
}

void add_secret(std::vector<std::string>& secrets, std::string value) {
  // A bare "/" or a short value would blank out ordinary words.
  if (value.size() >= kMinSecretLength || (value.size() >= 2 && value[0] == '/')) {
    secrets.push_back(std::move(value));
  }
}

}  // namespace

Sanitizer::Sanitizer(std::vector<std::string> secrets) {
  for (std::string& text : secrets) secrets_.push_back(Secret{std::move(text)});
  keep_each_once();
}

Sanitizer Sanitizer::with_stand_ins(std::vector<Secret> secrets) {
  Sanitizer s({});
  s.secrets_ = std::move(secrets);
  s.keep_each_once();
  return s;
}

void Sanitizer::keep_each_once() {
  secrets_.erase(std::remove_if(secrets_.begin(), secrets_.end(),
                                [](const Secret& s) { return s.text.empty(); }),
                 secrets_.end());
  // Longest first, and equal strings side by side, so that std::unique sees
  // every duplicate (it only removes neighbours).
  std::sort(secrets_.begin(), secrets_.end(), [](const Secret& a, const Secret& b) {
    return a.text.size() != b.text.size() ? a.text.size() > b.text.size() : a.text < b.text;
  });
  secrets_.erase(std::unique(secrets_.begin(), secrets_.end(),
                             [](const Secret& a, const Secret& b) { return a.text == b.text; }),
                 secrets_.end());
}

std::vector<std::string> Sanitizer::secrets() const {
  std::vector<std::string> texts;
  for (const Secret& s : secrets_) texts.push_back(s.text);
  return texts;
}

std::string Sanitizer::redact(std::string_view text) const {
  std::string out(text);
  for (const Secret& secret : secrets_) replace_secret(out, secret, secret.stand_in);
  return out;
}

Sanitizer Sanitizer::for_this_process() {
  std::vector<std::string> secrets;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view kv(*entry);
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view value = kv.substr(eq + 1);
    // PATH-like lists: each element on its own, then the whole.
    size_t start = 0;
    while (start <= value.size()) {
      size_t colon = value.find(':', start);
      if (colon == std::string_view::npos) colon = value.size();
      add_secret(secrets, std::string(value.substr(start, colon - start)));
      start = colon + 1;
    }
    add_secret(secrets, std::string(value));
  }
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) == 0) secrets.emplace_back(host);
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr) {
    if (pw->pw_name != nullptr) secrets.emplace_back(pw->pw_name);
    if (pw->pw_dir != nullptr) add_secret(secrets, pw->pw_dir);
  }
  char cwd[PATH_MAX] = {};
  if (getcwd(cwd, sizeof cwd) != nullptr) add_secret(secrets, cwd);
  char exe[PATH_MAX] = {};
  if (ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1); n > 0) {
    add_secret(secrets, std::string(exe, static_cast<size_t>(n)));
  }
  // Names shorter than the minimum still matter when they are whole words,
  // but a one-letter host or user name would mangle every message: skip those.
  secrets.erase(std::remove_if(secrets.begin(), secrets.end(),
                               [](const std::string& s) { return s.size() < 3; }),
                secrets.end());
  return Sanitizer(std::move(secrets));
}

std::string cut_paths(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  size_t i = 0;
  while (i < line.size()) {
    if (is_separator(line[i])) {
      out.push_back(line[i++]);
      continue;
    }
    size_t end = i;
    while (end < line.size() && !is_separator(line[end])) ++end;
    std::string_view word = line.substr(i, end - i);
    size_t slash = word.rfind('/');
    // A word of slashes alone names no path: "display driver / cuda driver".
    if (slash == std::string_view::npos || word.find_first_not_of('/') == std::string_view::npos) {
      out.append(word);
    } else {
      std::string_view tail = word.substr(slash + 1);
      // "/dir/" names a folder: keep its own name, not an empty tail.
      if (tail.empty()) {
        std::string_view trimmed = word.substr(0, slash);
        size_t prev = trimmed.rfind('/');
        tail = prev == std::string_view::npos ? trimmed : trimmed.substr(prev + 1);
      }
      out.append(tail);
    }
    i = end;
  }
  return out;
}

std::string Sanitizer::message(std::string_view text) const {
  // First non-empty line.
  std::string_view line;
  for (std::string_view candidate : split_lines(text)) {
    if (candidate.find_first_not_of(" \t\r") != std::string_view::npos) {
      line = candidate;
      break;
    }
  }
  std::string clean;
  clean.reserve(line.size());
  for (char c : line) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u == '\t') {
      clean.push_back(' ');
    } else if (u >= 0x20 && u != 0x7f) {
      clean.push_back(c);
    }
  }
  // Secrets first (a secret may itself be a path), then whatever paths
  // remain. The stand-in has no separator, so a path holding a secret is
  // still one word when its folders are cut; and it is a control character,
  // which `clean` no longer holds, so no secret can spell a part of it.
  constexpr std::string_view kMark = "\x01";
  for (const Secret& secret : secrets_) replace_secret(clean, secret, kMark);
  clean = cut_paths(clean);
  for (const Secret& secret : secrets_) replace_secret(clean, secret, kMark);
  constexpr std::string_view kStandIn = "<redacted>";
  replace_all(clean, kMark, kStandIn);
  // Spaces are the only white space left in `clean`.
  clean = std::string(trim(clean));
  if (clean.size() > kMaxMessage) {
    size_t cut = kMaxMessage - 3;
    // Do not split a UTF-8 sequence.
    while (cut > 0 && (static_cast<unsigned char>(clean[cut]) & 0xC0) == 0x80) --cut;
    // Nor a stand-in: one the cut would split goes whole (its "red" could read as a secret's).
    const size_t stand_in = clean.rfind(kStandIn, cut);
    if (stand_in != std::string::npos && stand_in < cut && stand_in + kStandIn.size() > cut) {
      cut = stand_in;
    }
    clean = clean.substr(0, cut) + "...";
  }
  return clean;
}

std::string Sanitizer::token(std::string_view text) {
  size_t b = text.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = text.find_last_not_of(" \t\r\n");
  std::string_view t = text.substr(b, e - b + 1);
  if (t.size() > 48) return {};
  for (char c : t) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '.' || c == '+' || c == '_' || c == '-';
    if (!ok) return {};
  }
  return std::string(t);
}

std::string Sanitizer::specifier(std::string_view text) {
  if (text.size() > 64) return {};
  for (char c : text) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    std::string_view(".*+!=<>~,_-").find(c) != std::string_view::npos;
    if (!ok) return {};
  }
  return std::string(text);
}

}  // namespace kd
