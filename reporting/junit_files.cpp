#include "junit_files.hpp"

#include <tinyxml2.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <system_error>

#include "junit_certificate.hpp"
#include "junit_html.hpp"
#include "junit_inputs.hpp"
#include "junit_merge.hpp"
#include "junit_summary.hpp"
#include "junit_verdict.hpp"
#include "junit_write.hpp"
#include "junit_xml.hpp"
#include "util/files.hpp"

namespace kd::junit {
namespace {

// CTest's run and GoogleTest's XML as one report, with its certificate.
Report read_run(const RunInputs& in, std::ostream& log) {
  std::vector<std::string> warnings;
  const GtestIndex gtest = load_gtest_dir(in.gtest_dir, warnings);
  const CtestRun run = in.ctest_junit.empty()
                           ? run_from_started(gtest)
                           : parse_ctest_junit(read_input(in.ctest_junit, "CTest JUnit"));
  for (const std::string& warning : warnings) log << "kernodeck-junit: " + warning + "\n";
  std::map<std::string, TestInfo> infos;
  if (!in.ctest_tests.empty())
    infos = parse_ctest_tests_json(read_input(in.ctest_tests, "CTest test list"));
  Report report = convert(run, gtest, infos, in.title);
  report.variant = in.variant;
  if (!in.cases_dir.empty()) {
    std::vector<std::string> notes;
    Certificate certificate = read_case_reports(in.cases_dir, notes);
    for (const std::string& note : notes) log << "kernodeck-junit: " + note + "\n";
    if (!in.commit.empty()) certificate.commit = in.commit;
    if (!in.gpu_declared.empty()) certificate.gpu_declared = in.gpu_declared;
    report.certificate = certificate;
  }
  return report;
}

// The JSON reports of the cases of each merged report, from the cases/ folder beside it, keyed
// "<variant>/<layer>.<id>" (the variant its testsuites name) so that the same case of two
// variants keeps its own report.
CaseReports merged_case_json(const std::vector<MergeInput>& inputs, const PathScrub& scrub) {
  CaseReports all;
  for (const MergeInput& input : inputs) {
    tinyxml2::XMLDocument doc;
    const tinyxml2::XMLElement* root = parse_report_xml(doc, input.xml);
    const std::string variant = suite_variant(root->FirstChildElement("testsuite"));
    const auto cases = std::filesystem::path(input.source).parent_path() / "cases";
    for (auto& [key, text] : read_case_json(cases, scrub)) {
      all[variant.empty() ? key : variant + "/" + key] = std::move(text);
    }
  }
  return all;
}

}  // namespace

std::string read_input(const std::string& path, const char* what) {
  auto content = kd::read_file(path, std::numeric_limits<std::size_t>::max());
  if (!content) throw InputError(std::string("cannot read ") + what + " " + path);
  return *content;
}

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

Written write_run(const RunInputs& run, const PathScrub& scrub, const OutputFiles& out,
                  const Causes& causes, std::ostream& log) {
  Report report = read_run(run, log);
  localize(report, scrub);
  add_certificate_case(report);
  Written written{write_junit(report), report.counts()};
  write_output(out.junit, written.xml);
  const CaseReports json =
      run.cases_dir.empty() ? CaseReports{} : read_case_json(run.cases_dir, scrub);
  if (!out.summary.empty())
    write_output(out.summary, summary_markdown(written.xml, json, causes));
  if (!out.html.empty()) write_output(out.html, certificate_html(written.xml, json, causes));
  return written;
}

Written write_merged(const std::vector<std::string>& reports, const std::string& title,
                     const PathScrub& scrub, const OutputFiles& out, const Causes& causes,
                     std::ostream& log) {
  std::vector<MergeInput> inputs;
  for (const std::string& path : reports) inputs.push_back({path, read_input(path, "report")});
  const Merged merged = merge_reports(inputs, title);
  for (const std::string& warning : merged.warnings)
    log << "kernodeck-junit: warning: " + warning + "\n";
  write_output(out.junit, merged.xml);
  const CaseReports json = merged_case_json(inputs, scrub);
  if (!out.summary.empty()) write_output(out.summary, summary_markdown(merged.xml, json, causes));
  if (!out.html.empty()) write_output(out.html, certificate_html(merged.xml, json, causes));
  return {merged.xml, merged.counts};
}

}  // namespace kd::junit
