// Covers write_junit (junit_xml.hpp): the XML the report is made of, its variants and the
// promise of each case.
#include "junit_xml.hpp"
#include "html_page.hpp"
#include "junit_checks.hpp"
#include "junit_inputs.hpp"
#include "contract/case_record.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "junit_test_support.hpp"

namespace kd::junit {
namespace {

using namespace kd::junit::testing;

TEST(JunitOutput, ValidShapeCountsAndEscaping) {
  Report report;
  report.title = "kd";
  report.time = 3;
  ReportCase pass{"cli", "ok", 0.25, Verdict::Passed, "", "", "", ""};
  ReportCase fail{"cli", "bad", 1, Verdict::Failure, "assertion", "x < y & \"z\"",
                  "line 1\nline 2 <&> ]]> \x02", "tail\n"};
  ReportCase skip{"cli", "gpu", 0, Verdict::Skipped, "", "no GPU", "", "never written"};
  ReportCase error{"probe", "crash", 0.5, Verdict::Error, "crash", "crashed", "crashed\n...", "t"};
  report.suites = {{"cli", {pass, fail, skip}}, {"probe", {error}}};

  const std::string xml = write_junit(report);
  const XmlDoc doc = parse_xml(xml, "test");
  const auto* root = root_of(doc);
  EXPECT_EQ(root_counts(root), "testsuites tests=4 failures=1 errors=1 skipped=(none) time=3.000");

  const auto* cli = first_element(root, "testsuite");
  EXPECT_STREQ(attribute(cli, "name"), "cli");
  EXPECT_STREQ(attribute(cli, "tests"), "3");
  EXPECT_STREQ(attribute(cli, "skipped"), "1");
  EXPECT_STREQ(attribute(cli, "time"), "1.250");

  const auto* bad = next_element(first_element(cli, "testcase"), "testcase");
  EXPECT_STREQ(attribute(bad, "classname"), "kernodeck.cli");
  EXPECT_STREQ(attribute(bad, "name"), "bad");
  EXPECT_EQ(attribute(bad, "status"), nullptr);
  const auto* failure = first_element(bad, "failure");
  EXPECT_STREQ(attribute(failure, "message"), "x < y & \"z\"");
  EXPECT_STREQ(text_of(failure), "line 1\nline 2 <&> ]]> \\x02");
  EXPECT_STREQ(text_of(first_element(bad, "system-out")), "tail\n");

  const auto* gpu = next_element(bad, "testcase");
  EXPECT_STREQ(attribute(first_element(gpu, "skipped"), "message"), "no GPU");
  EXPECT_EQ(first_element(gpu, "system-out"), nullptr);

  const auto* probe = next_element(cli, "testsuite");
  EXPECT_STREQ(attribute(probe, "errors"), "1");
  EXPECT_STREQ(attribute(first_element(first_element(probe, "testcase"), "error"), "type"),
               "crash");

  EXPECT_EQ(summary_line(report.counts()), "tests=4 passed=1 failures=1 errors=1 skipped=1");
}

TEST(JunitVariant, SuitesCarryTheVariantWhileCasesKeepTheirNames) {
  EXPECT_EQ(suite_name("cli", "pypi"), "cli [pypi]");
  EXPECT_EQ(suite_name("cli", ""), "cli");

  const std::string xml = write_junit(sealed(small_report("pypi")));
  const XmlDoc doc = parse_xml(xml, "test");
  const auto* root = root_of(doc);
  EXPECT_STREQ(attribute(root, "name"), "kd");
  EXPECT_STREQ(attribute(root, "tests"), "4");
  EXPECT_EQ(attribute_of_each(root, "testsuite", "name"),
            (std::vector<std::string>{"cli [pypi]", "probe [pypi]"}));
  for (const auto* suite = first_element(root, "testsuite"); suite;
       suite = next_element(suite, "testsuite")) {
    // The properties come first, and hold the variant alone.
    const auto* properties = first_element(suite);
    ASSERT_NE(properties, nullptr);
    EXPECT_STREQ(name_of(properties), "properties");
    EXPECT_EQ(attribute_of_each(properties, "property", "name"),
              std::vector<std::string>{"kernodeck.variant"});
    EXPECT_EQ(attribute_of_each(properties, "property", "value"),
              std::vector<std::string>{"pypi"});
    EXPECT_EQ(next_element(first_element(suite, "properties"), "properties"), nullptr);
  }
  const auto* cli = first_element(root, "testsuite");
  EXPECT_EQ(attribute_of_each(cli, "testcase", "classname"),
            (std::vector<std::string>{"kernodeck.cli", "kernodeck.cli", "kernodeck.cli"}));
  EXPECT_EQ(attribute_of_each(cli, "testcase", "name"),
            (std::vector<std::string>{"ok", "bad", "gpu"}));
  EXPECT_STREQ(attribute(cli, "failures"), "1");
  EXPECT_STREQ(attribute(cli, "skipped"), "1");
}

TEST(JunitVariant, WithoutAVariantTheReportIsAsBefore) {
  const std::string plain = write_junit(small_report());
  EXPECT_EQ(plain.find("<properties"), std::string::npos) << plain;
  EXPECT_NE(plain.find("<testsuite name=\"cli\" "), std::string::npos) << plain;
  // The variant adds the properties and the suffix, and changes nothing else.
  std::string tagged = write_junit(sealed(small_report("debian")));
  const std::string properties =
      "<properties>\n"
      "            <property name=\"kernodeck.variant\" value=\"debian\"/>\n"
      "        </properties>\n        ";
  for (const char* layer : {"cli", "probe"}) {
    const std::string name = std::string("name=\"") + layer;
    tagged = replace_once(tagged, name + " [debian]\"", name + "\"");
    tagged = replace_once(tagged, properties, "");
  }
  EXPECT_EQ(tagged, plain);
}

TEST(JunitPromise, ReadFromGoogleTestsParameterAndWrittenFirstInEveryVerdictsOutput) {
  // The harness prints a case as "<layer>.<id> guards: <promise>"; GoogleTest hands that to the
  // case's record as its value parameter.
  EXPECT_EQ(kdh::promise_of("cli.usage guards: exit 2 & nothing on stdout"),
            "exit 2 & nothing on stdout");
  EXPECT_EQ(kdh::promise_of("cli.usage"), "");
  EXPECT_EQ(kdh::promise_of(""), "");

  Report report;
  report.title = "kd";
  ReportCase pass{"cli", "ok", 0.25, Verdict::Passed, "", "", "", ""};
  pass.promise = "a pass keeps its promise";
  ReportCase skip{"cli", "gpu", 0, Verdict::Skipped, "", "no GPU", "no GPU", "never written"};
  skip.promise = "a GPU case";
  ReportCase fail{"cli", "bad", 1, Verdict::Failure, "assertion", "m", "body", "tail\n"};
  fail.promise = "a failure";
  ReportCase plain{"cli", "plain", 0, Verdict::Passed, "", "", "", ""};
  report.suites = {{"cli", {pass, skip, fail, plain}}};
  const std::string xml = write_junit(report);
  const XmlDoc doc = parse_xml(xml, "test");
  const auto* tc = first_element(first_element(root_of(doc), "testsuite"), "testcase");
  EXPECT_STREQ(text_of(first_element(tc, "system-out")), "Promise: a pass keeps its promise\n");
  tc = next_element(tc, "testcase");
  EXPECT_STREQ(text_of(first_element(tc, "system-out")), "Promise: a GPU case\n");
  tc = next_element(tc, "testcase");
  EXPECT_STREQ(text_of(first_element(tc, "system-out")), "Promise: a failure\n\ntail\n");
  tc = next_element(tc, "testcase");
  EXPECT_EQ(first_element(tc, "system-out"), nullptr);

  // The HTML page shows the recorded promise, whatever the source declares.
  const std::string html = certificate_html(report, {}, {});
  EXPECT_NE(html.find("Promise: a pass keeps its promise"), std::string::npos) << html;
  EXPECT_NE(html.find("Promise: a GPU case"), std::string::npos) << html;
}

TEST(JunitWarnings, WrittenAfterThePromiseInEveryVerdictsOutputAndReadBack) {
  Report report;
  report.title = "kd";
  ReportCase pass{"cli", "ok", 0.25, Verdict::Passed, "", "", "", ""};
  pass.promise = "a pass";
  pass.declared = "suites/cli_cases.cpp:4";
  pass.warnings = {"ExtensionForOtherTorch (application): made for torch==2.9.1 <&>\nsaid \x01"};
  ReportCase skip{"cli", "gpu", 0, Verdict::Skipped, "", "no GPU", "no GPU", "never written"};
  skip.warnings = {"First (application): one", "Second (application): two"};
  ReportCase fail{"cli", "bad", 1, Verdict::Failure, "assertion", "m", "body", "tail\n"};
  fail.promise = "a failure";
  fail.warnings = {"ExtensionForOtherTorch (application): three"};
  report.suites = {{"cli", {pass, skip, fail}}};
  seal(report);
  const std::string xml = write_junit(report);
  const XmlDoc doc = parse_xml(xml, "test");
  const auto* tc = first_element(first_element(root_of(doc), "testsuite"), "testcase");
  // A pass keeps them, on one line each, safe for XML, after its promise and declaration.
  EXPECT_STREQ(text_of(first_element(tc, "system-out")),
               "Promise: a pass\nCase declared at suites/cli_cases.cpp:4\nWarning: "
               "ExtensionForOtherTorch (application): made for torch==2.9.1 <&> said \\x01\n");
  EXPECT_EQ(first_element(tc, "failure"), nullptr);
  tc = next_element(tc, "testcase");
  EXPECT_STREQ(text_of(first_element(tc, "system-out")),
               "Warning: First (application): one\nWarning: Second (application): two\n");
  tc = next_element(tc, "testcase");
  EXPECT_STREQ(text_of(first_element(tc, "system-out")),
               "Promise: a failure\nWarning: ExtensionForOtherTorch (application): three\n\n"
               "tail\n");
  EXPECT_TRUE(schema_errors(xml).empty()) << xml;

  // Read back (a merge), each case keeps its warnings apart from its output.
  const Report again = read_junit(xml, "a.xml");
  const std::vector<ReportCase>& cases = again.suites.at(0).cases;
  EXPECT_EQ(cases.at(0).warnings, report.suites.at(0).cases.at(0).warnings);
  EXPECT_EQ(cases.at(0).declared, "suites/cli_cases.cpp:4");
  EXPECT_EQ(cases.at(1).warnings, skip.warnings);
  EXPECT_EQ(cases.at(2).warnings, fail.warnings);
  EXPECT_EQ(cases.at(2).system_out, "tail\n");
  EXPECT_EQ(write_junit(again), xml);

  // A case's own output that only starts like a warning stays its output.
  Report plain;
  plain.title = "kd";
  plain.suites = {{"sh", {{"sh", "script", 1, Verdict::Failure, "exit-status", "exit 1", "exit 1",
                           "Warning: the script's own words\nexit 1\n"}}}};
  const std::string plain_xml = write_junit(plain);
  const ReportCase read = read_junit(plain_xml, "b.xml").suites.at(0).cases.at(0);
  EXPECT_TRUE(read.warnings.empty());
  EXPECT_EQ(read.system_out, "Warning: the script's own words\nexit 1\n");
}

}  // namespace
}  // namespace kd::junit
