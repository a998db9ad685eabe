// Turns CTest's JUnit file plus GoogleTest's per-test XML into one JUnit report that validates
// against junit-10.xsd and shows each case as layer / case id with its real verdict.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kd::junit {

// Any input that cannot be read or understood; main() turns it into a non-zero exit.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- CTest's own JUnit (ctest --output-junit) -------------------------------------------------

// Started: no CTest verdict exists (a run converted by its own cleanup test, which reads only
// GoogleTest's XML and the marks of the cases that started, see run_from_started).
enum class CtestStatus { Passed, Failed, NotRun, Disabled, Started };

struct CtestCase {
  std::string name;    // the CTest test name, e.g. "cli.run/usage_unknown_option"
  CtestStatus status = CtestStatus::Failed;
  std::string reason;  // CTest's skipped/failure message: why it did not run, or empty
  double time = 0;     // seconds, as CTest measured the process
  std::string output;  // what CTest captured from the process
};

struct CtestRun {
  std::string timestamp;  // when the run started, local time, "YYYY-MM-DDTHH:MM:SS"
  double time = 0;
  std::vector<CtestCase> cases;
};

CtestRun parse_ctest_junit(const std::string& xml);

// ---- GoogleTest's XML (--gtest_output=xml) ----------------------------------------------------

struct GtestCase {
  std::string suite;  // e.g. "cli"
  std::string name;   // e.g. "run/usage_unknown_option"
  bool skipped = false;
  std::vector<std::string> failures;  // full text of each failed assertion
  std::string skip_text;
  std::string timestamp;  // when the case started, local time; may be empty
  std::string source;     // the file it came from, for messages
  double time = 0;        // seconds, as GoogleTest measured the case
  // What the case guards: from GoogleTest's value_param, which the harness prints as
  // "<layer>.<id> guards: <promise>" (harness/case.cpp, PrintTo); empty for other tests.
  std::string promise;

  std::string full_name() const { return suite + "." + name; }
};

std::vector<GtestCase> parse_gtest_xml(const std::string& xml, const std::string& source);

// Files are found by what they contain, not by their names: GoogleTest derives the name from
// the test name, which holds a '/' for parameterized cases and so lands in a subfolder.
class GtestIndex {
 public:
  // Where two files describe the same case (an older build layout left behind), the most
  // recent one wins.
  void add(GtestCase c);
  const GtestCase* find(const std::string& full_name) const;
  std::size_t size() const { return cases_.size(); }
  const std::map<std::string, GtestCase>& cases() const { return cases_; }

 private:
  std::map<std::string, GtestCase> cases_;
};

// Unreadable or foreign XML files are reported through `warnings` and otherwise ignored: a
// half-written file from a killed process must not stop the report.
GtestIndex load_gtest_dir(const std::filesystem::path& dir, std::vector<std::string>& warnings);

// ---- A run without CTest's JUnit --------------------------------------------------------------

// What a conformance program leaves beside GoogleTest's XML file when a case starts (see
// harness/started_mark.cpp): "<xml file>.started", holding the case's full GoogleTest name.
inline constexpr const char* kStartedSuffix = ".started";

// The run as the cases themselves recorded it, for the cleanup test of a plain `ctest` run,
// which cannot see CTest's selection: every case that left a ".started" mark or a verdict in
// `dir` (emptied when the run began), in name order, each Started with GoogleTest's time:
// convert() takes the verdict from GoogleTest's XML, and reports a case that started and
// wrote none (crashed, killed, timed out) as an error.
CtestRun run_from_started(const std::filesystem::path& dir, const GtestIndex& gtest,
                          std::vector<std::string>& warnings);

// ---- ctest --show-only=json-v1 -----------------------------------------------------------------

struct TestInfo {
  bool gtest = false;
  std::string gtest_name;  // the --gtest_filter value when it names exactly one test
  std::optional<double> timeout;
  bool will_fail = false;
};

std::map<std::string, TestInfo> parse_ctest_tests_json(const std::string& json);

// ---- The report ------------------------------------------------------------------------------

enum class Verdict { Passed, Failure, Error, Skipped };

struct ReportCase {
  std::string classname;  // the layer (GoogleTest suite); written as "kernodeck.<layer>"
  std::string name;       // the case id
  double time = 0;
  Verdict verdict = Verdict::Passed;
  std::string type;     // failure / error kind: assertion, exit-status, crash, timeout, ...
  std::string message;  // one line
  std::string body;     // the full text a reviewer reads
  std::string system_out;
  // What the case guards (GtestCase::promise); written as the first line of <system-out>,
  // "Promise: <promise>", for every verdict, so that a dashboard and the HTML page show it.
  std::string promise = {};
};

// The first line of a case's <system-out> that states its promise.
inline constexpr const char* kPromisePrefix = "Promise: ";

struct ReportSuite {
  std::string name;
  std::vector<ReportCase> cases;
};

struct Counts {
  std::size_t tests = 0, passed = 0, failures = 0, errors = 0, skipped = 0;
  // Counts one more case with this verdict.
  void add(Verdict verdict);
};

// The property that names the build variant of every suite, when the report has one.
inline constexpr const char* kVariantProperty = "kernodeck.variant";

// Every case's classname is this prefix and its layer: "kernodeck.device".
inline constexpr const char* kClassPrefix = "kernodeck.";

// ---- What a run certified --------------------------------------------------------------------

// What the check's own reports of a run (the suite's reports/<variant>/cases/*.json) say about
// what was certified and on what. Facts about the machine come only from reports the real
// probe made (tool.probe "libtorch"): the fault-injecting probe's are simulations. A fact no
// report tells stays "unknown"; one the reports tell is absent says so ("none", "not asked").
struct Certificate {
  std::string check_version = "unknown";  // tool.version
  std::string commit = "unknown";         // given by the caller (--commit): reports carry none
  std::string libtorch_version = "unknown";
  std::string backend = "unknown";
  std::string cuda_version = "unknown";
  std::string hip_version = "unknown";
  std::string gpu_model = "none";       // execution.device_name of the real GPU passes
  std::string gpu_capability = "none";  // execution.capability of the real GPU passes
  std::string gpu_count = "unknown";    // GPUs seen by the real GPU cases
  std::string driver_version = "not asked";  // host.driver_version from the real host check
  std::string gpu_declared = "not said";     // did the runner declare a GPU (--gpu-declared)
  std::size_t reports = 0;       // reports read
  std::size_t real_reports = 0;  // of which the real probe made
};

// Reads every *.json of `dir` (not recursive). Unreadable or foreign files are reported through
// `warnings` and otherwise ignored. A missing folder is an InputError.
Certificate read_case_reports(const std::filesystem::path& dir, std::vector<std::string>& warnings);

// The certificate's facts as (name, value) pairs, in the order dashboards show them.
std::vector<std::pair<std::string, std::string>> certificate_properties(const Certificate& c,
                                                                        const std::string& variant);

// Where paths in the report's text are made relative or anonymous.
struct PathScrub {
  std::filesystem::path source_root;  // a path under it becomes relative to it
  // Other prefixes (a temporary folder, a build tree elsewhere) and what replaces them.
  std::vector<std::pair<std::string, std::string>> prefixes;
};

// Absolute paths in `text`: under the source root, relative to it; one that ends in a file of
// the source root (GoogleTest's file of a build made elsewhere), that file's relative path;
// under a given prefix, the prefix replaced. Other text is left as it is.
std::string scrub_paths(std::string_view text, const PathScrub& scrub);

// "suites/device_cases.cpp:95" where `Case("<id>"` is declared in the source root's suites/,
// or empty.
std::string case_declaration(const std::filesystem::path& source_root, const std::string& id);

struct Report {
  std::string title;
  double time = 0;
  std::vector<ReportSuite> suites;
  // The build variant (e.g. which libtorch) when several are certified side by side; empty
  // when there is only one. With a variant, each suite is written as "<layer> [<variant>]" and
  // carries the property kernodeck.variant, while each case keeps the layer as its classname
  // and its case id as its name, so that the same case reads the same in every variant.
  std::string variant;
  // With a certificate, every suite carries its facts as properties, and a first suite
  // "certificate" holds one case that states the certificate in plain words: it passes when no
  // case failed or erred, and fails otherwise.
  std::optional<Certificate> certificate;

  Counts counts() const;
};

// The certificate in plain words, a few lines; `counts` are those of the layers' cases.
std::string certificate_text(const Report& report, const Counts& counts);

// Makes paths relative or anonymous in every text of the report, puts each skip's, failure's
// and error's reason first in its body, and adds where the case is declared after it.
void localize(Report& report, const PathScrub& scrub);

// Adds the certificate's suite (see Report::certificate); call last, after localize.
void add_certificate_case(Report& report);

// A Markdown summary of a report write_junit or merge_reports wrote: the certificate of each
// run and a table of the failures, errors and skips with their reasons.
std::string summary_markdown(const std::string& junit_xml);

// ---- The HTML certificate --------------------------------------------------------------------

// `text` with & < > " ' as character references.
std::string html_escape(std::string_view text);

// Each *.json of `dir` (the check's own reports, "<layer>.<case id>.json"), keyed by its name
// without ".json", with its paths made relative or anonymous. A missing folder gives none.
std::map<std::string, std::string> read_case_json(const std::filesystem::path& dir,
                                                  const PathScrub& scrub);

// One self-contained HTML page (no script, no other file) of a report write_junit or
// merge_reports wrote: the counts and the environment at the top, the four layers of the
// contract (import, backend, device, compute) as a ladder with their state, then every case by
// layer with its promise (read from the source root's suites/, when given), its verdict, its
// skip reason or failure, and its JSON report in <details>: from `case_json`, keyed
// "<variant>/<layer>.<id>" for a case of a variant (a merged report), else "<layer>.<id>".
// For tests: <main id="certificate"> carries data-tests, data-passed, data-failed,
// data-errors and data-skipped (of every case in the report, the certificate's own included,
// as summary_line counts them); the facts are rows of <table id="environment">.
// A page of many machines (kernodeck-junit --fleet) gives `parts`: a view shown above the
// environment, and its own ladder (<ol id="ladder">) in place of the one counted from the
// cases, whose classnames there name nodes, not layers.
struct PageParts {
  std::string before_environment;
  std::string ladder;
};
std::string certificate_html(const std::string& junit_xml,
                             const std::map<std::string, std::string>& case_json,
                             const std::filesystem::path& source_root,
                             const PageParts& parts = {});

// `infos` may be empty (no --ctest-tests): gtest tests are then recognised by their XML or by
// GoogleTest's banner in the captured output, and a timeout cannot be told from a crash.
Report convert(const CtestRun& run, const GtestIndex& gtest,
               const std::map<std::string, TestInfo>& infos, const std::string& title);

std::string write_junit(const Report& report);

// "<layer> [<variant>]", or the layer alone without a variant.
std::string suite_name(const std::string& layer, const std::string& variant);

std::string summary_line(const Counts& counts);

// ---- Merging reports -------------------------------------------------------------------------

struct MergeInput {
  std::string source;  // where the report came from, for messages
  std::string xml;     // a report write_junit wrote
};

struct Merged {
  std::string xml;
  Counts counts;
  std::vector<std::string> warnings;  // e.g. a suite name that two inputs share
};

// One report holding the <testsuite> elements of every input, in the order given, unchanged;
// the root's counts and time are the sums of the inputs'. An input that is not such a report
// (not XML, another root, counts that disagree with its cases, elements or attributes
// junit-10.xsd does not allow) is an InputError naming its source.
Merged merge_reports(const std::vector<MergeInput>& inputs, const std::string& title);

// ---- Text helpers, exposed for their tests ----------------------------------------------------

// Valid UTF-8 with only the characters XML 1.0 allows; anything else becomes visible text.
std::string xml_safe(std::string_view text);

// The last `lines` lines, with a note of how many were left out.
std::string tail_lines(std::string_view text, std::size_t lines);

// One line for a message attribute: the first line of an assertion that says something (not
// GoogleTest's "file:line" or "Failed"), cut to a readable length.
std::string headline(std::string_view text);

inline constexpr std::size_t kTailLines = 60;

}  // namespace kd::junit
