// kernodeck-junit: rewrites CTest's JUnit into a report that validates against junit-10.xsd
// and that dashboards show per case: classname = "kernodeck.<layer>", name = the case id;
// merges such reports, one per build variant, into one; and publishes a run, the one pipeline
// ci/ and CTest's cleanup step call.
//
//   kernodeck-junit publish --reports DIR --source-root DIR
//                   (--gtest-xml DIR [--ctest-junit FILE] [--ctest-tests FILE] [--variant NAME]
//                    [--commit TEXT] | --merge FILE...)
//                   [--title NAME] [--causes FILE] [--machine-path DIR]... [--no-machine-scan REASON]
//   kernodeck-junit --ctest-junit FILE --gtest-xml DIR --output FILE
//                   [--ctest-tests FILE] [--variant NAME] [--title NAME]
//                   [--cases DIR [--commit TEXT] [--gpu-declared yes|no]]
//                   [--source-root DIR] [--hide-prefix DIR]... [--summary FILE] [--html FILE]
//                   [--causes FILE]
//   kernodeck-junit --gtest-xml DIR --output FILE [...the options above but --ctest-junit]
//   kernodeck-junit --merge FILE... --output FILE [--title NAME] [--summary FILE] [--html FILE]
//                   [--source-root DIR] [--causes FILE]
//   kernodeck-junit --fleet DIR (--expect NODE.UNIT... | --expect-file FILE)... --output FILE
//                   [--title NAME] [--commit TEXT] [--summary FILE] [--html FILE] [--causes FILE]
//
// publish         writes DIR/junit.xml, DIR/summary.md and DIR/index.html of the run (its
//                 certificate from the check's reports in DIR/cases; the commit as git tells it
//                 for --source-root unless --commit gives it; the GPU declared when
//                 KERNODECK_EXPECT_GPU=1; the temporary folder, TMPDIR or /tmp, shown as
//                 "<name>") or of the --merge reports, then checks them, each check printing its
//                 verdict on stderr or failing: the report validates against junit-10.xsd
//                 (built in, validated by libxml2: no xmllint needed), no case is skipped
//                 without a reason, and no file of DIR names this machine (its paths: the
//                 source root, each --machine-path, HOME; its host and user names), unless
//                 --no-machine-scan says why not. See publish.hpp.
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
// --source-root   the project's folder: paths under it become relative, and GoogleTest's file
//                 of a build made elsewhere becomes the project's file; so does where
//                 GoogleTest says each case is declared, which ends the text of every skip,
//                 failure and error ("Case declared at suites/cli_cases.cpp:95"). With --merge,
//                 it serves only --html (the JSON reports' paths).
// --hide-prefix   a folder (e.g. the temporary folder) whose paths become "<name>/...".
// --summary       also write a Markdown summary: the certificate and a table of the failures,
//                 errors and skips with their reasons.
// --html          also write the certificate as one self-contained HTML page (no script, no
//                 other file): the counts and environment, the four layers (import, backend,
//                 device, compute) as a ladder with their state, every case by layer with the
//                 promise it recorded ("Promise: ..." first in its system-out), verdict and
//                 reason, and its JSON report from --cases inline; with --merge, from the cases/
//                 folder beside each merged report (reports/<variant>/cases); last, the causes
//                 the check tells apart (from --causes), each linked to the cases that met it.
// --causes        the check's cause catalogue as `kernodeck-causes --json` prints it (the
//                 build writes it to build-*/causes.json; every pipeline passes it): in the
//                 summary and the page, a failed case whose report's error.type is one of its
//                 causes names that cause and its next action. Without it they name none.
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
// be, or the report cannot be written, and (publish) when a check fails; 2 on a usage error.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "junit_fleet.hpp"
#include "junit_files.hpp"
#include "junit_write.hpp"
#include "publish.hpp"

namespace {

namespace junit = kd::junit;

// What the command line asked for, besides publish.
struct Args {
  junit::RunInputs run;
  std::string output;
  std::vector<std::string> merge;
  std::string source_root, summary, html, causes;
  std::vector<std::string> hidden;
  std::string fleet_dir;
  std::vector<std::string> expect, expect_files;
};

// The report, its title, a conversion's inputs, and --merge.
void add_input_options(CLI::App& app, Args& a) {
  app.add_option("--ctest-junit", a.run.ctest_junit, "the file ctest --output-junit wrote")
      ->type_name("FILE");
  app.add_option("--gtest-xml", a.run.gtest_dir, "the XML_OUTPUT_DIR of gtest_discover_tests")
      ->type_name("DIR");
  app.add_option("--output", a.output, "the report to write")->type_name("FILE");
  app.add_option("--ctest-tests", a.run.ctest_tests, "what ctest --show-only=json-v1 printed")
      ->type_name("FILE");
  app.add_option("--variant", a.run.variant,
                 "the build variant of this run: suites become \"<layer> [NAME]\" with "
                 "the property kernodeck.variant")
      ->type_name("NAME")
      ->check([](const std::string& value) {
        return value.empty() ? std::string("the variant must not be empty") : std::string();
      });
  app.add_option("--merge", a.merge, "reports kernodeck-junit wrote, to merge into one")
      ->type_name("FILE")
      ->expected(1, -1);
  app.add_option("--title", a.run.title, "name of the report (<testsuites name>)")
      ->type_name("NAME");
}

// The certificate's facts, what becomes of paths, and what else to write.
void add_certificate_options(CLI::App& app, Args& a) {
  CLI::Option* cases_option =
      app.add_option("--cases", a.run.cases_dir,
                     "the check's own reports of the run: the certificate's facts")
          ->type_name("DIR");
  app.add_option("--commit", a.run.commit, "the commit the check was built from")
      ->type_name("TEXT");
  app.add_option("--gpu-declared", a.run.gpu_declared, "whether the runner declared a GPU")
      ->check(CLI::IsMember({"yes", "no"}))
      ->needs(cases_option);
  app.add_option("--source-root", a.source_root, "paths under it become relative")
      ->type_name("DIR");
  app.add_option("--hide-prefix", a.hidden, "a folder whose paths become <name>/...")
      ->type_name("DIR");
  app.add_option("--summary", a.summary, "also write a Markdown summary")->type_name("FILE");
  app.add_option("--html", a.html, "also write the certificate as a self-contained HTML page")
      ->type_name("FILE");
  app.add_option("--causes", a.causes,
                 "the check's cause catalogue (kernodeck-causes --json): each failed case's cause")
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

// The subcommand publish and its options (publish.hpp).
CLI::App* add_publish(CLI::App& app, junit::PublishOptions& o) {
  CLI::App* p = app.add_subcommand(
      "publish", "Writes a run's (or merged reports') junit.xml, summary.md and index.html into "
                 "the reports folder and checks them: schema, skip reasons, this machine");
  p->add_option("--reports", o.reports, "the reports folder (its cases/: the check's reports)")
      ->required()
      ->type_name("DIR");
  p->add_option("--source-root", o.source_root, "the project's folder")
      ->required()
      ->type_name("DIR");
  CLI::Option* gtest = p->add_option("--gtest-xml", o.gtest_xml, "GoogleTest's XML folder")
                           ->type_name("DIR");
  p->add_option("--merge", o.merge, "reports to merge, one per variant")
      ->type_name("FILE")
      ->expected(1, -1)
      ->excludes(gtest);
  p->add_option("--ctest-junit", o.ctest_junit, "the file ctest --output-junit wrote")
      ->type_name("FILE")
      ->needs(gtest);
  p->add_option("--ctest-tests", o.ctest_tests, "what ctest --show-only=json-v1 printed")
      ->type_name("FILE")
      ->needs(gtest);
  p->add_option("--variant", o.variant, "the build variant of this run")
      ->type_name("NAME")
      ->needs(gtest);
  p->add_option("--commit", o.commit, "the commit, when git cannot tell it (a packed kit)")
      ->type_name("TEXT")
      ->needs(gtest);
  p->add_option("--title", o.title, "name of the report (<testsuites name>)")->type_name("NAME");
  p->add_option("--causes", o.causes,
                "the check's cause catalogue (kernodeck-causes --json): each failed case's cause")
      ->type_name("FILE");
  p->add_option("--machine-path", o.machine_paths, "a folder of this machine (the build tree)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  p->add_option("--no-machine-scan", o.no_machine_scan,
                "why the reports are not held against this machine's details")
      ->type_name("REASON");
  return p;
}

// Requirements CLI11 cannot say with needs(): checked after parsing, so that --merge with
// --ctest-junit is reported as the exclusion it is.
void check_requirements(const CLI::App& app, const CLI::App& publish) {
  if (publish.parsed()) {
    if (publish.count("--gtest-xml") == 0 && publish.count("--merge") == 0)
      throw CLI::RequiredError("--gtest-xml or --merge (with publish)");
    return;
  }
  auto given = [&app](const char* name) { return app.count(name) > 0; };
  if (!given("--gtest-xml") && !given("--merge") && !given("--fleet"))
    throw CLI::RequiredError("--gtest-xml, --merge or --fleet");
  if (!given("--output")) throw CLI::RequiredError("--output");
  if (given("--fleet") && !given("--expect") && !given("--expect-file"))
    throw CLI::RequiredError("--expect or --expect-file (with --fleet)");
  if (given("--commit") && !given("--cases") && !given("--fleet"))
    throw CLI::RequiredError("--cases or --fleet (with --commit)");
}

int fleet_run(Args a) {
  for (const std::string& file : a.expect_files) {
    const std::vector<std::string> listed =
        junit::parse_expected(junit::read_input(file, "expected list"));
    a.expect.insert(a.expect.end(), listed.begin(), listed.end());
  }
  const junit::Causes causes = junit::read_causes(a.causes);
  junit::Fleet fleet = junit::read_fleet(a.fleet_dir, a.expect);
  for (const std::string& warning : fleet.warnings)
    std::cerr << "kernodeck-junit: warning: " << warning << '\n';
  if (!a.run.commit.empty()) fleet.facts.commit = a.run.commit;
  const junit::Report report = junit::fleet_report(fleet, a.run.title);
  const std::string xml = junit::write_junit(report);
  junit::write_output(a.output, xml);
  if (!a.summary.empty())
    junit::write_output(a.summary, junit::fleet_markdown(fleet, xml, causes));
  if (!a.html.empty()) junit::write_output(a.html, junit::fleet_html(fleet, xml, causes));
  std::cout << junit::summary_line(report.counts()) << std::endl;
  return 0;
}

int convert_run(const Args& a) {
  const junit::PathScrub scrub = junit::path_scrub(a.source_root, a.hidden);
  const junit::OutputFiles out{a.output, a.summary, a.html};
  const junit::Causes causes = junit::read_causes(a.causes);
  const junit::Written written =
      a.merge.empty() ? junit::write_run(a.run, scrub, out, causes, std::cerr)
                      : junit::write_merged(a.merge, a.run.title, scrub, out, causes, std::cerr);
  std::cout << junit::summary_line(written.counts) << std::endl;
  return 0;
}

int publish_run(const junit::PublishOptions& o) {
  const junit::Published published =
      junit::publish(o, junit::environment_of_this_process(), std::cerr);
  std::cout << junit::summary_line(published.counts) << std::endl;
  return published.held ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Rewrites CTest's JUnit, with GoogleTest's per-test XML, into a JUnit report "
               "that validates against junit-10.xsd, merges such reports into one, or publishes "
               "a run (publish).",
               "kernodeck-junit"};
  Args args;
  junit::PublishOptions publish;
  add_input_options(app, args);
  add_certificate_options(app, args);
  add_fleet_options(app, args);
  CLI::App* publish_command = add_publish(app, publish);
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
    check_requirements(app, *publish_command);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (publish_command->parsed()) return publish_run(publish);
    if (app.count("--fleet") > 0) return fleet_run(args);
    return convert_run(args);
  } catch (const std::exception& e) {  // an InputError among them
    std::cerr << "kernodeck-junit: error: " << e.what() << '\n';
    return 1;
  }
}
