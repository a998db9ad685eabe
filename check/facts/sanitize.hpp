// Makes text from outside the check (library errors, loader messages, tool
// output) safe to put in a report: one line, short, no paths of the machine,
// no value of its environment, no host or user name.
//
//   Sanitizer s = Sanitizer::for_this_process();
//   report["error"]["message"] = s.message(exception_text);
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kd {

class Sanitizer {
 public:
  // Secrets are whole strings that must never appear, longest first.
  explicit Sanitizer(std::vector<std::string> secrets);

  // Collects this process's sensitive strings: every environment value of
  // 6 characters or more, host name, user name, home, working directory and
  // the check's own path.
  static Sanitizer for_this_process();

  // The first non-empty line, each path cut to its last component, secrets
  // replaced by "<redacted>", control characters dropped, at most
  // kMaxMessage characters.
  std::string message(std::string_view text) const;

  // A version-like token ("2.3.1+cu121"): kept only if it is made of
  // [0-9A-Za-z.+_-] and is short; otherwise empty.
  static std::string token(std::string_view text);

  // A version specifier of a distribution's requirement ("==2.9.1", ">=5.3.0,!=8.3.*"): kept
  // only if it is made of [0-9A-Za-z.*+!=<>~,_-] and is short; otherwise empty.
  static std::string specifier(std::string_view text);

  static constexpr size_t kMaxMessage = 240;

  // The secrets it redacts: longest first, each once.
  const std::vector<std::string>& secrets() const { return secrets_; }

 private:
  std::vector<std::string> secrets_;
};

// "/a/b/libc10.so:" -> "libc10.so:"; text without '/' is returned unchanged,
// and so is a word of slashes alone ("display driver / cuda driver").
std::string cut_paths(std::string_view line);

}  // namespace kd
