// Covers sanitize.hpp: what text from outside may look like once it enters a report.
#include "facts/sanitize.hpp"

#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace kd {
namespace {

// True when `s` is well-formed UTF-8 (no cut sequence at the end).
bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

TEST(CutPaths, KeepsOnlyTheLastComponent) {
  EXPECT_EQ(cut_paths("/a/b/libc10.so:"), "libc10.so:");
  EXPECT_EQ(cut_paths("error loading /opt/libtorch/lib/libtorch_cuda.so now"),
            "error loading libtorch_cuda.so now");
  EXPECT_EQ(cut_paths("in '/home/alice/x.py' (line 3)"), "in 'x.py' (line 3)");
  EXPECT_EQ(cut_paths("key=/etc/secret/file"), "key=file");
  EXPECT_EQ(cut_paths("relative/path/name.txt"), "name.txt");
}

TEST(CutPaths, AFolderKeepsItsOwnName) {
  EXPECT_EQ(cut_paths("/var/lib/data/"), "data");
  EXPECT_EQ(cut_paths("see /tmp/ now"), "see tmp now");
}

// The CUDA runtime's own words for error 803 must reach the report whole.
TEST(CutPaths, ALoneSlashIsNoPath) {
  EXPECT_EQ(cut_paths("system has unsupported display driver / cuda driver combination"),
            "system has unsupported display driver / cuda driver combination");
  EXPECT_EQ(cut_paths("a // b"), "a // b");
  EXPECT_EQ(cut_paths("see / and /etc/secret"), "see / and secret");
  Sanitizer s({});
  EXPECT_EQ(s.message("cudaErrorSystemDriverMismatch (803): system has unsupported display "
                      "driver / cuda driver combination"),
            "cudaErrorSystemDriverMismatch (803): system has unsupported display driver / cuda "
            "driver combination");
}

TEST(CutPaths, TextWithoutSlashIsUnchanged) {
  EXPECT_EQ(cut_paths(""), "");
  EXPECT_EQ(cut_paths("CUDA error: out of memory"), "CUDA error: out of memory");
  EXPECT_EQ(cut_paths("  spaced\ttext  "), "  spaced\ttext  ");
}

TEST(SanitizerMessage, KeepsTheFirstNonEmptyLine) {
  Sanitizer s({});
  EXPECT_EQ(s.message("first line\nsecond line\nthird"), "first line");
  EXPECT_EQ(s.message("\n  \n\t\r\nreal line\nnext"), "real line");
  EXPECT_EQ(s.message("only line"), "only line");
  EXPECT_EQ(s.message(""), "");
  EXPECT_EQ(s.message("\n\n \n"), "");
}

TEST(SanitizerMessage, DropsControlCharactersAndTrims) {
  Sanitizer s({});
  EXPECT_EQ(s.message("a\x01\x1b[31mred\x7f end\r"), "a[31mred end");
  EXPECT_EQ(s.message("tab\tseparated"), "tab separated");
  EXPECT_EQ(s.message("   padded   "), "padded");
}

TEST(SanitizerMessage, CutsPaths) {
  Sanitizer s({});
  std::string m = s.message(
      "/usr/local/lib/libkernodeck_probe_torch.so: libc10.so: cannot open shared object file");
  EXPECT_EQ(m, "libkernodeck_probe_torch.so: libc10.so: cannot open shared object file");
  EXPECT_EQ(m.find('/'), std::string::npos);
}

TEST(SanitizerMessage, RedactsSecretsLongestFirst) {
  Sanitizer s({"token", "token-12345"});
  EXPECT_EQ(s.message("auth token-12345 failed"), "auth <redacted> failed");
  EXPECT_EQ(s.message("token and token"), "<redacted> and <redacted>");
}

TEST(Sanitizer, KeepsEachSecretOnceLongestFirst) {
  // Duplicates of the same length as other secrets, not side by side.
  Sanitizer s({"abcdef", "ghijkl", "abcdef", "longer-secret", "ghijkl", "mnopqr"});
  EXPECT_EQ(s.secrets(),
            (std::vector<std::string>{"longer-secret", "abcdef", "ghijkl", "mnopqr"}));
}

TEST(SanitizerMessage, ASecretPathIsRedactedNotJustCut) {
  Sanitizer s({"/home/alice-smith"});
  std::string m = s.message("cannot read /home/alice-smith/models/x.pt");
  EXPECT_EQ(m.find("alice-smith"), std::string::npos) << m;
  EXPECT_EQ(m.find("/home"), std::string::npos) << m;
  // The folders go with the path; the file name stays.
  EXPECT_EQ(m, "cannot read x.pt");
}

TEST(SanitizerMessage, ASecretInsideTheLastComponentIsStillRedacted) {
  Sanitizer s({"hostname-42"});
  std::string m = s.message("failed on /var/run/hostname-42.sock");
  EXPECT_EQ(m.find("hostname-42"), std::string::npos) << m;
  // Redacting must not split the path: no folder name survives.
  EXPECT_EQ(m, "failed on <redacted>.sock");
}

TEST(SanitizerMessage, ASecretThatSpellsPartOfTheStandInNeverComesOut) {
  // An upper-case name as short as a host or user name, and a secret that only the stand-in
  // for a redaction spells: the message is one clean stand-in, and neither secret shows.
  Sanitizer s({"RED", "ACTEDK"});
  std::string m = s.message("RED");
  EXPECT_EQ(m, "<redacted>");
  EXPECT_EQ(m.find("ACTEDK"), std::string::npos) << m;
}

TEST(SanitizerMessage, IsBoundedInLength) {
  Sanitizer s({});
  std::string long_text(5000, 'x');
  std::string m = s.message(long_text);
  EXPECT_LE(m.size(), Sanitizer::kMaxMessage);
  EXPECT_EQ(m.substr(m.size() - 3), "...");
  EXPECT_EQ(s.message(std::string(Sanitizer::kMaxMessage, 'y')),
            std::string(Sanitizer::kMaxMessage, 'y'));
}

TEST(SanitizerMessage, NeverCutsInsideAUtf8Sequence) {
  Sanitizer s({});
  std::string accents;
  for (int i = 0; i < 300; ++i) accents += "\xc3\xa9";  // é
  for (const std::string& text : {accents, "x" + accents, "xx" + accents}) {
    std::string m = s.message(text);
    EXPECT_LE(m.size(), Sanitizer::kMaxMessage);
    EXPECT_TRUE(valid_utf8(m)) << m;
  }
  std::string euro;
  for (int i = 0; i < 200; ++i) euro += "\xe2\x82\xac";  // €
  EXPECT_TRUE(valid_utf8(s.message(euro)));
}

// A cut that would fall inside a stand-in cuts before it: a message never ends in "<redac...".
TEST(SanitizerMessage, NeverCutsInsideAStandIn) {
  Sanitizer s({"sec"});
  for (size_t lead = 220; lead < 240; ++lead) {
    std::string m = s.message(std::string(lead, 'x') + "sec" + std::string(40, 'y'));
    ASSERT_LE(m.size(), Sanitizer::kMaxMessage);
    ASSERT_EQ(m.substr(m.size() - 3), "...");
    const std::string kept = m.substr(0, m.size() - 3);
    const size_t partial = kept.rfind('<');
    EXPECT_TRUE(partial == std::string::npos || kept.compare(partial, 10, "<redacted>") == 0)
        << m;
  }
}

TEST(SanitizerForThisProcess, RedactsEnvironmentValues) {
  const char* name = "KD_UNIT_TEST_SECRET";
  const std::string value = "zq-secret-value-8472";
  ASSERT_EQ(setenv(name, value.c_str(), 1), 0);
  Sanitizer s = Sanitizer::for_this_process();
  unsetenv(name);
  std::string m = s.message("the value is " + value + " here");
  EXPECT_EQ(m.find(value), std::string::npos) << m;
  EXPECT_NE(m.find("<redacted>"), std::string::npos) << m;
}

TEST(SanitizerForThisProcess, RedactsEachElementOfAPathList) {
  const char* name = "KD_UNIT_TEST_LIST";
  ASSERT_EQ(setenv(name, "/opt/first-element:/srv/second-element", 1), 0);
  Sanitizer s = Sanitizer::for_this_process();
  unsetenv(name);
  std::string m = s.message("missing /srv/second-element/libx.so");
  EXPECT_EQ(m.find("second-element"), std::string::npos) << m;
}

TEST(SanitizerForThisProcess, RedactsTheWorkingDirectory) {
  char cwd[PATH_MAX];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  if (std::string(cwd) == "/") GTEST_SKIP() << "the working directory is /";
  Sanitizer s = Sanitizer::for_this_process();
  std::string m = s.message(std::string("in ") + cwd + " something");
  EXPECT_EQ(m.find(cwd), std::string::npos) << m;
  // Cutting the path alone would leave its last component; redaction does not.
  EXPECT_NE(m.find("<redacted>"), std::string::npos) << m;
}

TEST(SanitizerForThisProcess, LeavesOrdinaryWordsAlone) {
  Sanitizer s = Sanitizer::for_this_process();
  // Short environment values (like "1" or "C") must not mangle words.
  EXPECT_EQ(s.message("CUDA error: out of memory"), "CUDA error: out of memory");
}

TEST(SanitizerToken, KeepsVersionLikeText) {
  EXPECT_EQ(Sanitizer::token("2.3.1+cu121"), "2.3.1+cu121");
  EXPECT_EQ(Sanitizer::token("  12.1\n"), "12.1");
  EXPECT_EQ(Sanitizer::token("6.0.32830-d62f6a171"), "6.0.32830-d62f6a171");
  EXPECT_EQ(Sanitizer::token("1.13.0a0_git"), "1.13.0a0_git");
}

TEST(SanitizerToken, RejectsAnythingElse) {
  EXPECT_EQ(Sanitizer::token(""), "");
  EXPECT_EQ(Sanitizer::token("   "), "");
  EXPECT_EQ(Sanitizer::token("2.1 beta"), "");
  EXPECT_EQ(Sanitizer::token("/usr/lib/libtorch.so"), "");
  EXPECT_EQ(Sanitizer::token("1.0;rm -rf"), "");
  EXPECT_EQ(Sanitizer::token("v\x01"), "");
  EXPECT_EQ(Sanitizer::token(std::string(49, '1')), "");
  EXPECT_EQ(Sanitizer::token(std::string(48, '1')), std::string(48, '1'));
}

// What kernodeck-junit publish writes: each detail as its stand-in, the rest of the text whole.
TEST(SanitizerRedact, EachSecretBecomesItsStandInAndNothingElseChanges) {
  const Sanitizer s = Sanitizer::with_stand_ins({{"/srv/ci/checkout/", ""},
                                                 {"/srv/ci/checkout", ".", true},
                                                 {"/tmp", "<tmp>", true},
                                                 {"gpu-node-7", "<redacted>", true}});
  EXPECT_EQ(
      s.redact("/srv/ci/checkout/suites/a.cpp:12\nran /tmp/kd-case-1/out.json on gpu-node-7."),
      "suites/a.cpp:12\nran <tmp>/kd-case-1/out.json on <redacted>.");
  EXPECT_EQ(s.redact("cd /srv/ci/checkout; ls"), "cd .; ls");
  // Not these folders or this name: a longer folder, a longer name, JSON pointers, system tools.
  EXPECT_EQ(s.redact("/srv/ci/checkout2 /tmpfs gpu-node-77 /execution/device /usr/bin/env"),
            "/srv/ci/checkout2 /tmpfs gpu-node-77 /execution/device /usr/bin/env");
}

TEST(SanitizerRedact, ANameIsReplacedAsAWholeWordOnlyWhereItAsksForIt) {
  const Sanitizer s = Sanitizer::with_stand_ins({{"vm", "<redacted>", true}, {"token9", "<t>"}});
  EXPECT_EQ(s.redact("vm kvm vm-2 (vm) mytoken9x"), "<redacted> kvm vm-2 (<redacted>) my<t>x");
  // message() shows every secret as "<redacted>" and keeps its own shape.
  EXPECT_EQ(s.message("on vm, not kvm; mytoken9x\nsecond"),
            "on <redacted>, not kvm; my<redacted>x");
}

}  // namespace
}  // namespace kd
