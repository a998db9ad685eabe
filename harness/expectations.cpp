#include "expectations.hpp"

#include <gtest/gtest.h>
#include <limits.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "contract.hpp"
#include "util/files.hpp"
#include "util/machine.hpp"
#include "util/signals.hpp"
#include "util/text.hpp"
#include "runner.hpp"

namespace kdh {
namespace {

// error.evidence's keys (CONTRACT.md, "The report"), every one the check may write.
const std::vector<std::string>& evidence_keys() {
  static const std::vector<std::string> keys{
      "/error/evidence",
      "/error/evidence/runtime",
      "/error/evidence/runtime/api",
      "/error/evidence/runtime/error",
      "/error/evidence/runtime/error_name",
      "/error/evidence/runtime/driver_version",
      "/error/evidence/runtime/runtime_version",
      "/error/evidence/driver_library",
      "/error/evidence/kernel_module",
      "/error/evidence/device_nodes",
      "/error/evidence/device_nodes/nvidiactl",
      "/error/evidence/device_nodes/nvidia_uvm",
      "/error/evidence/device_nodes/nvidia_gpus",
      "/error/evidence/device_nodes/nvidia_gpus_accessible",
      "/error/evidence/device_nodes/kfd",
      "/error/evidence/device_nodes/render_nodes",
      "/error/evidence/device_nodes/render_nodes_accessible",
      "/error/evidence/device_nodes/dxg",
      "/error/evidence/visible_devices",
      "/error/evidence/visible_devices/CUDA_VISIBLE_DEVICES",
      "/error/evidence/visible_devices/NVIDIA_VISIBLE_DEVICES",
      "/error/evidence/visible_devices/HIP_VISIBLE_DEVICES",
      "/error/evidence/visible_devices/ROCR_VISIBLE_DEVICES",
      "/error/evidence/library",
      "/error/evidence/library/name",
      "/error/evidence/library/found",
      "/error/evidence/library/machine",
      "/error/evidence/library/size",
      "/error/evidence/library/needed_size",
      "/error/evidence/library/damage",
      "/error/evidence/library/folder",
      "/error/evidence/device_cgroup",
      "/error/evidence/device_cgroup/hierarchy",
      "/error/evidence/device_cgroup/devices_list",
      "/error/evidence/device_cgroup/nvidiactl_refused",
      "/error/evidence/device_cgroup/nvidia_uvm_refused",
      "/error/evidence/device_cgroup/nvidia_gpus_refused",
      "/error/evidence/device_cgroup/kfd_refused",
      "/error/evidence/device_cgroup/render_nodes_refused",
      "/error/evidence/user_namespace",
      "/error/evidence/user_namespace/gid_map",
      "/error/evidence/user_namespace/unmapped_group_nodes",
      "/error/evidence/driver_files",
      "/error/evidence/driver_files/libcuda_so_1",
      "/error/evidence/driver_files/libcuda_file",
      "/error/evidence/driver_files/libcuda_folder",
      "/error/evidence/driver_files/libcuda_version_without_link",
      "/error/evidence/driver_files/libnvidia_ml_so_1",
      "/error/evidence/wsl_kernel",
      "/error/evidence/rocm",
      "/error/evidence/rocm/gfx_target",
      "/error/evidence/rocm/hsa_override_gfx_version",
  };
  return keys;
}

// Keys the check adds to the contract's, all of them harmless.
const std::set<std::string>& allowed_extra_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> extra{
        "/tool/probe",
        "/runtime/check_build/compiler",
        "/runtime/check_build/cxx_standard",
        "/runtime/check_build/build_type",
        "/execution/memory/allocated_bytes",
        "/execution/memory/reserved_bytes",
        "/host/tool",
        "/host/status",
        "/host/driver_version",
        "/host/memory_total_mib",
        "/error/type",
        "/error/message",
    };
    extra.insert(evidence_keys().begin(), evidence_keys().end());
    return extra;
  }();
  return keys;
}

// error.evidence holds fixed words, counts and version tokens only
// (CONTRACT.md, "The report"): a path, a value with spaces or any longer text
// there is a leak, whatever it says.
void check_evidence(const json& evidence, const std::string& where,
                    std::vector<std::string>& problems) {
  if (evidence.is_object()) {
    for (const auto& [key, value] : evidence.items()) check_evidence(value, where + "/" + key, problems);
    return;
  }
  if (!evidence.is_string()) return;
  const std::string& text = evidence.get_ref<const std::string&>();
  bool token = !text.empty() && text.size() <= 64;
  for (char c : text) {
    token = token && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                      c == '-' || c == '+');
  }
  if (!token) problems.push_back(where + " is not a word or version token: " + evidence.dump());
}

std::string show(const json& v) { return v.dump(); }

std::string arg_value(const std::vector<std::string>& args, const std::string& name) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == name) return args[i + 1];
  }
  return {};
}
bool has_arg(const std::vector<std::string>& args, const std::string& name) {
  return std::find(args.begin(), args.end(), name) != args.end();
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

void collect_pointers(const json& value, const std::string& prefix, std::vector<std::string>& out) {
  if (!value.is_object()) return;
  for (const auto& [key, child] : value.items()) {
    out.push_back(prefix + "/" + key);
    collect_pointers(child, prefix + "/" + key, out);
  }
}

// The value at a JSON pointer of a report; null where there is none.
json value_at(const json& report, const std::string& pointer) {
  json::json_pointer ptr(pointer);
  return report.contains(ptr) ? report.at(ptr) : json();
}

// The contract's invariants of every report, whatever the case (given the
// check's arguments): one method per part of the report.
class ReportShape {
 public:
  ReportShape(const std::vector<std::string>& arguments, const json& report,
              std::vector<std::string>& problems)
      : arguments_(arguments), report_(report), problems_(problems) {}

  void check(int exit_code, bool exited) {
    keys();
    const bool passed = outcome(exit_code, exited);
    if (passed) {
      pass();
    } else if (!at("/error").is_object() || !at("/error/message").is_string() ||
               at("/error/message").get<std::string>().empty()) {
      problem("a failure without an error {type, message} saying why");
    }
    if (!at("/message").is_string() || at("/message").get<std::string>().empty()) {
      problem("/message is empty");
    }
    const std::string device = requested();
    device_mode(device);
    check_evidence(at("/error/evidence"), "/error/evidence", problems_);
  }

 private:
  void problem(std::string p) { problems_.push_back(std::move(p)); }

  json at(const std::string& p) const { return value_at(report_, p); }

  // Every key of the contract, and no other.
  void keys() {
    for (const auto& key : contract_report_keys()) {
      if (!report_.contains(json::json_pointer(key))) problem("report lacks " + key);
    }
    std::vector<std::string> pointers;
    collect_pointers(report_, "", pointers);
    std::set<std::string> known(contract_report_keys().begin(), contract_report_keys().end());
    for (const auto& p : pointers) {
      if (!known.count(p) && !allowed_extra_keys().count(p)) {
        problem("report has a key the contract does not know: " + p);
      }
    }
  }

  // Schema, tool, code, exit code, status and stage agree with the contract
  // and the process; true for a pass.
  bool outcome(int exit_code, bool exited) {
    if (at("/schema_version") != 1) problem("/schema_version is not 1");
    if (at("/tool/name") != "kernodeck-diagnostic") problem("/tool/name is wrong");
    const json code = at("/code");
    const int contract_exit =
        code.is_string() ? contract_exit_code(code.get<std::string>()).value_or(-1) : -1;
    if (contract_exit < 0) {
      problem("/code " + show(code) + " is not an outcome of the contract");
    } else if (exited && contract_exit != exit_code) {
      problem("/code " + show(code) + " must exit " + std::to_string(contract_exit) +
              ", the process exited " + std::to_string(exit_code));
    }
    if (exited && at("/exit_code") != exit_code) {
      problem("/exit_code " + show(at("/exit_code")) + " differs from the process's " +
              std::to_string(exit_code));
    }
    const bool passed = contract_exit == 0;
    if (at("/status") != (passed ? "passed" : "failed")) {
      problem("/status " + show(at("/status")) + " does not match code " + show(code));
    }
    const json stage = at("/stage");
    if (!stage.is_string() || !is_contract_stage(stage.get<std::string>())) {
      problem("/stage " + show(stage) + " is not a stage of the contract");
    }
    return passed;
  }

  // A pass is complete, names its GPU, carries no error and shows the
  // verified computation.
  void pass() {
    if (at("/stage") != "complete") problem("a pass must be at stage complete");
    if (at("/code") == "GPU_CHECK_PASSED") {
      for (const char* p : {"/execution/device_name", "/execution/capability"}) {
        if (!at(p).is_string() || at(p).get<std::string>().empty()) {
          problem(std::string("a GPU pass must name its GPU: ") + p + " is " + show(at(p)));
        }
      }
    }
    if (!at("/error").is_null()) problem("a pass carries an error: " + show(at("/error")));
    if (at("/execution/product_verified") != true || at("/execution/gradient_verified") != true ||
        at("/execution/loss") != kContractLoss) {
      problem("a pass without a verified product, gradient and loss " + show(kContractLoss));
    }
  }

  // `requested` says what was asked, as given; returns the device asked.
  std::string requested() {
    const auto& a = arguments_;
    std::string device = has_arg(a, "--device") ? arg_value(a, "--device") : "cuda";
    if (at("/requested/device") != device) {
      problem("/requested/device " + show(at("/requested/device")) + " but " + device +
              " was asked");
    }
    if (at("/requested/host_check") != has_arg(a, "--host-check")) {
      problem("/requested/host_check does not reflect --host-check");
    }
    if (at("/output/requested") != has_arg(a, "--output")) {
      problem("/output/requested does not reflect --output");
    }
    if (!has_arg(a, "--host-check") && !at("/host").is_null()) {
      problem("/host is not null although --host-check was not given");
    }
    if (has_arg(a, "--host-check")) {
      static const std::set<std::string> statuses{"ok", "not_found", "timeout", "failed"};
      json st = at("/host/status");
      if (!st.is_string() || !statuses.count(st.get<std::string>())) {
        problem("/host/status " + show(st) + " is not ok/not_found/timeout/failed");
      }
    }
    return device;
  }

  // Where it ran, and the GPU facts, as the device asked allows.
  void device_mode(const std::string& device) {
    if (device != "cpu") {
      // A device that is not text is no GPU either; judged here, not thrown.
      const json ran = at("/execution/device");
      if (!ran.is_null() &&
          !(ran.is_string() && ran.get<std::string>().rfind("cuda:", 0) == 0)) {
        problem("asked for a GPU, ran on " + show(ran) + ": never silently the CPU");
      }
      return;
    }
    // CPU mode asks nothing of the GPU driver: "not asked" is null, never 0/false.
    for (const char* p : {"/pytorch/gpu_available", "/pytorch/visible_device_count"}) {
      if (!at(p).is_null()) problem(std::string(p) + " must be null in CPU mode");
    }
    if (!at("/execution/device").is_null() && at("/execution/device") != "cpu") {
      problem("asked for the CPU, ran on " + show(at("/execution/device")));
    }
    // The CPU has no GPU model or capability: null, never a made-up value.
    for (const char* p : {"/execution/device_name", "/execution/capability"}) {
      if (!at(p).is_null()) problem(std::string(p) + " must be null in CPU mode");
    }
  }

  const std::vector<std::string>& arguments_;
  const json& report_;
  std::vector<std::string>& problems_;
};

void check_report_shape(const std::vector<std::string>& arguments, const json& report,
                        int exit_code, bool exited, std::vector<std::string>& problems) {
  ReportShape(arguments, report, problems).check(exit_code, exited);
}

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
        problem(pointer + ": expected \"" + *value + "\", got " + show(at(pointer)));
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
        problem(pointer + ": expected " + show(expected) + ", got " + show(at(pointer)));
      }
    }
    for (const auto& p : c_.not_null) {
      if (at(p).is_null()) problem(p + " must not be null");
    }
    for (const auto& p : c_.is_null) {
      if (!at(p).is_null()) problem(p + " must be null, got " + show(at(p)));
    }
    for (const auto& [p, text] : c_.field_contains) {
      json v = at(p);
      if (!v.is_string() || v.get<std::string>().find(text) == std::string::npos) {
        problem(p + " must contain \"" + text + "\", got " + show(v));
      }
    }
    for (const auto& [p, text] : c_.field_lacks) {
      json v = at(p);
      if (v.is_string() && v.get<std::string>().find(text) != std::string::npos) {
        problem(p + " must not contain \"" + text + "\", got " + show(v));
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
      if (path_exists(path)) problems.push_back(fe.path + " exists but must not");
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

std::vector<std::string> report_problems(const json& report, const std::vector<std::string>& args,
                                         std::optional<int> exit_code) {
  std::vector<std::string> problems;
  try {
    check_report_shape(args, report, exit_code.value_or(-1), exit_code.has_value(), problems);
    if (!exit_code && report.is_object()) {
      // No process to compare with: the report's own exit_code against its code.
      const json own = report.value("exit_code", json());
      const json code = report.value("code", json());
      const int expected =
          code.is_string() ? contract_exit_code(code.get<std::string>()).value_or(-1) : -1;
      if (!own.is_null() && !own.is_number_integer()) {
        problems.push_back("/exit_code " + show(own) + " is not an integer");
      } else if (expected >= 0 && own.is_number_integer() && own != expected) {
        problems.push_back("/exit_code " + show(own) + " but /code " + show(code) + " must exit " +
                           std::to_string(expected));
      }
    }
  } catch (const json::exception& e) {
    // A field of the wrong type stops the judging; the report does not hold.
    problems.push_back(std::string("the report could not be judged: ") + e.what());
  }
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

void run_and_check(const Case& c) {
  if (auto unmet = unmet_requirements(c)) {
    if (unmet->fatal) {
      FAIL() << c.layer << "." << c.id << " cannot run, and this runner declared a GPU "
             << "(KERNODECK_EXPECT_GPU=1): " << unmet->reason;
    }
    GTEST_SKIP() << unmet->reason;
  }
  CaseRun run = run_case(c);
  std::vector<std::string> problems = evaluate(c, run);
  if (!problems.empty()) ADD_FAILURE() << failure_context(c, run, problems);
  cleanup(run);
}

}  // namespace kdh
