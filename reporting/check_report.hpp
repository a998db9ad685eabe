// The check's own JSON report of one run (kernodeck-diagnostic --json-out), read once into one
// type that the certificate, the causes, the fleet view and the HTML page all use.
//
//   CheckReports cases = read_check_reports("reports/debian/cases", rule);
//   if (cases.at("device.gpu_pass").real_probe()) ...
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "junit_report.hpp"
#include "sanitize.hpp"

namespace kd::junit {

// One entry of a report's `warnings`: what the check noticed without failing for it (a
// distribution made for another torch). The exit code stays that of the verdict; the views show
// it beside the case, whatever its verdict. Each text is one line, safe for XML 1.0.
struct ReportWarning {
  std::string stage;    // where it was noticed: "application"
  std::string type;     // which: "ExtensionForOtherTorch", an error_type of the cause catalogue
  std::string message;  // the catalogue's sentences with the facts of the run
};

struct CheckReport {
  std::string text;     // as the page shows it: the file, under the privacy rule, or pretty-printed
  bool read = false;    // the file could be read
  bool object = false;  // it is a JSON object
  bool ours = false;    // tool.name is kernodeck-diagnostic
  std::string pretty;   // the object pretty-printed (two spaces), when it is one

  std::string tool_version, probe;                 // tool.version, tool.probe
  std::string status, code, stage, message;        // the verdict
  std::optional<long long> exit_code;              // when an integer
  std::string device;                              // requested.device
  bool has_error = false;                          // error is an object
  std::string error_type, error_message;           // error.type, error.message
  std::string torch_version, backend, cuda, hip;   // pytorch.*
  std::optional<long long> visible_devices;        // pytorch.visible_device_count
  bool gradient_verified = false;                  // execution.gradient_verified is true
  std::string gradient_source, device_name, capability;  // execution.*
  bool has_host = false;                           // host is an object
  std::string host_status, driver_version;         // host.*
  double seconds = 0;                              // execution.timings_ms, summed, in seconds
  std::vector<ReportWarning> warnings;             // warnings, in the order the check met them

  // Made by one of the check's real probes (tool.probe "libtorch", the compiled probe,
  // "stable_abi" or "python", the interpreter's own import), not through the fault-injection
  // seam ("override"): only those tell facts of the machine.
  bool real_probe() const {
    return probe == "libtorch" || probe == "stable_abi" || probe == "python";
  }
};

// The report of this text, which the page shows.
CheckReport parse_check_report(const std::string& text);

// What does not hold of `report`, a JSON object, against the contract's rules, the ones every
// case's report is held to (contract/report_rules.hpp): empty for a whole, consistent
// report. Asked by the fleet, which judges each report read alone.
std::vector<std::string> contract_problems(const CheckReport& report);

// The check's report of each case, keyed by file name without ".json" ("<layer>.<case id>"),
// each read under the privacy rule (`rule`); a missing folder gives none, or with `missing_ok`
// false is an InputError.
std::map<std::string, CheckReport> read_check_reports(const std::filesystem::path& dir,
                                                      const kd::Sanitizer& rule,
                                                      bool missing_ok = true);

// The check's JSON report of each case, keyed "<variant>/<layer>.<id>" (a case of a variant of a
// merged report) or "<layer>.<id>".
using CaseReports = std::map<std::string, CheckReport>;

// The report of one case: under its variant's key first, then its own; nullptr for none.
const CheckReport* report_of_case(const CaseReports& reports, const std::string& variant,
                                  const std::string& layer, const std::string& id);

// Each case of `report` (of its variant) gets the warnings of its report (ReportCase::warnings),
// each "<type> (<stage>): <message>", so that junit.xml carries them beside its promise; the
// summary and the page read them from the reports themselves, as they read the causes.
void add_report_warnings(Report& report, const CaseReports& reports);

}  // namespace kd::junit
