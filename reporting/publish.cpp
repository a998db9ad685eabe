#include "publish.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
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
#include "summary.hpp"
#include "util/machine.hpp"

namespace kd::junit {
namespace {

namespace fs = std::filesystem;

// Written to "<path>.tmp" and renamed, so that a dashboard never reads half of it; an
// InputError when it cannot be.
void write_output(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError("cannot write " + temporary);
    out << content;
    out.close();
    if (!out) throw InputError("cannot write " + temporary);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw InputError("cannot write " + path);
  }
}

std::string within(const std::string& folder, const char* file) {
  return (fs::path(folder) / file).string();
}

// A folder without its trailing slashes.
std::string folder(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// The privacy rule (sanitize.hpp) for what this run publishes: paths under the source root made
// relative to it; each hidden folder (the temporary one, --hide-prefix), and each folder of the
// machine outside the source root (--machine-path), shown as "<its name>"; HOME as "<home>";
// the host's and the user's names, as whole words, as "<redacted>".
kd::Sanitizer published_rule(const Options& o, const PublishEnvironment& env) {
  std::vector<kd::Secret> secrets;
  const std::string root =
      o.source_root.empty() ? "" : folder(fs::absolute(o.source_root).lexically_normal());
  if (!root.empty()) secrets.insert(secrets.end(), {{root + "/", ""}, {root, ".", true}});
  std::vector<std::string> hidden = o.hide;
  hidden.push_back(env.temporary);
  for (const std::string& path : o.machine_paths)
    if (root.empty() || (folder(path) + "/").rfind(root + "/", 0) != 0) hidden.push_back(path);
  for (const std::string& path : hidden) {
    const std::string shown = folder(path);
    if (shown != "/")
      secrets.push_back({shown, "<" + fs::path(shown).filename().string() + ">", true});
  }
  const kd::MachineStrings machine = kd::machine_strings();
  if (!machine.home.empty()) secrets.push_back({folder(machine.home), "<home>", true});
  for (const std::string& name : {machine.host, machine.user})
    if (!name.empty()) secrets.push_back({name, "<redacted>", true});
  return kd::Sanitizer::with_stand_ins(std::move(secrets));
}

// Every text of the report's cases under the rule.
void redact(Report& report, const kd::Sanitizer& rule) {
  for (ReportSuite& suite : report.suites)
    for (ReportCase& c : suite.cases)
      for (std::string* text : {&c.message, &c.body, &c.system_out, &c.declared, &c.promise})
        *text = rule.redact(*text);
}

// The files the cases left in cases/ (the check's reports, its output) under the rule, each
// rewritten whole where it named the machine: they are published with the report.
void redact_folder(const std::string& dir, const kd::Sanitizer& rule) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string text = read_input(it->path().string(), "case's file");
    if (const std::string redacted = rule.redact(text); redacted != text)
      write_output(it->path().string(), redacted);
  }
}

// A report with the check's report of each of its cases.
struct Model {
  Report report;
  CaseReports cases;
};

// CTest's run and the cases' records as one report, with its certificate from the cases/ folder.
Model run_model(const Options& o, const PublishEnvironment& env, const kd::Sanitizer& rule,
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
  redact_folder(cases_dir, rule);
  // The files are under the rule now: read as they are, not redacted a second time.
  m.cases = read_check_reports(cases_dir, kd::Sanitizer({}), /*missing_ok=*/false);
  Certificate certificate = certificate_of(m.cases, notes);
  certificate.commit =
      !o.commit.empty() ? o.commit : commit_mark(o.source_root).value_or("unknown");
  certificate.gpu_declared = env.gpu_declared ? "yes" : "no";
  m.report.certificate = certificate;
  for (const std::string& note : notes) log << "kernodeck-junit: " + note + "\n";
  add_report_warnings(m.report, m.cases);
  seal(m.report);
  return m;
}

// The reports to merge read into one, their suites in the order given; each case's JSON report
// from the cases/ folder beside its report, keyed "<variant>/<layer>.<id>" (the variant its
// suites name) so that the same case of two variants keeps its own.
Model merged_model(const Options& o, const kd::Sanitizer& rule, std::ostream& log) {
  Model m;
  std::vector<Report> inputs;
  for (const std::string& path : o.merge) {
    inputs.push_back(read_junit(read_input(path, "report"), path));
    const std::string variant =
        inputs.back().suites.empty() ? "" : inputs.back().suites.front().variant;
    for (auto& [key, r] : read_check_reports(fs::path(path).parent_path() / "cases", rule))
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

// A check's verdict: that it holds, or "FAILED: <what broke>" and each thing found, each after
// `each`.
bool verdict(std::ostream& log, const std::string& holds, const std::string& broken,
             const std::vector<std::string>& found, const char* each) {
  std::string text = "kernodeck-junit: " + (found.empty() ? holds : "FAILED: " + broken);
  for (const std::string& f : found) text += each + f;
  say(log, text);
  return found.empty();
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
  const kd::Sanitizer rule = published_rule(o, environment);
  const Causes causes = read_causes(o.causes);
  if (o.causes.empty())
    log << "kernodeck-junit: no cause catalogue (--causes): summary.md and index.html name no "
           "cause\n";
  std::error_code ec;
  fs::create_directories(o.reports, ec);
  Model m = o.merge.empty() ? run_model(o, environment, rule, log) : merged_model(o, rule, log);
  redact(m.report, rule);
  const std::string file = within(o.reports, "junit.xml");
  const std::string xml = write_junit(m.report);
  write_output(file, xml);
  write_output(within(o.reports, "summary.md"), summary_markdown(m.report, m.cases, causes));
  write_output(within(o.reports, "index.html"), certificate_html(m.report, m.cases, causes));
  Published published{m.report.counts(),
                      verdict(log, file + " validates against junit-10.xsd",
                              file + " does not validate against junit-10.xsd:",
                              schema_errors(xml), "\n  ")};
  // A skip is judged in a report the schema accepts, as dashboards would read it.
  if (published.held)
    published.held = verdict(log, "every skip in " + file + " says why",
                             file + ": cases skipped without a reason (give GTEST_SKIP() one):",
                             reasonless_skips(m.report), " ");
  say(log, "kernodeck-junit: " + o.reports +
               " is written under the privacy rule: no folder or name of this machine in it");
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
