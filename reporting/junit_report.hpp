// The run's results as one model: suites of cases, each with its verdict and the text a reviewer
// reads, the run's certificate, and a fleet's view. The converter (junit_verdict), the fleet
// (fleet) and the reader of a written report (junit_xml, for merging) make one; junit.xml
// (junit_xml), summary.md (summary) and index.html (html_page) are all rendered from it.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kd::junit {

// Any input that cannot be read or understood; main() turns it into a non-zero exit.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Verdict { Passed, Failure, Error, Skipped };

// How the summary and the page say a verdict: "passed", "failed", "error", "skipped".
const char* verdict_word(Verdict verdict);

struct ReportCase {
  std::string classname;  // the layer (GoogleTest suite); written as "kernodeck.<layer>"
  std::string name;       // the case id
  double time = 0;
  Verdict verdict = Verdict::Passed;
  std::string type;     // failure / error kind: assertion, exit-status, crash, timeout, ...
  std::string message;  // one line
  std::string body;     // the full text a reviewer reads
  std::string system_out;
  // What the case guards (its record's promise, contract/case_record.hpp); written as the first
  // line of <system-out>, "Promise: <promise>", for every verdict, so that a dashboard and the
  // HTML page show it.
  std::string promise = {};
  // Where GoogleTest says the case is declared, "<file>:<line>" (its record's file and line);
  // empty when the record has none. convert() adds "Case declared at <it>" to the body of
  // each skip, failure and error.
  std::string declared = {};
  // What the check noticed without failing, as its report of the case says (its `warnings`), one
  // line each, "<type> (<stage>): <message>": written after the promise and the declaration in
  // <system-out>, "Warning: <line>", whatever the verdict, which they never change.
  std::vector<std::string> warnings = {};
};

// The first line of a case's <system-out> that states its promise.
inline constexpr const char* kPromisePrefix = "Promise: ";

// The lines of a case's <system-out> after its promise and declaration, one per warning.
inline constexpr const char* kWarningPrefix = "Warning: ";

// The line convert() ends a skip's, failure's or error's body with.
inline constexpr const char* kDeclaredPrefix = "Case declared at ";

struct ReportSuite {
  std::string name;  // the layer (a fleet's: the node); written as "<name> [<variant>]"
  std::vector<ReportCase> cases;
  // Set by seal() (or read from a written report): the suite's variant and its properties
  // (the certificate's facts, kernodeck.variant among them), and its time when read.
  std::string variant = {};
  std::vector<std::pair<std::string, std::string>> properties = {};
  std::optional<double> time = {};
};

// The layers of the contract, bottom up, in the order the check walks them (its stages before
// output and complete): each needs the one below to hold. The one list the page's ladder and the
// fleet view use.
inline constexpr const char* kLayers[] = {"import", "backend", "device", "compute", "compile",
                                          "application"};

struct Counts {
  std::size_t tests = 0, passed = 0, failures = 0, errors = 0, skipped = 0;
  // Counts one more case with this verdict.
  void add(Verdict verdict);
};

// "tests=N passed=N failures=N errors=N skipped=N", what kernodeck-junit prints.
std::string summary_line(const Counts& counts);

// The property that names the build variant of every suite, when the report has one.
inline constexpr const char* kVariantProperty = "kernodeck.variant";

// Every case's classname is this prefix and its layer: "kernodeck.device".
inline constexpr const char* kClassPrefix = "kernodeck.";

// "<layer> [<variant>]", or the layer alone without a variant.
std::string suite_name(const std::string& layer, const std::string& variant);

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
  std::string probe = "unknown";  // tool.probe of the real reports: libtorch, stable_abi, python
  // execution.gradient_source of the real reports whose gradient was verified: autograd, explicit
  std::string gradient_source = "none verified";
  std::string gpu_model = "none";       // execution.device_name of the real GPU passes
  std::string gpu_capability = "none";  // execution.capability of the real GPU passes
  std::string gpu_count = "unknown";    // GPUs seen by the real GPU cases
  std::string driver_version = "not asked";  // host.driver_version from the real host check
  std::string gpu_declared = "not said";     // did the runner declare a GPU (--gpu-declared)
  std::size_t reports = 0;       // reports read
  std::size_t real_reports = 0;  // of which the real probe made
};

// A view of a run beyond its cases, which summary.md and the page show through the same renderers
// as any report's: a fleet's (fleet.hpp) nodes by outcome and where each layer fails, and its
// ladder of the layers counting GPUs instead of cases.
struct ViewCell {
  std::string text;
  std::string css = {};  // the page's class for it: "passed", "failed" or none
};
struct ViewRow {
  std::vector<std::pair<std::string, std::string>> data;  // the page's data-NAME="VALUE" of it
  std::vector<ViewCell> cells;
};
struct ViewTable {
  std::string id, title;  // the page's <table id>; the heading of both
  std::vector<std::string> headers;
  std::vector<ViewRow> rows;
  std::string none;        // said instead of a table without rows
  std::string intro = {};  // said before the table, when it has rows
};
// One layer of the ladder: its state, the page's class for it, and what it counted.
struct LadderStep {
  std::string layer, state, css, counted;
};
struct ReportView {
  std::string id;  // the page's <section id>
  std::vector<ViewTable> tables;
  std::string counts;              // what its ladder counts (the page's data-counts): "gpus"
  std::vector<LadderStep> ladder;  // its own ladder, in place of the one counting the cases
};

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
  // A view beyond the cases (a fleet's); not part of junit.xml.
  std::optional<ReportView> view = {};

  Counts counts() const;
};

// Completes a built report for rendering: the certificate's case first (when it has a
// certificate), each suite's variant and properties, and every text made safe for XML 1.0
// (attributes on one line), so that the XML, the summary and the page all show the same words.
void seal(Report& report);

}  // namespace kd::junit
