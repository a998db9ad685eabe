#include "junit_verdict.hpp"

#include "junit_text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <set>
#include <utility>

#include "util/text.hpp"

namespace kd::junit {
namespace {

// ---- GoogleTest's words ---------------------------------------------------------------------

inline constexpr std::size_t kTailLines = 60;

// Whole seconds print without a fraction so that "TIMEOUT of 2 s" reads as the user wrote it.
std::string format_limit(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", seconds);
  return buffer;
}

// Where GoogleTest says an assertion or a skip is ("path:42" in a record, "path:42: Failure" or
// "path:42: Skipped" on the console): "path:42", which says nothing about why, so summaries skip
// it; nullopt for any other line.
std::optional<std::string_view> location(std::string_view line) {
  for (std::string_view suffix : {": Failure", ": Skipped"}) {
    if (line.size() > suffix.size() &&
        line.substr(line.size() - suffix.size()) == suffix) {
      line.remove_suffix(suffix.size());
      break;
    }
  }
  std::size_t colon = line.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == line.size()) return {};
  if (line.find(' ') != std::string_view::npos) return {};
  if (!std::all_of(line.begin() + static_cast<std::ptrdiff_t>(colon) + 1, line.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
    return {};
  return line;
}

std::string last_nonempty_line(std::string_view text) {
  text = trim(text);
  return std::string(trim(text.substr(text.rfind('\n') + 1)));  // npos + 1 is 0
}

// Cut at a character boundary so that the result stays valid UTF-8.
std::string cut(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "...";
}

// A skip's reason without GoogleTest's location line, on one line.
std::string skip_reason(std::string_view text) {
  std::string reason;
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line.empty() || location(line)) continue;
    if (!reason.empty()) reason += ' ';
    reason += line;
  }
  return reason;
}

// The skip GoogleTest printed on the console, from its "path:42: Skipped" line up to
// "[  SKIPPED ]"; empty when the output holds none. Serves the gtest programs that write no record.
std::string console_skip_text(std::string_view output) {
  constexpr std::string_view kSkipped = ": Skipped";
  std::string text;
  for (std::string_view line : split_lines(output)) {
    if (!text.empty() && line.rfind("[  SKIPPED ]", 0) == 0) return text;
    const std::string_view t = trim(line);
    if (!text.empty() || (t.size() > kSkipped.size() &&
                          t.substr(t.size() - kSkipped.size()) == kSkipped && location(t)))
      text += std::string(line) + "\n";
  }
  return "";
}

// ---- verdicts --------------------------------------------------------------------------------

bool is_skip_reason(const std::string& reason) {
  return reason.rfind("SKIP_RETURN_CODE=", 0) == 0 || reason == "SKIP_REGULAR_EXPRESSION_MATCHED";
}

std::string output_section(const std::string& output) {
  if (trim(output).empty()) return "The test printed nothing.";
  return "Last lines of its output:\n" + kd::tail_lines(output, kTailLines);
}

struct Draft {
  ReportCase report;
  std::string long_name;  // the whole GoogleTest test name, used when case ids collide
};

// The verdict of one CTest case, weighed with the case's own record of it: one
// method per CTest status. Each returns whether the case's output goes into
// the report's system-out.
class Decision {
 public:
  Decision(const CtestCase& c, const CaseRecords& records, const TestInfo* info)
      : c_(c), info_(info) {
    gtest_name_ = info && !info->gtest_name.empty() ? info->gtest_name : c.name;
    // The records folder is emptied where every run starts (ci/common.sh, the conformance
    // fixture's start): a record found is this run's.
    const auto found = records.find(gtest_name_);
    const CaseRecord* record = found == records.end() ? nullptr : &found->second;
    if (record) {
      r_.declared = record->declared();
      r_.promise = record->promise;
    }
    // The verdict, when the case recorded one.
    g_ = record && record->ended ? record : nullptr;
    is_gtest_ = record || (info && info->gtest);
    limit_ = info ? info->timeout : std::nullopt;
    // CTest kills at the limit and measures a little more; a few hundredths of slack.
    timed_out_ = c.status == CtestStatus::Failed && limit_ && *limit_ > 0 &&
                 c.time + 0.05 >= *limit_;
    limit_text_ = limit_ ? "CTest's TIMEOUT of " + format_limit(*limit_) + " s" : "";
  }

  Draft decide() {
    r_.time = c_.time;
    name_case();
    bool with_output = false;
    switch (c_.status) {
      case CtestStatus::Started: with_output = started(); break;
      case CtestStatus::Disabled: with_output = disabled(); break;
      case CtestStatus::NotRun: with_output = not_run(); break;
      case CtestStatus::Passed: with_output = passed(); break;
      case CtestStatus::Failed: with_output = failed(); break;
    }
    if (with_output) r_.system_out = kd::tail_lines(c_.output, kTailLines);
    if (r_.verdict != Verdict::Passed) reason_first();
    return {r_, long_name_};
  }

 private:
  // "<suite>.<case>" as classname and name; a value-parameterized case is
  // "<TEST_P name>/<param name>", and the param name is the case id.
  void name_case() {
    const std::string& full = is_gtest_ ? gtest_name_ : c_.name;
    const std::size_t dot = full.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == full.size()) {
      r_.classname = "ctest";
      r_.name = full;
    } else {
      r_.classname = full.substr(0, dot);
      r_.name = full.substr(dot + 1);
    }
    long_name_ = r_.name;
    // Also without evidence of GoogleTest: a test CTest could not start has no record and may
    // have no command either, yet must keep the name its layer's other cases have.
    const std::size_t slash = r_.name.rfind('/');
    if (slash != std::string::npos && slash + 1 < r_.name.size()) {
      r_.name = r_.name.substr(slash + 1);
    }
  }

  // A skip's, failure's or error's body as a reviewer reads it: its reason first, then where it
  // was found, and last where GoogleTest says the case is declared.
  void reason_first() {
    if (r_.body.substr(0, r_.body.find('\n')) != r_.message)
      r_.body = r_.message + (r_.body.empty() ? "" : "\n" + r_.body);
    if (r_.declared.empty()) return;
    if (!r_.body.empty() && r_.body.back() != '\n') r_.body += '\n';
    r_.body += kDeclaredPrefix + r_.declared;
  }

  bool has_failures() const { return g_ && !g_->failures.empty(); }

  // ---- one method per CTest status ----

  bool started() {
    if (has_failures()) return fail_with_assertions("");
    if (g_) {
      if (g_->skipped) skip_as_recorded(g_->skip);
      return false;
    }
    r_.verdict = Verdict::Error;
    r_.type = "crash";
    r_.message = "the case started but GoogleTest recorded no verdict: the test program "
                 "crashed, was killed or was stopped by a timeout";
    r_.body = r_.message +
              "\nNo CTest output exists for it in this report; rerun the case with "
              "`ctest --output-on-failure -R` to see it.";
    return true;
  }

  bool disabled() {
    r_.verdict = Verdict::Skipped;
    r_.message = "disabled in CTest (DISABLED property)";
    return false;
  }

  bool not_run() {
    // A failed assertion is never shown as a skip, whatever CTest's skip regex matched.
    if (has_failures()) {
      return fail_with_assertions("CTest reported the test as not run (" + c_.reason +
                                  ") although GoogleTest recorded failed assertions.");
    }
    if (is_skip_reason(c_.reason)) {
      // GoogleTest's reason: from the case's record, else from what it printed (the unit tests
      // and the self-test write no record).
      const std::string console_skip = g_ ? "" : console_skip_text(c_.output);
      if (g_ && g_->skipped) {
        skip_as_recorded(g_->skip);
      } else if (!skip_reason(console_skip).empty()) {
        skip_as_recorded(console_skip);
      } else {
        r_.verdict = Verdict::Skipped;
        const std::string last = last_nonempty_line(c_.output);
        r_.message = c_.reason + (last.empty() ? "" : ": " + last);
      }
      return false;
    }
    r_.verdict = Verdict::Error;
    r_.type = "not-run";
    r_.message =
        "CTest did not run the test: " + (c_.reason.empty() ? "no reason given" : c_.reason);
    r_.body = r_.message + "\n" + output_section(c_.output);
    return true;
  }

  bool passed() {
    if (has_failures() && !(info_ && info_->will_fail)) {
      return fail_with_assertions("CTest reported the test as passed although GoogleTest "
                                  "recorded failed assertions; the program's exit status "
                                  "hides them.");
    }
    // No SKIP_REGULAR_EXPRESSION on this test: CTest saw exit status 0.
    if (g_ && g_->skipped) skip_as_recorded(g_->skip);
    return false;
  }

  bool failed() {
    if (has_failures()) {
      return fail_with_assertions(timed_out_ ? "Afterwards the program was stopped by " +
                                                   limit_text_ + " after " +
                                                   format_seconds(c_.time) + " s."
                                             : "");
    }
    r_.verdict = Verdict::Error;
    std::string extra_note;
    if (g_) {
      failed_after_its_verdict();
    } else if (is_gtest_) {
      extra_note = died_before_its_verdict();
    } else if (timed_out_) {
      r_.type = "timeout";
      r_.message = "stopped by " + limit_text_ + " after " + format_seconds(c_.time) + " s";
    } else {
      r_.verdict = Verdict::Failure;
      r_.type = "exit-status";
      const std::string last = last_nonempty_line(c_.output);
      r_.message = "failed (CTest)" + (last.empty() ? std::string() : ": " + cut(last, 200));
    }
    const std::string ctest_note = c_.reason.empty() ? "" : "CTest: " + c_.reason + "\n";
    r_.body = r_.message + "\n" + ctest_note + extra_note + output_section(c_.output);
    return true;
  }

  // ---- the ways a case fails ----

  // GoogleTest recorded a pass or a skip, yet CTest says the program failed.
  void failed_after_its_verdict() {
    const std::string recorded =
        g_->skipped ? "GoogleTest recorded the case as skipped (" + skip_reason(g_->skip) + ")"
                    : "GoogleTest recorded the case as passed";
    if (timed_out_) {
      r_.type = "timeout";
      r_.message = recorded + ", but the program was then stopped by " + limit_text_ +
                   ": it hung after its assertions";
    } else {
      r_.type = "abnormal-exit";
      r_.message = recorded +
                   ", but CTest reports the test as failed: the program exited abnormally "
                   "after its assertions (non-zero exit status, crash at exit or killed)";
    }
  }

  // A GoogleTest program that ended before recording a verdict; returns a
  // note for the body, if any.
  std::string died_before_its_verdict() {
    if (timed_out_) {
      r_.type = "timeout";
      r_.message = "stopped by " + limit_text_ + " after " + format_seconds(c_.time) +
                   " s, before GoogleTest recorded a verdict";
      return "";
    }
    r_.type = "crash";
    r_.message = "the test program crashed or was killed after " + format_seconds(c_.time) +
                 " s, before GoogleTest recorded a verdict";
    if (limit_) return "";
    return "The test has no TIMEOUT property: a CTest-wide timeout (ctest --timeout) may also "
           "have stopped it.\n";
  }

  // The skip GoogleTest recorded (the record's skip, or the same read from its console),
  // with its reason.
  void skip_as_recorded(const std::string& skip_text) {
    r_.verdict = Verdict::Skipped;
    r_.message = skip_reason(skip_text);
    if (r_.message.empty()) r_.message = "skipped by the test (no reason given)";
    // The reason first, then where GoogleTest recorded the skip.
    r_.body = r_.message;
    for (std::string_view line : split_lines(skip_text)) {
      line = trim(line);
      if (const auto at = location(line)) r_.body += "\nSkipped at " + std::string(*at);
    }
  }

  bool fail_with_assertions(const std::string& extra) {
    r_.verdict = Verdict::Failure;
    r_.type = "assertion";
    r_.message = headline(g_->failures.front());
    std::string body;
    for (const std::string& text : g_->failures) {
      if (!body.empty()) body += "\n\n";
      body += text;
    }
    r_.body = body + (extra.empty() ? "" : "\n\n" + extra);
    return true;
  }

  const CtestCase& c_;
  const TestInfo* info_;
  std::string gtest_name_;
  const CaseRecord* g_ = nullptr;  // the record of a case that recorded its verdict
  bool is_gtest_ = false;
  std::optional<double> limit_;
  bool timed_out_ = false;
  std::string limit_text_;
  ReportCase r_;
  std::string long_name_;
};

}  // namespace

std::string headline(std::string_view text) {
  std::string_view first_nonempty;
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line.empty()) continue;
    if (first_nonempty.empty()) first_nonempty = line;
    if (location(line) || line == "Failed") continue;
    return cut(line, 200);
  }
  return cut(first_nonempty, 200);
}

Report convert(const CtestRun& run, const CaseRecords& records,
               const std::map<std::string, TestInfo>& infos, const std::string& title) {
  std::vector<Draft> drafts;
  drafts.reserve(run.cases.size());
  for (const CtestCase& c : run.cases) {
    auto it = infos.find(c.name);
    drafts.push_back(Decision(c, records, it == infos.end() ? nullptr : &it->second).decide());
  }

  // Two TEST_Ps of one layer may share a param name; their cases keep the whole test name.
  std::map<std::pair<std::string, std::string>, int> uses;
  for (const Draft& d : drafts) ++uses[{d.report.classname, d.report.name}];
  for (Draft& d : drafts) {
    if (uses[{d.report.classname, d.report.name}] > 1) d.report.name = d.long_name;
  }

  Report report;
  report.title = title;
  std::map<std::string, std::size_t> suite_of;
  double total = 0;
  for (Draft& d : drafts) {
    total += d.report.time;
    auto [it, inserted] = suite_of.emplace(d.report.classname, report.suites.size());
    if (inserted) report.suites.push_back(ReportSuite{d.report.classname, {}});
    report.suites[it->second].cases.push_back(std::move(d.report));
  }
  report.time = run.time > 0 ? run.time : total;
  return report;
}

}  // namespace kd::junit
