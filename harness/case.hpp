// A conformance case as data: what to change in the environment, which
// arguments to give, what the runner must have, and what must come out.
// Cases are built with a small fluent builder so the tables in suites/ read
// like the contract:
//
//   Case("existing_file_untouched")
//       .guards("an existing file is never overwritten")
//       .args({"--device", "cpu", "--output", "{tmp}/report.json"})
//       .file("report.json", "precious")
//       .outcome("OUTPUT_WRITE_FAILED", "output")  // exit 12, its code and stage
//       .expect_file(FileExpect::Kind::Unchanged, "report.json");
//
// A case's layer is not written in the table: KERNODECK_LAYER (layer_test.hpp)
// gives it to every case of the suite it registers.
//
// Placeholders in arguments, variables and paths: {tmp} is the case's own
// fresh folder, {fixtures} the folder of the built fixtures, {python} the
// interpreter the python probe runs (python3 where there is none). In an expected
// field's text: {gpu_index}, the GPU the case was given, and {probe}, the kind
// of probe that serves the certified check ("libtorch", "stable_abi" or "python").
#pragma once

#include <sys/resource.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "requirements.hpp"

namespace kdh {

using nlohmann::json;

// Where a case is written: the constructor's default records its caller's file and line, so
// the case's record and GoogleTest's listing point at its own declaration. A helper that makes
// cases takes a `Where where = Where::here()` of its own and passes it on, so that its cases point
// at their call.
struct Where {
  const char* file;
  int line;
  static Where here(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return {file, line};
  }
};

struct FileSetup {
  enum class Kind { Regular, DanglingSymlink, Directory } kind = Kind::Regular;
  std::string path;  // relative to {tmp}
  std::string content;
};

struct FileExpect {
  // WholeReport: one whole JSON document, whatever stdout got (stdout may
  // have failed).
  enum class Kind { Absent, IdenticalToStdout, WholeReport, Unchanged, StillDangling } kind;
  std::string path;  // relative to {tmp}
};

// Where the check's stdout goes: the harness's capture (the report is read
// from it), or a destination the case chose.
struct StdoutTarget {
  enum class Kind {
    Capture,     // a pipe the harness reads
    File,        // `path` opened for writing ({tmp} expands): /dev/full, a file
    ReaderGone,  // a pipe whose reading end is already closed (EPIPE on write)
  } kind = Kind::Capture;
  std::string path;
};

struct CaseRun;  // run_case.hpp

struct Case {
  explicit Case(std::string id, Where where = Where::here());

  // identity
  std::string id;     // [A-Za-z0-9_], the test name
  Where where;        // its declaration
  std::string layer;  // the suite, the JUnit classname: set once, by KERNODECK_LAYER
  std::string promise;

  // manipulation
  std::vector<std::string> arguments;
  std::map<std::string, std::string> set_env;
  std::vector<std::string> unset_env;
  std::optional<std::string> fault;         // KERNODECK_FAULT for the fault probe
  std::optional<std::string> probe_module;  // KERNODECK_PROBE_MODULE
  std::vector<FileSetup> files;
  std::vector<std::pair<int, rlim_t>> limits;       // (RLIMIT_*, soft and hard value)
  StdoutTarget stdout_target;
  std::optional<std::pair<double, int>> signal_at;  // (seconds, signal) to the check
  std::vector<std::string> wrapper;                 // argv run before the check's own
  std::string cwd;                                  // relative to {tmp}; empty: {tmp}
  int parallel = 1;                                 // run this many copies at once
  bool sample_processes = false;                    // watch the check's processes while it runs
  std::string described_manipulation;               // extra words for the failure context
  // Prepares what files cannot express; returns "" or why it could not.
  std::function<std::string(const std::string& tmp)> setup;

  // requirements (requirements.hpp): declared here, probed and judged by the registry
  std::vector<Requirement> requirements;
  std::optional<long long> needs_gpu_index;  // skip unless this index is visible

  // expectations
  std::optional<int> exit_code;
  std::optional<int> killed_by_signal;
  std::optional<std::string> code, stage, status;
  bool report_expected = true;  // false: stdout must be empty (unless text_stdout)
  bool text_stdout = false;     // stdout is text for people (--help, --version)
  // The report is read from this file ({tmp}-relative) instead of stdout, which
  // must then be empty: for a case whose stdout goes elsewhere.
  std::optional<std::string> report_file;
  std::vector<std::pair<std::string, json>> fields;  // JSON pointer -> value
  std::vector<std::string> not_null, is_null;
  // (pointer, text): a string field that must / must not contain the text.
  std::vector<std::pair<std::string, std::string>> field_contains, field_lacks;
  std::vector<std::string> stdout_contains, stderr_contains;
  std::vector<std::string> report_not_contains;  // besides the privacy canaries
  std::vector<FileExpect> file_expectations;
  bool no_new_files = false;  // nothing may appear in {tmp} but the expected files
  // No process of the check may load a probe module or libtorch (that is, start a worker): the
  // loader's own audit (fixtures/load_audit.c) watches every process of the check.
  bool no_worker = false;
  std::optional<double> max_seconds, min_seconds;
  bool privacy_canaries = false;
  std::function<void(const CaseRun&, std::vector<std::string>& problems)> extra;

  // builder
  Case& guards(std::string text);
  Case& args(std::vector<std::string> a);
  Case& env(const std::string& name, const std::string& value);
  Case& unset(const std::string& name);
  Case& with_fault(std::string spec);
  Case& with_probe(std::string path);
  Case& file(std::string path, std::string content);
  Case& dangling_symlink(std::string path);
  Case& directory(std::string path);
  Case& limit_file_size(rlim_t bytes);
  Case& limit(int resource, rlim_t value);
  Case& stdout_to(std::string path);
  Case& stdout_to_gone_reader();
  Case& send_signal(double seconds, int signal);
  Case& wrap(std::vector<std::string> argv, std::string description);
  Case& prepare(std::function<std::string(const std::string& tmp)> step, std::string description);
  Case& in_folder(std::string relative);
  Case& copies(int n);
  Case& watch_processes();
  Case& needs(Requirement requirement);
  Case& needs_index(long long index);  // a GPU, and this index among the visible ones
  Case& expect_exit(int code);
  Case& expect_killed_by(int signal);
  Case& expect_code(std::string code);
  Case& expect_stage(std::string stage);
  Case& expect_field(std::string pointer, json value);
  Case& expect_not_null(std::string pointer);
  Case& expect_null(std::string pointer);
  Case& expect_field_contains(std::string pointer, std::string text);
  Case& expect_field_lacks(std::string pointer, std::string text);
  Case& expect_stdout_contains(std::string text);
  Case& expect_stderr_contains(std::string text);
  Case& expect_report_lacks(std::string text);
  Case& expect_no_report();
  Case& expect_text_stdout();
  Case& expect_report_in(std::string path);
  Case& expect_no_new_files();
  Case& expect_no_worker();
  Case& expect_file(FileExpect::Kind kind, std::string path);
  Case& within(double seconds);
  Case& at_least(double seconds);
  Case& with_privacy_canaries();
  Case& also(std::function<void(const CaseRun&, std::vector<std::string>&)> check);

  // Adds words to the manipulation shown in a failure.
  void describe(const std::string& words);

  // A usage error: exit 2, a message on stderr, nothing on stdout.
  Case& usage_error(std::string stderr_text);
  // An outcome of the contract's table: exit code, code and stage together.
  Case& outcome(const std::string& code, const std::string& stage);
};

// gtest prints parameters with this; keeps CTest names free of raw bytes.
void PrintTo(const Case& c, std::ostream* os);

// `cases`, each in `layer`: how a suite registers its table once.
std::vector<Case> in_layer(const std::string& layer, std::vector<Case> cases);

}  // namespace kdh
