// kernodeck-junit: rewrites CTest's JUnit into a report that validates against junit-10.xsd
// and that dashboards show per case: classname = "kernodeck.<layer>", name = the case id; and
// merges such reports, one per build variant, into one.
//
//   kernodeck-junit --ctest-junit FILE --gtest-xml DIR --output FILE
//                   [--ctest-tests FILE] [--variant NAME] [--title NAME]
//                   [--cases DIR [--commit TEXT] [--gpu-declared yes|no]]
//                   [--source-root DIR] [--hide-prefix DIR]... [--summary FILE] [--html FILE]
//   kernodeck-junit --gtest-xml DIR --output FILE [...the options above but --ctest-junit]
//   kernodeck-junit --merge FILE... --output FILE [--title NAME] [--summary FILE] [--html FILE]
//                   [--source-root DIR]
//   kernodeck-junit --fleet DIR (--expect NODE.UNIT... | --expect-file FILE)... --output FILE
//                   [--title NAME] [--commit TEXT] [--summary FILE] [--html FILE]
//
// --ctest-junit   what `ctest --output-junit FILE` wrote. Without it (the cleanup test of the
//                 conformance run, which every `ctest` runs after the cases it selected), the
//                 cases are those that left their verdict or their ".started" mark in the
//                 --gtest-xml folder, each with GoogleTest's verdict; a case that started and
//                 recorded none is an error (crashed, killed or timed out). The folder must
//                 then hold only this run's files: the fixture's setup test empties it.
// --gtest-xml     the folder given to gtest_discover_tests(XML_OUTPUT_DIR); searched
//                 recursively, each file recognised by the cases it holds. It must exist; empty
//                 it before running ctest so that no verdict of an earlier run is reused (a file
//                 older than the CTest run is ignored as well).
// --ctest-tests   what `ctest --show-only=json-v1` printed for the same build tree.
// --variant       the build variant this CTest run certified (e.g. which libtorch), when several
//                 are certified in separate build trees: every <testsuite> is then named
//                 "<layer> [NAME]" and carries <property name="kernodeck.variant" value="NAME"/>;
//                 classname and name of each case stay as they are. Without it (and without
//                 --cases), no properties.
// --merge         reports this tool wrote (one per variant): their <testsuite> elements, in the
//                 order given, go unchanged into one <testsuites> whose counts and time are the
//                 sums. An input that is not such a report is an error. Excludes --ctest-junit,
//                 --gtest-xml, --ctest-tests and --variant; one of --gtest-xml and --merge is
//                 required.
// --fleet         a folder of the check's own JSON reports, one per GPU, named
//                 "<node>.<unit>.json" (a Slurm job's tasks, a CI matrix's runners): a testsuite
//                 per node, a testcase per unit, the code, exit code, stage and message as the
//                 failure; the summary and the HTML page gain the fleet view (nodes by outcome,
//                 which layer fails where). See junit_fleet.hpp.
// --expect        the units that must have reported, "<node>.<unit>": one that did not is an
//                 <error>. --expect-file reads them from a file, one per line ('#' comments).
//                 At least one of the two is required with --fleet.
// --title         the report's name (<testsuites name>), "kernodeck-diagnostic" by default.
// --cases         the suite's folder of the check's own reports (reports/<variant>/cases): what
//                 they say (check version, libtorch, backend, CUDA/HIP, GPU model and count,
//                 driver) becomes properties of every <testsuite>, and a first suite
//                 "certificate" holds one case stating the certificate in plain words (failed
//                 when any case failed or erred). Facts about the machine come only from
//                 reports the real probe made; a fact no report tells is "unknown".
// --commit        the commit the check was built from (reports carry none).
// --gpu-declared  whether the runner declared a GPU (KERNODECK_EXPECT_GPU=1): yes or no.
// --source-root   the project's folder: paths under it become relative, GoogleTest's file of a
//                 build made elsewhere becomes the project's file, and each skip, failure and
//                 error names where its case is declared in suites/. With --merge, it serves
//                 only --html (each case's promise).
// --hide-prefix   a folder (e.g. the temporary folder) whose paths become "<name>/...".
// --summary       also write a Markdown summary: the certificate and a table of the failures,
//                 errors and skips with their reasons.
// --html          also write the certificate as one self-contained HTML page (no script, no
//                 other file): the counts and environment, the four layers (import, backend,
//                 device, compute) as a ladder with their state, every case by layer with its
//                 promise (the one the case recorded, "Promise: ..." first in its system-out;
//                 for a case without one, its declaration's in --source-root's suites/),
//                 verdict and reason, and its JSON
//                 report from --cases inline; with --merge, from the cases/ folder beside each
//                 merged report (reports/<variant>/cases), as ci/common.sh leaves them.
//
// Which tests are GoogleTest tests matters only when a test failed and no GoogleTest verdict
// exists: a GoogleTest program that wrote no verdict crashed, was killed or timed out (an
// error), while a plain program that failed simply failed (a failure). The rule: with
// --ctest-tests, a test is a GoogleTest test when its command holds --gtest_filter= or
// --gtest_output= (what gtest_discover_tests and gtest_add_tests generate); its TIMEOUT
// property tells a timeout (elapsed time reached it) from a crash, and the --gtest_filter value
// gives the GoogleTest name even under a TEST_PREFIX. Without --ctest-tests, a test is a
// GoogleTest test when a verdict for its name exists or GoogleTest's banner is in its captured
// output, and a timeout cannot be told from a crash. CI passes --ctest-tests.
//
// Prints "tests=N passed=N failures=N errors=N skipped=N" (of the whole report, merged or not)
// and exits 0 whatever the tests did; 1 when an input cannot be read or is not what it should
// be, or the report cannot be written; 2 on a usage error.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "junit_convert.hpp"
#include "junit_fleet.hpp"
#include "junit_xml.hpp"
#include "util/files.hpp"

namespace {

std::string read_input(const std::string& path, const char* what) {
  auto content = kd::read_file(path, std::numeric_limits<std::size_t>::max());
  if (!content) throw kd::junit::InputError(std::string("cannot read ") + what + " " + path);
  return *content;
}

// Written beside the target and renamed, so that a dashboard never picks up half a report.
void write_output(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw kd::junit::InputError("cannot write " + temporary);
    out << content;
    out.close();
    if (!out) throw kd::junit::InputError("cannot write " + temporary);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw kd::junit::InputError("cannot write " + path);
  }
}

// What the command line asked for.
struct Args {
  std::string ctest_junit, gtest_dir, output, ctest_tests, variant, title = "kernodeck-diagnostic";
  std::vector<std::string> merge;
  std::string cases_dir, commit, gpu_declared, source_root, summary, html;
  std::vector<std::string> hidden;
  std::string fleet_dir;
  std::vector<std::string> expect, expect_files;
};

// The report, its title, a conversion's inputs, and --merge.
void add_input_options(CLI::App& app, Args& a) {
  app.add_option("--ctest-junit", a.ctest_junit, "the file ctest --output-junit wrote")
      ->type_name("FILE");
  app.add_option("--gtest-xml", a.gtest_dir, "the XML_OUTPUT_DIR of gtest_discover_tests")
      ->type_name("DIR");
  app.add_option("--output", a.output, "the report to write")->required()->type_name("FILE");
  app.add_option("--ctest-tests", a.ctest_tests, "what ctest --show-only=json-v1 printed")
      ->type_name("FILE");
  app.add_option("--variant", a.variant,
                 "the build variant of this run: suites become \"<layer> [NAME]\" with "
                 "the property kernodeck.variant")
      ->type_name("NAME")
      ->check([](const std::string& value) {
        return value.empty() ? std::string("the variant must not be empty") : std::string();
      });
  app.add_option("--merge", a.merge, "reports kernodeck-junit wrote, to merge into one")
      ->type_name("FILE")
      ->expected(1, -1);
  app.add_option("--title", a.title, "name of the report (<testsuites name>)")->type_name("NAME");
}

// The certificate's facts, what becomes of paths, and what else to write.
void add_certificate_options(CLI::App& app, Args& a) {
  CLI::Option* cases_option =
      app.add_option("--cases", a.cases_dir,
                     "the check's own reports of the run: the certificate's facts")
          ->type_name("DIR");
  app.add_option("--commit", a.commit, "the commit the check was built from")->type_name("TEXT");
  app.add_option("--gpu-declared", a.gpu_declared, "whether the runner declared a GPU")
      ->check(CLI::IsMember({"yes", "no"}))
      ->needs(cases_option);
  app.add_option("--source-root", a.source_root, "paths under it become relative")
      ->type_name("DIR");
  app.add_option("--hide-prefix", a.hidden, "a folder whose paths become <name>/...")
      ->type_name("DIR");
  app.add_option("--summary", a.summary, "also write a Markdown summary")->type_name("FILE");
  app.add_option("--html", a.html, "also write the certificate as a self-contained HTML page")
      ->type_name("FILE");
}

// --fleet and its expected units; then what --fleet and --merge each exclude.
void add_fleet_options(CLI::App& app, Args& a) {
  CLI::Option* fleet_option =
      app.add_option("--fleet", a.fleet_dir, "a folder of the check's reports, <node>.<unit>.json")
          ->type_name("DIR");
  app.add_option("--expect", a.expect, "a unit that must have reported, <node>.<unit>")
      ->type_name("NODE.UNIT")
      ->expected(1, -1)
      ->needs(fleet_option);
  app.add_option("--expect-file", a.expect_files, "the expected units, one per line")
      ->type_name("FILE")
      ->needs(fleet_option);
  for (const char* excluded : {"--ctest-junit", "--gtest-xml", "--ctest-tests", "--variant",
                               "--merge", "--cases", "--gpu-declared", "--hide-prefix"}) {
    fleet_option->excludes(app.get_option(excluded));
  }
  for (const char* excluded : {"--ctest-junit", "--gtest-xml", "--ctest-tests", "--variant",
                               "--cases", "--commit", "--gpu-declared", "--hide-prefix"}) {
    app.get_option("--merge")->excludes(app.get_option(excluded));
  }
}

// Requirements CLI11 cannot say with needs(): checked after parsing, so that --merge with
// --ctest-junit is reported as the exclusion it is.
void check_requirements(const CLI::App& app) {
  auto given = [&app](const char* name) { return app.count(name) > 0; };
  if (!given("--gtest-xml") && !given("--merge") && !given("--fleet"))
    throw CLI::RequiredError("--gtest-xml, --merge or --fleet");
  if (given("--fleet") && !given("--expect") && !given("--expect-file"))
    throw CLI::RequiredError("--expect or --expect-file (with --fleet)");
  if (given("--commit") && !given("--cases") && !given("--fleet"))
    throw CLI::RequiredError("--cases or --fleet (with --commit)");
}

int fleet_run(Args a) {
  for (const std::string& file : a.expect_files) {
    const std::vector<std::string> listed =
        kd::junit::parse_expected(read_input(file, "expected list"));
    a.expect.insert(a.expect.end(), listed.begin(), listed.end());
  }
  kd::junit::Fleet fleet = kd::junit::read_fleet(a.fleet_dir, a.expect);
  for (const std::string& warning : fleet.warnings)
    std::cerr << "kernodeck-junit: warning: " << warning << '\n';
  if (!a.commit.empty()) fleet.facts.commit = a.commit;
  const kd::junit::Report report = kd::junit::fleet_report(fleet, a.title);
  const std::string xml = kd::junit::write_junit(report);
  write_output(a.output, xml);
  if (!a.summary.empty()) write_output(a.summary, kd::junit::fleet_markdown(fleet, xml));
  if (!a.html.empty()) write_output(a.html, kd::junit::fleet_html(fleet, xml));
  std::cout << kd::junit::summary_line(report.counts()) << std::endl;
  return 0;
}

// The source root and the hidden folders, as the report is to show them.
kd::junit::PathScrub path_scrub(const Args& a) {
  kd::junit::PathScrub scrub;
  if (!a.source_root.empty()) {
    std::string root = std::filesystem::absolute(a.source_root).lexically_normal().string();
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    scrub.source_root = root;
  }
  for (std::string prefix : a.hidden) {
    while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
    const std::string name = std::filesystem::path(prefix).filename().string();
    scrub.prefixes.emplace_back(prefix, "<" + (name.empty() ? std::string("hidden") : name) + ">");
  }
  return scrub;
}

// The JSON reports of the cases of each merged report, from the cases/ folder beside it, keyed
// "<variant>/<layer>.<id>" (the variant its testsuites name) so that the same case of two
// variants keeps its own report.
std::map<std::string, std::string> merged_case_json(
    const std::vector<kd::junit::MergeInput>& inputs, const kd::junit::PathScrub& scrub) {
  std::map<std::string, std::string> all;
  for (const kd::junit::MergeInput& input : inputs) {
    tinyxml2::XMLDocument doc;
    const tinyxml2::XMLElement* root = kd::junit::parse_report_xml(doc, input.xml);
    const std::string variant = kd::junit::suite_variant(root->FirstChildElement("testsuite"));
    const auto cases = std::filesystem::path(input.source).parent_path() / "cases";
    for (auto& [key, text] : kd::junit::read_case_json(cases, scrub)) {
      all[variant.empty() ? key : variant + "/" + key] = std::move(text);
    }
  }
  return all;
}

int merge_run(const Args& a) {
  std::vector<kd::junit::MergeInput> inputs;
  for (const std::string& path : a.merge) inputs.push_back({path, read_input(path, "report")});
  const kd::junit::Merged merged = kd::junit::merge_reports(inputs, a.title);
  for (const std::string& warning : merged.warnings)
    std::cerr << "kernodeck-junit: warning: " << warning << '\n';
  write_output(a.output, merged.xml);
  if (!a.summary.empty()) write_output(a.summary, kd::junit::summary_markdown(merged.xml));
  if (!a.html.empty()) {
    write_output(a.html, kd::junit::certificate_html(
                             merged.xml, merged_case_json(inputs, path_scrub(a)), a.source_root));
  }
  std::cout << kd::junit::summary_line(merged.counts) << std::endl;
  return 0;
}

// CTest's run and GoogleTest's XML as one report, with its certificate.
kd::junit::Report read_run(const Args& a) {
  std::vector<std::string> warnings;
  const kd::junit::GtestIndex gtest = kd::junit::load_gtest_dir(a.gtest_dir, warnings);
  const kd::junit::CtestRun run =
      a.ctest_junit.empty() ? kd::junit::run_from_started(a.gtest_dir, gtest, warnings)
                            : kd::junit::parse_ctest_junit(read_input(a.ctest_junit, "CTest JUnit"));
  for (const std::string& warning : warnings) std::cerr << "kernodeck-junit: " << warning << '\n';
  std::map<std::string, kd::junit::TestInfo> infos;
  if (!a.ctest_tests.empty())
    infos = kd::junit::parse_ctest_tests_json(read_input(a.ctest_tests, "CTest test list"));
  kd::junit::Report report = kd::junit::convert(run, gtest, infos, a.title);
  report.variant = a.variant;
  if (!a.cases_dir.empty()) {
    std::vector<std::string> notes;
    kd::junit::Certificate certificate = kd::junit::read_case_reports(a.cases_dir, notes);
    for (const std::string& note : notes) std::cerr << "kernodeck-junit: " << note << '\n';
    if (!a.commit.empty()) certificate.commit = a.commit;
    if (!a.gpu_declared.empty()) certificate.gpu_declared = a.gpu_declared;
    report.certificate = certificate;
  }
  return report;
}

int convert_run(const Args& a) {
  kd::junit::Report report = read_run(a);
  const kd::junit::PathScrub scrub = path_scrub(a);
  kd::junit::localize(report, scrub);
  kd::junit::add_certificate_case(report);
  const std::string xml = kd::junit::write_junit(report);
  write_output(a.output, xml);
  if (!a.summary.empty()) write_output(a.summary, kd::junit::summary_markdown(xml));
  if (!a.html.empty()) {
    const auto json = a.cases_dir.empty() ? std::map<std::string, std::string>{}
                                          : kd::junit::read_case_json(a.cases_dir, scrub);
    write_output(a.html, kd::junit::certificate_html(xml, json, scrub.source_root));
  }
  std::cout << kd::junit::summary_line(report.counts()) << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Rewrites CTest's JUnit, with GoogleTest's per-test XML, into a JUnit report "
               "that validates against junit-10.xsd, or merges such reports into one.",
               "kernodeck-junit"};
  Args args;
  add_input_options(app, args);
  add_certificate_options(app, args);
  add_fleet_options(app, args);
  try {
    app.parse(argc, argv);
    check_requirements(app);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (app.count("--fleet") > 0) return fleet_run(args);
    return args.merge.empty() ? convert_run(args) : merge_run(args);
  } catch (const std::exception& e) {  // an InputError among them
    std::cerr << "kernodeck-junit: error: " << e.what() << '\n';
    return 1;
  }
}
