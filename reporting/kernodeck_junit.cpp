// kernodeck-junit: publishes a test run (publish: publish.hpp), the one pipeline ci/ and CTest's
// cleanup step call, and turns a fleet's reports into one certificate (fleet: fleet.hpp). Its
// options and what it writes: docs/dashboards.md (publish), docs/fleets.md (fleet), and --help.
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
                 "the reports folder under the privacy rule and checks them: schema, skip reasons");
  p->add_option("--reports", o.reports, "the reports folder (its cases/: the check's reports)")
      ->required()
      ->type_name("DIR");
  p->add_option("--source-root", o.source_root, "the project's folder")
      ->required()
      ->type_name("DIR");
  CLI::Option* records =
      p->add_option("--case-records", o.case_records, "the folder of the cases' records")
          ->type_name("DIR");
  CLI::Option* merge = p->add_option("--merge", o.merge, "reports to merge, one per variant")
                           ->type_name("FILE")
                           ->expected(1, -1)
                           ->excludes(records);
  CLI::Option* tests =
      p->add_option("--ctest-tests", o.ctest_tests, "what ctest --show-only=json-v1 printed")
          ->type_name("FILE")
          ->needs(records);
  p->add_option("--ctest-junit", o.ctest_junit, "the file ctest --output-junit wrote")
      ->type_name("FILE")
      ->needs(records, tests);
  p->add_option("--variant", o.variant, "the build variant of this run")
      ->type_name("NAME")
      ->needs(records)
      ->check([](const std::string& value) {
        return value.empty() ? std::string("the variant must not be empty") : std::string();
      });
  p->add_option("--commit", o.commit, "the commit, when git cannot tell it (a packed kit)")
      ->type_name("TEXT")
      ->needs(records);
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
  p->callback([records, merge] {
    if (records->count() == 0 && merge->count() == 0)
      throw CLI::RequiredError("--case-records or --merge (with publish)");
  });
  return p;
}

// fleet and its options (fleet.hpp).
CLI::App* add_fleet(CLI::App& app, junit::Options& o) {
  CLI::App* f = app.add_subcommand("fleet", "Merges a fleet's check reports into one certificate");
  f->add_option("reports", o.fleet, "a folder of the check's reports, <node>.<unit>.json")
      ->type_name("DIR")
      ->required();
  CLI::Option* expect =
      f->add_option("--expect", o.expect, "a unit that must have reported, <node>.<unit>")
          ->type_name("NODE.UNIT")
          ->expected(1, -1);
  CLI::Option* expect_file =
      f->add_option("--expect-file", o.expect_files, "the expected units, one per line")
          ->type_name("FILE");
  f->add_option("--output", o.output, "the report to write")->type_name("FILE")->required();
  f->add_option("--title", o.title, "name of the report (<testsuites name>)")->type_name("NAME");
  f->add_option("--commit", o.commit, "the commit the check was built from")->type_name("TEXT");
  f->add_option("--summary", o.summary, "also write a Markdown summary")->type_name("FILE");
  f->add_option("--html", o.html, "also write the fleet's HTML certificate")->type_name("FILE");
  f->add_option("--causes", o.causes, "the check's cause catalogue (kernodeck-causes --json)")
      ->type_name("FILE");
  f->callback([expect, expect_file] {
    if (expect->count() == 0 && expect_file->count() == 0)
      throw CLI::RequiredError("--expect or --expect-file (with fleet)");
  });
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Publishes a test run as a JUnit report that validates against junit-10.xsd, with "
               "its summary and HTML certificate (publish), or a fleet's reports (fleet).",
               "kernodeck-junit"};
  junit::Options options;
  CLI::App* publish = add_publish(app, options);
  add_fleet(app, options);
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
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
