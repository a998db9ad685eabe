#include "expectations.hpp"

#include <limits.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <sstream>

#include "contract/report_rules.hpp"
#include "util/files.hpp"
#include "util/machine.hpp"
#include "util/signals.hpp"
#include "util/text.hpp"
#include "runner.hpp"

namespace kdh {
namespace {

// The end of a stream, quoted for a failure message.
std::string quoted_tail(std::string_view text, size_t lines) {
  return kd::prefix_lines(kd::tail_lines(text, lines), "  | ");
}

// Strings a report may never carry, beyond the case's canaries.
std::vector<std::pair<std::string, std::string>> forbidden_strings(const CaseRun& run) {
  std::vector<std::pair<std::string, std::string>> out = run.canaries;
  out.emplace_back("the case's folder", run.tmp);
  out.emplace_back("the working directory", run.cwd);
  const std::string& check = runner().check;
  out.emplace_back("the check's path", kd::dirname_of(check));
  out.emplace_back("the fixtures' folder", runner().fixtures_dir);
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) != nullptr && std::string(cwd).size() > 1) {
    out.emplace_back("the suite's working directory", cwd);
  }
  // Searched for anywhere in a report, not as a word: a shorter name turns up by chance.
  const kd::MachineStrings machine = kd::machine_strings();
  if (machine.host.size() >= 6) out.emplace_back("the host name", machine.host);
  if (machine.user.size() >= 5) out.emplace_back("the user name", machine.user);
  return out;
}

// A value shorter than this is not searched for in reports and files: a
// two- or three-letter string turns up in any JSON by chance.
constexpr size_t kMinForbiddenLength = 4;

using Forbidden = std::vector<std::pair<std::string, std::string>>;

// Adds the problems of one copy of the check, each named after that copy.
class CopyJudge {
 public:
  CopyJudge(const Case& c, const CaseRun& run, size_t index, const Forbidden& forbidden,
            std::vector<std::string>& problems)
      : c_(c),
        run_(run),
        copy_(run.copies[index]),
        res_(copy_.result),
        forbidden_(forbidden),
        problems_(problems),
        who_(run.copies.size() > 1 ? "copy " + std::to_string(index) + ": " : "") {}

  void judge() {
    if (!judge_end()) return;
    judge_exit();
    judge_stdout();
    if (c_.report_expected && copy_.report) judge_report(*copy_.report);
    judge_stream_texts();
    judge_time();
    judge_privacy();
  }

 private:
  void problem(const std::string& p) { problems_.push_back(who_ + p); }

  // How the run ended; false when there is nothing more to judge.
  bool judge_end() {
    if (res_.end == kd::RunEnd::SpawnFailed) {
      problem("the check could not be started: " + res_.spawn_error);
      return false;
    }
    if (res_.end == kd::RunEnd::WatchFailed) {
      problem("the suite lost sight of the check (" + res_.watch_error + ") and killed it");
      return false;
    }
    if (res_.end == kd::RunEnd::Deadline) {
      problem("the check did not end within the suite's own limit (" +
              std::to_string(static_cast<int>(res_.elapsed_s)) + " s); the suite killed it");
    }
    return true;
  }

  void judge_exit() {
    if (c_.killed_by_signal) {
      if (!res_.status.signaled || res_.status.signal != *c_.killed_by_signal) {
        problem("expected the check to end by " + kd::signal_name(*c_.killed_by_signal) +
                ", it " + res_.status.describe());
      }
    } else if (res_.status.signaled) {
      problem("the check was " + res_.status.describe());
    }
    if (!res_.status.exited()) return;
    const int code = res_.status.code;
    if (code == 124 || code >= 126) {
      problem("exit code " + std::to_string(code) + " is reserved (124, 126-255 are never outcomes)");
    }
    if (c_.exit_code && *c_.exit_code != code) {
      problem("exit code: expected " + std::to_string(*c_.exit_code) + ", got " +
              std::to_string(code));
    }
  }

  // stdout empty where it must be, a report where one is expected.
  void judge_stdout() {
    const std::string& out = res_.out.data;
    if (c_.report_file && !out.empty()) {
      problem("stdout must be empty (the report is read from " + *c_.report_file + "), it holds " +
              std::to_string(out.size()) + " bytes");
    }
    if (!c_.report_expected) {
      if (!c_.text_stdout && !out.empty()) {
        problem("stdout must be empty, it holds " + std::to_string(out.size()) + " bytes");
      }
    } else if (!copy_.report && !c_.killed_by_signal) {
      problem(copy_.report_error.empty() ? "no report on stdout" : copy_.report_error);
    }
  }

  void judge_stream_texts() {
    for (const auto& text : c_.stdout_contains) {
      if (res_.out.data.find(text) == std::string::npos) problem("stdout lacks \"" + text + "\"");
    }
    for (const auto& text : c_.stderr_contains) {
      if (res_.err.data.find(text) == std::string::npos) problem("stderr lacks \"" + text + "\"");
    }
  }

  void judge_report(const json& report) {
    std::vector<std::string> shape;
    check_report_shape(c_.arguments, report, res_.status.code, res_.status.exited(), shape);
    for (const auto& p : shape) problem(p);
    auto at = [&](const std::string& p) { return value_at(report, p); };
    auto expect = [&](const std::string& pointer, const std::optional<std::string>& value) {
      if (value && at(pointer) != *value) {
        problem(pointer + ": expected \"" + *value + "\", got " + at(pointer).dump());
      }
    };
    expect("/code", c_.code);
    expect("/stage", c_.stage);
    expect("/status", c_.status);
    for (const auto& [pointer, value] : c_.fields) {
      json expected = value;
      if (expected.is_string()) {
        std::string s = expected.get<std::string>();
        kd::replace_all(s, "{gpu_index}", run_.gpu_index);
        kd::replace_all(s, "{probe}", runner().probe_kind);
        expected = s;
      }
      if (at(pointer) != expected) {
        problem(pointer + ": expected " + expected.dump() + ", got " + at(pointer).dump());
      }
    }
    for (const auto& p : c_.not_null) {
      if (at(p).is_null()) problem(p + " must not be null");
    }
    for (const auto& p : c_.is_null) {
      if (!at(p).is_null()) problem(p + " must be null, got " + at(p).dump());
    }
    for (const auto& [p, text] : c_.field_contains) {
      json v = at(p);
      if (!v.is_string() || v.get<std::string>().find(text) == std::string::npos) {
        problem(p + " must contain \"" + text + "\", got " + v.dump());
      }
    }
    for (const auto& [p, text] : c_.field_lacks) {
      json v = at(p);
      if (v.is_string() && v.get<std::string>().find(text) != std::string::npos) {
        problem(p + " must not contain \"" + text + "\", got " + v.dump());
      }
    }
  }

  void judge_time() {
    if (c_.max_seconds && res_.elapsed_s > *c_.max_seconds) {
      problem("took " + std::to_string(res_.elapsed_s).substr(0, 5) + " s, more than the " +
              std::to_string(*c_.max_seconds).substr(0, 5) + " s allowed");
    }
    if (c_.min_seconds && res_.elapsed_s < *c_.min_seconds) {
      problem("took only " + std::to_string(res_.elapsed_s).substr(0, 5) + " s, less than " +
              std::to_string(*c_.min_seconds).substr(0, 5) + " s");
    }
  }

  // Nothing of the machine in the report (and, with canaries, on stderr).
  void judge_privacy() {
    std::string where = res_.out.data;
    if (c_.report_file) where += copy_.report_text;
    for (const auto& text : c_.report_not_contains) {
      if (!text.empty() && where.find(text) != std::string::npos) {
        problem("the report contains \"" + text + "\"");
      }
    }
    for (const auto& [what, value] : forbidden_) {
      if (value.size() < kMinForbiddenLength) continue;
      if (where.find(value) != std::string::npos) {
        problem("the report leaks " + what + " (" + value + ")");
      }
      if (c_.privacy_canaries && res_.err.data.find(value) != std::string::npos) {
        problem("stderr leaks " + what + " (" + value + ")");
      }
    }
  }

  const Case& c_;
  const CaseRun& run_;
  const CopyRun& copy_;
  const kd::RunResult& res_;
  const Forbidden& forbidden_;
  std::vector<std::string>& problems_;
  const std::string who_;
};

// Processes left behind or seen while the check ran.
void judge_processes(const Case& c, const CaseRun& run, std::vector<std::string>& problems) {
  for (const auto& left : run.leftovers) {
    problems.push_back("a process of the check was still running after it ended: " + left);
  }
  for (const auto& p : run.watch_problems) problems.push_back(p);
  if (c.sample_processes && run.watched_workers == 0) {
    problems.push_back("no worker process was ever seen while the check ran");
  }
}

// What the loader's audit saw loaded (Case::no_worker): anything is a worker started.
void judge_worker(const Case& c, const CaseRun& run, std::vector<std::string>& problems) {
  if (!c.no_worker) return;
  std::istringstream lines(kd::read_file(run.tmp + "/" + kWorkerAuditLog).value_or(""));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("open ", 0) != 0) continue;
    problems.push_back("a worker was started: the loader audit saw " + line.substr(5) +
                       " (library, pid) loaded by a process of the check");
    return;
  }
}

void judge_leaks(const std::string& path, const std::string& content, const Forbidden& forbidden,
                 std::vector<std::string>& problems) {
  for (const auto& [what, value] : forbidden) {
    if (value.size() >= kMinForbiddenLength && content.find(value) != std::string::npos) {
      problems.push_back(path + " leaks " + what);
    }
  }
}

// One expected file; adds the top-level name it may create to `expected_new`.
void judge_file(const Case& c, const CaseRun& run, const FileExpect& fe,
                const Forbidden& forbidden, std::set<std::string>& expected_new,
                std::vector<std::string>& problems) {
  const std::string path = run.tmp + "/" + fe.path;
  const std::string top = fe.path.substr(0, fe.path.find('/'));
  switch (fe.kind) {
    case FileExpect::Kind::Absent:
      if (kd::path_exists(path)) problems.push_back(fe.path + " exists but must not");
      return;
    case FileExpect::Kind::IdenticalToStdout: {
      expected_new.insert(top);
      auto file = kd::read_file(path);
      const std::string& out = run.main().result.out.data;
      if (!file) {
        problems.push_back(fe.path + " was not written");
      } else if (*file != out) {
        problems.push_back(fe.path + " differs from stdout (" + std::to_string(file->size()) +
                           " vs " + std::to_string(out.size()) + " bytes)");
      }
      judge_leaks(fe.path, file.value_or(std::string()), forbidden, problems);
      return;
    }
    case FileExpect::Kind::WholeReport: {
      expected_new.insert(top);
      auto file = kd::read_file(path);
      if (!file) {
        problems.push_back(fe.path + " was not written");
      } else if (json::parse(*file, nullptr, false).is_discarded()) {
        problems.push_back(fe.path + " is not one whole JSON document");
      } else {
        judge_leaks(fe.path, *file, forbidden, problems);
      }
      return;
    }
    case FileExpect::Kind::Unchanged: {
      auto content = kd::read_file(path);
      std::string original;
      for (const auto& f : c.files) {
        if (f.path == fe.path) original = f.content;
      }
      if (!content || *content != original) problems.push_back(fe.path + " was changed");
      return;
    }
    case FileExpect::Kind::StillDangling: {
      struct stat st {};
      if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
        problems.push_back(fe.path + " is no longer the dangling symlink it was");
      } else if (stat(path.c_str(), &st) == 0) {
        problems.push_back(fe.path + " now points to a file that was created");
      }
      return;
    }
  }
}

// What must, and what must not, be in the case's folder afterwards.
void judge_files(const Case& c, const CaseRun& run, const Forbidden& forbidden,
                 std::vector<std::string>& problems) {
  std::set<std::string> expected_new;
  for (const auto& fe : c.file_expectations) {
    judge_file(c, run, fe, forbidden, expected_new, problems);
  }
  if (c.file_expectations.empty() && !c.no_new_files) return;
  // Nothing else may appear: no temporary file, no partial report.
  const std::set<std::string> before(run.listing_before.begin(), run.listing_before.end());
  const std::string report = c.report_file ? c.report_file->substr(0, c.report_file->find('/')) : "";
  for (const auto& name : kd::folder_entries(run.tmp)) {
    if (!before.count(name) && !expected_new.count(name) && name != "home" && name != report &&
        run.cwd != run.tmp + "/" + name) {
      problems.push_back("a file was left in the output folder: " + name);
    }
  }
}

}  // namespace

std::vector<std::string> evaluate(const Case& c, const CaseRun& run) {
  std::vector<std::string> problems;
  if (!run.setup_error.empty()) {
    problems.push_back("the case could not be prepared: " + run.setup_error);
    return problems;
  }
  const Forbidden forbidden = forbidden_strings(run);
  for (size_t i = 0; i < run.copies.size(); ++i) {
    CopyJudge(c, run, i, forbidden, problems).judge();
  }
  judge_processes(c, run, problems);
  judge_worker(c, run, problems);
  judge_files(c, run, forbidden, problems);
  if (c.extra) c.extra(run, problems);
  return problems;
}

std::string failure_context(const Case& c, const CaseRun& run,
                            const std::vector<std::string>& problems) {
  std::ostringstream s;
  s << c.layer << "." << c.id << " broke its promise: " << c.promise << "\n";
  for (const auto& p : problems) s << "  - " << p << "\n";
  s << "Runner: " << runner().summary() << "\n";
  s << "Manipulation: ";
  if (run.manipulation.empty()) s << "none (clean environment)";
  for (size_t i = 0; i < run.manipulation.size(); ++i) s << (i ? "; " : "") << run.manipulation[i];
  s << "\n";
  if (run.copies.empty()) return s.str();
  const auto& res = run.main().result;
  s << "Command: " << run.main().command << "\n";
  s << "Ended: " << res.status.describe() << " after " << std::to_string(res.elapsed_s).substr(0, 5)
    << " s\n";
  s << "stderr (end):\n" << (res.err.data.empty() ? "  (empty)\n" : quoted_tail(res.err.data, 15));
  // As the check printed it, in its own key order.
  s << "Report (stdout):\n";
  s << (res.out.data.empty() ? "  (empty)\n" : quoted_tail(res.out.data.substr(0, 16000), 200));
  return s.str();
}

}  // namespace kdh
