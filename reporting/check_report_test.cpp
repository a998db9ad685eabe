// Covers check_report.hpp: the check's report of a case read once, its warnings among it.
#include "check_report.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "junit_test_support.hpp"

namespace kd::junit {
namespace {

using namespace kd::junit::testing;

TEST(JunitCheckReport, ReadsEachWarningOnOneLine) {
  const CheckReport r = check(report_warning("passed"));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].stage, "application");
  EXPECT_EQ(r.warnings[0].type, "ExtensionForOtherTorch");
  EXPECT_EQ(r.warnings[0].message, kSampleWarningWords);
  EXPECT_EQ(r.status, "passed");
}

TEST(JunitCheckReport, KeepsTheWarningsThatAreObjectsInTheirOrder) {
  const CheckReport r = check(
      R"({"warnings": [{"stage": "application", "type": "First", "message": "one\tline\u0001"},
                       "not an object", 7,
                       {"type": "Second", "message": 3}]})");
  ASSERT_EQ(r.warnings.size(), 2u);
  // A control character is made visible, as everything the XML carries is.
  EXPECT_EQ(r.warnings[0].message, "one line\\x01");
  EXPECT_EQ(r.warnings[1].type, "Second");
  EXPECT_EQ(r.warnings[1].stage, "");
  EXPECT_EQ(r.warnings[1].message, "");
  // A report without the list, or where it is not one, has none.
  EXPECT_TRUE(check(R"({"tool": {"name": "kernodeck-diagnostic"}})").warnings.empty());
  EXPECT_TRUE(check(R"({"warnings": {"type": "Alone"}})").warnings.empty());
  EXPECT_TRUE(check("not json").warnings.empty());
}

TEST(JunitCheckReport, EachCaseGetsTheWarningsOfItsOwnReport) {
  Report report = certified_report(true);  // pypi: cli.ok, cli.gpu, probe.bad
  const CaseReports reports{{"pypi/cli.ok", check(report_warning("passed"))},
                            {"cli.ok", check(R"({"warnings": [{"type": "Other"}]})")},
                            {"probe.bad", check(report_warning("failed", "ExtensionImportError"))},
                            {"cli.gpu", check(R"({"warnings": []})")}};
  add_report_warnings(report, reports);
  const std::string line =
      std::string("ExtensionForOtherTorch (application): ") + kSampleWarningWords;
  // The variant's own report first, as report_of_case finds it.
  EXPECT_EQ(report.suites.at(0).cases.at(0).warnings, std::vector<std::string>{line});
  EXPECT_TRUE(report.suites.at(0).cases.at(1).warnings.empty());
  EXPECT_EQ(report.suites.at(1).cases.at(0).warnings, std::vector<std::string>{line});
}

}  // namespace
}  // namespace kd::junit
