// The one privacy rule: a detail of the machine (a path of it, a value of its environment, its
// host or user name) never reaches what is reported or published; each is replaced. The check
// applies it to text from outside (library errors, loader messages, tool output) with message():
// one line, short, paths cut to their last component. kernodeck-junit publish applies it with
// redact() to every text it publishes, each detail shown as its stand-in ("<tmp>", a path made
// relative to the source root).
//
//   Sanitizer s = Sanitizer::for_this_process();
//   report["error"]["message"] = s.message(exception_text);
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kd {

// A detail of the machine and what stands in its place.
struct Secret {
  std::string text;
  std::string stand_in = "<redacted>";
  // Matched only where no letter, digit, '_' or '-' stands against a letter or digit of it at its
  // ends: a host name "vm" is not taken out of "kvm", nor a folder "/tmp" out of "/tmpfs".
  bool whole_word = false;
};

class Sanitizer {
 public:
  // Secrets are whole strings that must never appear, longest first.
  explicit Sanitizer(std::vector<std::string> secrets);
  // Secrets each with its own stand-in and match.
  static Sanitizer with_stand_ins(std::vector<Secret> secrets);

  // Collects this process's sensitive strings: every environment value of
  // 6 characters or more, host name, user name, home, working directory and
  // the check's own path.
  static Sanitizer for_this_process();

  // The first non-empty line, each path cut to its last component, secrets
  // replaced by "<redacted>", control characters dropped, at most
  // kMaxMessage characters.
  std::string message(std::string_view text) const;

  // Every secret of a whole text replaced by its stand-in, longest first; nothing else changes
  // (lines, paths and length stay): what kernodeck-junit publish writes.
  std::string redact(std::string_view text) const;

  // A version-like token ("2.3.1+cu121"): kept only if it is made of
  // [0-9A-Za-z.+_-] and is short; otherwise empty.
  static std::string token(std::string_view text);

  // A version specifier of a distribution's requirement ("==2.9.1", ">=5.3.0,!=8.3.*"): kept
  // only if it is made of [0-9A-Za-z.*+!=<>~,_-] and is short; otherwise empty.
  static std::string specifier(std::string_view text);

  static constexpr size_t kMaxMessage = 240;

  // The secrets it redacts: longest first, each once.
  std::vector<std::string> secrets() const;

 private:
  // Drops empty secrets and repeats; the longest first.
  void keep_each_once();

  std::vector<Secret> secrets_;
};

// "/a/b/libc10.so:" -> "libc10.so:"; text without '/' is returned unchanged,
// and so is a word of slashes alone ("display driver / cuda driver").
std::string cut_paths(std::string_view line);

}  // namespace kd
