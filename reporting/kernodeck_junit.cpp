// kernodeck-junit: publishes a test run, the one pipeline ci/ and CTest's cleanup step call: the
// report of a CTest run (or of several merged, one per build variant) as junit.xml, valid
// against junit-10.xsd, with dashboards' classname = "kernodeck.<layer>" and name = the case id,
// summary.md and the HTML certificate index.html; and turns a fleet's reports into one.
//
//   kernodeck-junit publish --reports DIR --source-root DIR
//                   (--gtest-xml DIR [--ctest-junit FILE] [--ctest-tests FILE] [--variant NAME]
//                    [--commit TEXT] | --merge FILE...)
//                   [--title NAME] [--causes FILE] [--hide-prefix DIR]... [--machine-path DIR]...
//                   [--no-machine-scan REASON]
//   kernodeck-junit --fleet DIR (--expect NODE.UNIT... | --expect-file FILE)... --output FILE
//                   [--title NAME] [--commit TEXT] [--summary FILE] [--html FILE] [--causes FILE]
//
// publish         writes DIR/junit.xml, DIR/summary.md and DIR/index.html of the run (its
//                 certificate from the check's reports in DIR/cases: what they say (check
//                 version, libtorch, backend, CUDA/HIP, GPU model and count, driver) becomes
//                 properties of every <testsuite>, and a first suite "certificate" holds one case
//                 stating the certificate in plain words; facts about the machine come only from
//                 reports the real probe made; the commit as git tells it for --source-root
//                 unless --commit gives it; the GPU declared when KERNODECK_EXPECT_GPU=1; the
//                 temporary folder, TMPDIR or /tmp, shown as "<name>") or of the --merge reports,
//                 then checks them, each check printing its verdict on stderr or failing: the
//                 report validates against junit-10.xsd (built in, validated by libxml2: no
//                 xmllint needed), no case is skipped without a reason, and no file of DIR names
//                 this machine (its paths: the source root, each --machine-path, HOME; its host
//                 and user names), unless --no-machine-scan says why not. See publish.hpp.
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
//                 classname and name of each case stay as they are.
// --merge         reports this tool wrote (one per variant), each valid against junit-10.xsd:
//                 their suites, in the order given, go unchanged into one report whose counts
//                 and time are the sums; the page shows each case's JSON report from the cases/
//                 folder beside its report. An input that is not such a report is an error.
// --source-root   the project's folder: paths under it become relative, and GoogleTest's file
//                 of a build made elsewhere becomes the project's file; so does where
//                 GoogleTest says each case is declared, which ends the text of every skip,
//                 failure and error ("Case declared at suites/cli_cases.cpp:95").
// --hide-prefix   a folder (besides the temporary folder) whose paths become "<name>/...".
// --causes        the check's cause catalogue as `kernodeck-causes --json` prints it (the
//                 build writes it to build-*/causes.json; every pipeline passes it): in the
//                 summary and the page, a failed case whose report's error.type is one of its
//                 causes names that cause and its next action. Without it they name none.
// --fleet         a folder of the check's own JSON reports, one per GPU, named
//                 "<node>.<unit>.json" (a Slurm job's tasks, a CI matrix's runners): a testsuite
//                 per node, a testcase per unit, the code, exit code, stage and message as the
//                 failure; the summary and the HTML page gain the fleet view (nodes by outcome,
//                 which layer fails where). See fleet.hpp.
// --expect        the units that must have reported, "<node>.<unit>": one that did not is an
//                 <error>. --expect-file reads them from a file, one per line ('#' comments).
//                 At least one of the two is required with --fleet.
// --title         the report's name (<testsuites name>), "kernodeck-diagnostic" by default.
//
// The page (index.html, --html) is one self-contained HTML page (no script, no other file): the
// counts and environment, the four layers (import, backend, device, compute) as a ladder with
// their state, every case by layer with the promise it recorded, verdict and reason, and its
// JSON report inline; last, the causes the check tells apart, each linked to the cases that met
// it.
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
// Prints "tests=N passed=N failures=N errors=N skipped=N" of the report written; exits 0 whatever
// the tests did; 1 when an input cannot be read or is not what it should be, the report cannot be
// written, or (publish) a check fails; 2 on a usage error.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "publish.hpp"

namespace {

namespace junit = kd::junit;

// The subcommand publish and its options (publish.hpp).
CLI::App* add_publish(CLI::App& app, junit::Options& o) {
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
  CLI::Option* merge = p->add_option("--merge", o.merge, "reports to merge, one per variant")
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
      ->needs(gtest)
      ->check([](const std::string& value) {
        return value.empty() ? std::string("the variant must not be empty") : std::string();
      });
  p->add_option("--commit", o.commit, "the commit, when git cannot tell it (a packed kit)")
      ->type_name("TEXT")
      ->needs(gtest);
  p->add_option("--title", o.title, "name of the report (<testsuites name>)")->type_name("NAME");
  p->add_option("--causes", o.causes,
                "the check's cause catalogue (kernodeck-causes --json): each failed case's cause")
      ->type_name("FILE");
  p->add_option("--hide-prefix", o.hide, "a folder whose paths become <name>/...")
      ->type_name("DIR")
      ->allow_extra_args(false);
  p->add_option("--machine-path", o.machine_paths, "a folder of this machine (the build tree)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  p->add_option("--no-machine-scan", o.no_machine_scan,
                "why the reports are not held against this machine's details")
      ->type_name("REASON");
  p->callback([gtest, merge] {
    if (gtest->count() == 0 && merge->count() == 0)
      throw CLI::RequiredError("--gtest-xml or --merge (with publish)");
  });
  return p;
}

// --fleet and its options (fleet.hpp).
void add_fleet(CLI::App& app, junit::Options& o) {
  CLI::Option* fleet =
      app.add_option("--fleet", o.fleet, "a folder of the check's reports, <node>.<unit>.json")
          ->type_name("DIR");
  auto needs_fleet = [fleet](CLI::Option* option) { return option->needs(fleet); };
  needs_fleet(app.add_option("--expect", o.expect, "a unit that must have reported, <node>.<unit>")
                  ->type_name("NODE.UNIT")
                  ->expected(1, -1));
  needs_fleet(app.add_option("--expect-file", o.expect_files, "the expected units, one per line")
                  ->type_name("FILE"));
  needs_fleet(app.add_option("--output", o.output, "the report to write")->type_name("FILE"));
  needs_fleet(app.add_option("--title", o.title, "name of the report (<testsuites name>)")
                  ->type_name("NAME"));
  needs_fleet(app.add_option("--commit", o.commit, "the commit the check was built from")
                  ->type_name("TEXT"));
  needs_fleet(app.add_option("--summary", o.summary, "also write a Markdown summary")
                  ->type_name("FILE"));
  needs_fleet(app.add_option("--html", o.html, "also write the fleet's HTML certificate")
                  ->type_name("FILE"));
  needs_fleet(app.add_option("--causes", o.causes,
                             "the check's cause catalogue (kernodeck-causes --json)")
                  ->type_name("FILE"));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Publishes a test run as a JUnit report that validates against junit-10.xsd, with "
               "its summary and HTML certificate (publish), or a fleet's reports (--fleet).",
               "kernodeck-junit"};
  junit::Options options;
  CLI::App* publish = add_publish(app, options);
  add_fleet(app, options);
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
    if (!publish->parsed()) {
      if (app.count("--fleet") == 0) throw CLI::RequiredError("publish or --fleet");
      if (app.count("--output") == 0) throw CLI::RequiredError("--output (with --fleet)");
      if (app.count("--expect") == 0 && app.count("--expect-file") == 0)
        throw CLI::RequiredError("--expect or --expect-file (with --fleet)");
    } else if (app.count("--fleet") > 0) {
      throw CLI::ExcludesError("--fleet", "publish");
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (publish->parsed()) {
      const junit::Published published =
          junit::publish(options, junit::environment_of_this_process(), std::cerr);
      std::cout << junit::summary_line(published.counts) << std::endl;
      return published.held ? 0 : 1;
    }
    std::cout << junit::summary_line(junit::publish_fleet(options, std::cerr)) << std::endl;
    return 0;
  } catch (const std::exception& e) {  // an InputError among them
    std::cerr << "kernodeck-junit: error: " << e.what() << '\n';
    return 1;
  }
}
