// Covers junit_checks.hpp: the schema built in, what it refuses and why, and the skips that give
// no reason.
#include "junit_checks.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "certificate.hpp"
#include "junit_test_support.hpp"
#include "junit_xml.hpp"
#include "util/files.hpp"

namespace kd::junit {
namespace {

using namespace kd::junit::testing;

std::string all(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

TEST(JunitChecks, TheBuiltInSchemaIsJunit10) {
  const auto file = kd::read_file(KERNODECK_JUNIT_XSD);
  ASSERT_TRUE(file.has_value()) << KERNODECK_JUNIT_XSD;
  EXPECT_EQ(junit_xsd(), *file);
}

TEST(JunitChecks, AReportTheWriterWroteValidates) {
  EXPECT_EQ(all(schema_errors(write_junit(small_report()))), "");
  EXPECT_EQ(all(schema_errors(write_junit(sealed(small_report("pypi"))))), "");
  Report certified = certified_report(true);
  seal(certified);
  EXPECT_EQ(all(schema_errors(write_junit(certified))), "");
}

TEST(JunitChecks, WhatTheSchemaRefusesIsSaidWithItsLine) {
  const std::vector<std::string> bogus =
      schema_errors("<testsuites>\n  <bogus/>\n</testsuites>\n");
  ASSERT_EQ(bogus.size(), 1u) << all(bogus);
  EXPECT_EQ(bogus[0], "line 2: Element 'bogus': This element is not expected. Expected is ( "
                      "testsuite ).");

  const std::string unnamed = all(schema_errors(
      R"(<testsuites><testsuite tests="0" failures="0" errors="0"/></testsuites>)"));
  EXPECT_NE(unnamed.find("line 1: Element 'testsuite': The attribute 'name' is required"),
            std::string::npos)
      << unnamed;

  // A time the merge reads as a number, which junit-10.xsd's SUREFIRE_TIME does not allow.
  const std::string time = all(schema_errors(replace_once(
      write_junit(small_report()), "<testsuite name=\"cli\" tests=\"3\" failures=\"1\" "
                                   "errors=\"0\" skipped=\"1\" time=\"1.250\"",
      "<testsuite name=\"cli\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" "
      "time=\"-0\"")));
  EXPECT_NE(time.find("attribute 'time'"), std::string::npos) << time;
  EXPECT_NE(time.find("'-0'"), std::string::npos) << time;
}

TEST(JunitChecks, TextThatIsNoXmlIsRefusedWithTheParsersReason) {
  const std::vector<std::string> cut = schema_errors("<testsuites>\n<testsuite name=\"x\"");
  ASSERT_EQ(cut.size(), 1u) << all(cut);
  EXPECT_EQ(cut[0].rfind("not well-formed XML: line 2: ", 0), 0u) << cut[0];
  EXPECT_EQ(schema_errors("").size(), 1u);
  // No entity is ever fetched: an external DTD is not read, and the document does not validate.
  const std::string external = all(schema_errors(
      "<!DOCTYPE testsuites SYSTEM \"http://127.0.0.1:9/junit.dtd\"><testsuites/>"));
  EXPECT_EQ(external, "") << external;
}

TEST(JunitChecks, ASkipWithoutAReasonIsNamed) {
  Report report = small_report();
  ReportCase bare{"cli", "quiet", 0, Verdict::Skipped, "", "skipped by the test (no reason given)",
                  "", ""};
  ReportCase regex{"unit", "Quiet", 0, Verdict::Skipped, "",
                   "SKIP_REGULAR_EXPRESSION_MATCHED: [  SKIPPED ] unit.Quiet (0 ms)", "", ""};
  EXPECT_EQ(reasonless_skips(report), std::vector<std::string>{});
  report.suites[0].cases.push_back(bare);
  report.suites.push_back({"unit", {regex}});
  EXPECT_EQ(reasonless_skips(report),
            (std::vector<std::string>{"kernodeck.cli.quiet", "kernodeck.unit.Quiet"}));
}

}  // namespace
}  // namespace kd::junit
