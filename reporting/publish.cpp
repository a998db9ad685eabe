#include "publish.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>

#include "certificate.hpp"
#include "commit_mark.hpp"
#include "fleet.hpp"
#include "html_page.hpp"
#include "junit_checks.hpp"
#include "junit_inputs.hpp"
#include "junit_text.hpp"
#include "junit_verdict.hpp"
#include "junit_xml.hpp"
#include "published_scan.hpp"
#include "summary.hpp"

namespace kd::junit {
namespace {

namespace fs = std::filesystem;

std::string within(const std::string& folder, const char* file) {
  return (fs::path(folder) / file).string();
}

// A report with the check's report of each of its cases.
struct Model {
  Report report;
  CaseReports cases;
};

// CTest's run and the cases' records as one report, with its certificate from the cases/ folder.
Model run_model(const Options& o, const PublishEnvironment& env, const PathScrub& scrub,
                std::ostream& log) {
  std::vector<std::string> notes;
  const CaseRecords records = load_records(o.case_records, notes);
  const CtestRun run = o.ctest_junit.empty()
                           ? run_from_records(records)
                           : parse_ctest_junit(read_input(o.ctest_junit, "CTest JUnit"));
  std::map<std::string, TestInfo> infos;
  if (!o.ctest_tests.empty())
    infos = parse_ctest_tests_json(read_input(o.ctest_tests, "CTest test list"));
  Model m{convert(run, records, infos, o.title), {}};
  m.report.variant = o.variant;
  const std::string cases_dir = within(o.reports, "cases");
  std::error_code ec;
  fs::create_directories(cases_dir, ec);  // a run whose cases wrote no report has none
  m.cases = read_check_reports(cases_dir, scrub, /*missing_ok=*/false);
  Certificate certificate = certificate_of(m.cases, notes);
  certificate.commit =
      !o.commit.empty() ? o.commit : commit_mark(o.source_root).value_or("unknown");
  certificate.gpu_declared = env.gpu_declared ? "yes" : "no";
  m.report.certificate = certificate;
  for (const std::string& note : notes) log << "kernodeck-junit: " + note + "\n";
  localize(m.report, scrub);
  add_report_warnings(m.report, m.cases);
  seal(m.report);
  return m;
}

// The reports to merge read into one, their suites in the order given; each case's JSON report
// from the cases/ folder beside its report, keyed "<variant>/<layer>.<id>" (the variant its
// suites name) so that the same case of two variants keeps its own.
Model merged_model(const Options& o, const PathScrub& scrub, std::ostream& log) {
  Model m;
  std::vector<Report> inputs;
  for (const std::string& path : o.merge) {
    inputs.push_back(read_junit(read_input(path, "report"), path));
    const std::string variant =
        inputs.back().suites.empty() ? "" : inputs.back().suites.front().variant;
    for (auto& [key, r] : read_check_reports(fs::path(path).parent_path() / "cases", scrub))
      m.cases[variant.empty() ? key : variant + "/" + key] = std::move(r);
  }
  std::vector<std::string> warnings;
  m.report = merge_reports(std::move(inputs), o.merge, o.title, warnings);
  for (const std::string& warning : warnings) log << "kernodeck-junit: warning: " + warning + "\n";
  return m;
}

// One whole line at a time: CTest merges a test's stdout and stderr as they arrive, and a line
// written in pieces could be split by the other stream.
void say(std::ostream& log, const std::string& line) { log << line + "\n" << std::flush; }

// "1 problem", "2 problems".
std::string count(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

bool check_schema(const std::string& file, const std::string& xml, std::ostream& log) {
  const std::vector<std::string> errors = schema_errors(xml);
  if (errors.empty()) {
    say(log, "kernodeck-junit: " + file + " validates against junit-10.xsd");
    return true;
  }
  std::string text =
      "kernodeck-junit: FAILED: " + file + " does not validate against junit-10.xsd:";
  for (const std::string& e : errors) text += "\n  " + e;
  say(log, text);
  return false;
}

bool check_skips(const std::string& file, const Report& report, std::ostream& log) {
  const std::vector<std::string> cases = reasonless_skips(report);
  if (cases.empty()) {
    say(log, "kernodeck-junit: every skip in " + file + " says why");
    return true;
  }
  std::string text = "kernodeck-junit: FAILED: " + file +
                     ": cases skipped without a reason (give GTEST_SKIP() one):";
  for (const std::string& c : cases) text += " " + c;
  say(log, text);
  return false;
}

// Nothing in the reports folder names this machine: its folders, HOME, host or user name.
bool check_machine(const Options& o, std::ostream& log) {
  if (!o.no_machine_scan.empty()) {
    say(log, "kernodeck-junit: " + o.reports +
                 " is not held against this machine's details: " + o.no_machine_scan);
    return true;
  }
  published::MachineDetails machine = published::this_machine();
  machine.paths.push_back(fs::absolute(o.source_root).lexically_normal().string());
  machine.paths.insert(machine.paths.end(), o.machine_paths.begin(), o.machine_paths.end());
  std::vector<std::string> binary;
  std::size_t scanned = 0;
  const auto problems = published::check_published_folder(o.reports, machine, binary, scanned);
  for (const auto& p : problems) say(log, p.file + ": " + p.problem);
  const std::string files =
      count(scanned, "published file", "published files") +
      (binary.empty() ? "" : ", " + count(binary.size(), "binary file", "binary files") +
                                 " not read");
  if (problems.empty()) {
    say(log, "kernodeck-junit: nothing in " + o.reports + " names this machine (" + files + ")");
    return true;
  }
  say(log, "kernodeck-junit: FAILED: " + o.reports + " would publish details of this machine: " +
               count(problems.size(), "problem", "problems") + " in " + files);
  return false;
}

}  // namespace

PublishEnvironment environment_of_this_process() {
  PublishEnvironment env;
  const char* gpu = std::getenv("KERNODECK_EXPECT_GPU");
  env.gpu_declared = gpu != nullptr && std::string(gpu) == "1";
  const char* tmp = std::getenv("TMPDIR");
  if (tmp != nullptr && *tmp != '\0') env.temporary = tmp;
  return env;
}

Published publish(const Options& o, const PublishEnvironment& environment, std::ostream& log) {
  std::vector<std::string> hidden = o.hide;
  hidden.push_back(environment.temporary);
  const PathScrub scrub = path_scrub(o.source_root, hidden);
  const Causes causes = read_causes(o.causes);
  if (o.causes.empty())
    log << "kernodeck-junit: no cause catalogue (--causes): summary.md and index.html name no "
           "cause\n";
  std::error_code ec;
  fs::create_directories(o.reports, ec);
  const Model m =
      o.merge.empty() ? run_model(o, environment, scrub, log) : merged_model(o, scrub, log);
  const std::string file = within(o.reports, "junit.xml");
  const std::string xml = write_junit(m.report);
  write_output(file, xml);
  write_output(within(o.reports, "summary.md"), summary_markdown(m.report, m.cases, causes));
  write_output(within(o.reports, "index.html"), certificate_html(m.report, m.cases, causes));
  Published published{m.report.counts(), check_schema(file, xml, log)};
  // A skip is judged in a report the schema accepts, as dashboards would read it.
  if (published.held) published.held = check_skips(file, m.report, log);
  published.held = check_machine(o, log) && published.held;
  return published;
}

Counts publish_fleet(const Options& o, std::ostream& log) {
  std::vector<std::string> expected = o.expect;
  for (const std::string& file : o.expect_files) {
    const std::vector<std::string> listed = parse_expected(read_input(file, "expected list"));
    expected.insert(expected.end(), listed.begin(), listed.end());
  }
  const Causes causes = read_causes(o.causes);
  Fleet fleet = read_fleet(o.fleet, expected);
  for (const std::string& warning : fleet.warnings)
    log << "kernodeck-junit: warning: " << warning << '\n';
  if (!o.commit.empty()) fleet.facts.commit = o.commit;
  const Report report = fleet_report(fleet, o.title);
  write_output(o.output, write_junit(report));
  const CaseReports units = fleet_reports(fleet);
  if (!o.summary.empty()) write_output(o.summary, summary_markdown(report, units, causes));
  if (!o.html.empty()) write_output(o.html, certificate_html(report, units, causes));
  return report.counts();
}

}  // namespace kd::junit
