// kernodeck-junit: rewrites CTest's JUnit into a report that validates against junit-10.xsd
// and that dashboards show per case: classname = the layer, name = the case id; and merges such
// reports, one per build variant, into one.
//
//   kernodeck-junit --ctest-junit FILE --gtest-xml DIR --output FILE
//                   [--ctest-tests FILE] [--variant NAME] [--title NAME]
//   kernodeck-junit --merge FILE... --output FILE [--title NAME]
//
// --ctest-junit   what `ctest --output-junit FILE` wrote.
// --gtest-xml     the folder given to gtest_discover_tests(XML_OUTPUT_DIR); searched
//                 recursively, each file recognised by the cases it holds. It must exist; empty
//                 it before running ctest so that no verdict of an earlier run is reused (a file
//                 older than the CTest run is ignored as well).
// --ctest-tests   what `ctest --show-only=json-v1` printed for the same build tree.
// --variant       the build variant this CTest run certified (e.g. which libtorch), when several
//                 are certified in separate build trees: every <testsuite> is then named
//                 "<layer> [NAME]" and carries <property name="kernodeck.variant" value="NAME"/>;
//                 classname and name of each case stay as they are. Without it, no properties.
// --merge         reports this tool wrote (one per variant): their <testsuite> elements, in the
//                 order given, go unchanged into one <testsuites> whose counts and time are the
//                 sums. An input that is not such a report is an error. Excludes --ctest-junit,
//                 --gtest-xml, --ctest-tests and --variant; one of --ctest-junit and --merge is
//                 required.
// --title         the report's name (<testsuites name>), "kernodeck-diagnostic" by default.
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
#include <iostream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "junit_convert.hpp"

namespace {

std::string read_input(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw kd::junit::InputError(std::string("cannot read ") + what + " " + path);
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw kd::junit::InputError(std::string("cannot read ") + what + " " + path);
  return content.str();
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Rewrites CTest's JUnit, with GoogleTest's per-test XML, into a JUnit report "
               "that validates against junit-10.xsd, or merges such reports into one.",
               "kernodeck-junit"};
  std::string ctest_junit, gtest_dir, output, ctest_tests, variant, title = "kernodeck-diagnostic";
  std::vector<std::string> merge;
  CLI::Option* ctest_junit_option =
      app.add_option("--ctest-junit", ctest_junit, "the file ctest --output-junit wrote")
          ->type_name("FILE");
  CLI::Option* gtest_option =
      app.add_option("--gtest-xml", gtest_dir, "the XML_OUTPUT_DIR of gtest_discover_tests")
          ->type_name("DIR");
  app.add_option("--output", output, "the report to write")->required()->type_name("FILE");
  CLI::Option* tests_option =
      app.add_option("--ctest-tests", ctest_tests, "what ctest --show-only=json-v1 printed")
          ->type_name("FILE");
  CLI::Option* variant_option =
      app.add_option("--variant", variant,
                     "the build variant of this run: suites become \"<layer> [NAME]\" with "
                     "the property kernodeck.variant")
          ->type_name("NAME")
          ->check([](const std::string& value) {
            return value.empty() ? std::string("the variant must not be empty") : std::string();
          });
  CLI::Option* merge_option =
      app.add_option("--merge", merge, "reports kernodeck-junit wrote, to merge into one")
          ->type_name("FILE")
          ->expected(1, -1);
  app.add_option("--title", title, "name of the report (<testsuites name>)")->type_name("NAME");
  merge_option->excludes(ctest_junit_option)
      ->excludes(gtest_option)
      ->excludes(tests_option)
      ->excludes(variant_option);
  try {
    app.parse(argc, argv);
    // Checked here rather than with needs(), so that --merge with --ctest-junit is reported as
    // the exclusion it is.
    if (ctest_junit_option->count() == 0 && merge_option->count() == 0)
      throw CLI::RequiredError("--ctest-junit or --merge");
    if (ctest_junit_option->count() > 0 && gtest_option->count() == 0)
      throw CLI::RequiredError("--gtest-xml (with --ctest-junit)");
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  try {
    if (!merge.empty()) {
      std::vector<kd::junit::MergeInput> inputs;
      for (const std::string& path : merge) inputs.push_back({path, read_input(path, "report")});
      const kd::junit::Merged merged = kd::junit::merge_reports(inputs, title);
      for (const std::string& warning : merged.warnings)
        std::cerr << "kernodeck-junit: warning: " << warning << '\n';
      write_output(output, merged.xml);
      std::cout << kd::junit::summary_line(merged.counts) << std::endl;
      return 0;
    }

    const kd::junit::CtestRun run =
        kd::junit::parse_ctest_junit(read_input(ctest_junit, "CTest JUnit"));
    std::vector<std::string> warnings;
    const kd::junit::GtestIndex gtest = kd::junit::load_gtest_dir(gtest_dir, warnings);
    for (const std::string& warning : warnings) std::cerr << "kernodeck-junit: " << warning << '\n';
    std::map<std::string, kd::junit::TestInfo> infos;
    if (!ctest_tests.empty())
      infos = kd::junit::parse_ctest_tests_json(read_input(ctest_tests, "CTest test list"));

    kd::junit::Report report = kd::junit::convert(run, gtest, infos, title);
    report.variant = variant;
    write_output(output, kd::junit::write_junit(report));
    std::cout << kd::junit::summary_line(report.counts()) << std::endl;
  } catch (const kd::junit::InputError& e) {
    std::cerr << "kernodeck-junit: error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "kernodeck-junit: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
