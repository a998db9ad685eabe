// Covers junit_verdict.hpp: how each combination of CTest's status and the case's record becomes
// a verdict.
#include "junit_verdict.hpp"

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

CtestCase ctest(std::string name, CtestStatus status, std::string reason = "",
                std::string output = "", double time = 0.5) {
  return CtestCase{std::move(name), status, std::move(reason), time, std::move(output)};
}

// The record of a case that ended, started a second into the run.
CaseRecord record(std::string name) {
  CaseRecord r;
  r.name = std::move(name);
  r.started = "2026-03-01T10:00:01";
  r.ended = true;
  return r;
}

TestInfo gtest_info(std::optional<double> timeout = 10.0) {
  TestInfo info;
  info.gtest = true;
  info.timeout = timeout;
  return info;
}

// Converts one CTest case and returns its report entry.
ReportCase one(const CtestCase& c, const CaseRecords& index = {},
               const std::optional<TestInfo>& info = std::nullopt) {
  CtestRun run;
  run.cases.push_back(c);
  std::map<std::string, TestInfo> infos;
  if (info) infos[c.name] = *info;
  Report report = convert(run, index, infos, "t");
  EXPECT_EQ(report.suites.size(), 1u);
  EXPECT_EQ(report.suites.at(0).cases.size(), 1u);
  return report.suites.at(0).cases.at(0);
}

TEST(JunitVerdict, AssertionFailureKeepsTheWholeTextUnderTheLayerAndCaseId) {
  CaseRecords index;
  CaseRecord g = record("cli.run/usage_unknown_option");
  g.failures = {"suite.cpp:12\nFailed\nexit code 2, expected 64\ncommand: x --bogus"};
  add_record(index, g);
  ReportCase r = one(ctest("cli.run/usage_unknown_option", CtestStatus::Failed, "", "out"),
                     index, gtest_info());
  EXPECT_EQ(r.classname, "cli");
  EXPECT_EQ(r.name, "usage_unknown_option");
  EXPECT_EQ(r.verdict, Verdict::Failure);
  EXPECT_EQ(r.type, "assertion");
  EXPECT_EQ(r.message, "exit code 2, expected 64");
  // Its reason first, then the whole text of the assertion.
  EXPECT_EQ(r.body, "exit code 2, expected 64\n" + g.failures[0]);
  EXPECT_EQ(r.system_out, "out\n");
}

TEST(JunitVerdict, GtestProgramWithoutVerdictCrashedOrTimedOut) {
  const std::string output = "Note: Google Test filter = probe.run/x\n[ RUN      ] probe.run/x\n";
  ReportCase crashed =
      one(ctest("probe.run/x", CtestStatus::Failed, "", output, 0.2), {}, gtest_info(10.0));
  EXPECT_EQ(crashed.verdict, Verdict::Error);
  EXPECT_EQ(crashed.type, "crash");
  EXPECT_NE(crashed.message.find("crashed or was killed"), std::string::npos);
  EXPECT_NE(crashed.body.find("[ RUN      ] probe.run/x"), std::string::npos);

  ReportCase timed_out =
      one(ctest("probe.run/x", CtestStatus::Failed, "", output, 2.004), {}, gtest_info(2.0));
  EXPECT_EQ(timed_out.verdict, Verdict::Error);
  EXPECT_EQ(timed_out.type, "timeout");
  EXPECT_NE(timed_out.message.find("CTest's TIMEOUT of 2 s"), std::string::npos);

  // A record that never ended is the evidence too, and without a TIMEOUT the body says that a
  // CTest-wide one may have stopped it.
  CaseRecords index;
  CaseRecord open = record("probe.run/x");
  open.ended = false;
  add_record(index, open);
  ReportCase unlisted = one(ctest("probe.run/x", CtestStatus::Failed, "", output, 2.0), index);
  EXPECT_EQ(unlisted.verdict, Verdict::Error);
  EXPECT_EQ(unlisted.type, "crash");
  EXPECT_NE(unlisted.body.find("ctest --timeout"), std::string::npos);
}

TEST(JunitVerdict, GtestPassedButCtestFailedIsAnAbnormalExit) {
  CaseRecords index;
  add_record(index, record("probe.run/dirty"));
  ReportCase r = one(ctest("probe.run/dirty", CtestStatus::Failed), index, gtest_info());
  EXPECT_EQ(r.verdict, Verdict::Error);
  EXPECT_EQ(r.type, "abnormal-exit");
  EXPECT_EQ(r.name, "dirty");
}

TEST(JunitVerdict, NotRunIsAnErrorUnlessItIsASkip) {
  for (const char* reason : {"Unable to find executable", "Fixture dependency failed",
                             "Required Files Missing"}) {
    ReportCase r = one(ctest("sh.x", CtestStatus::NotRun, reason, "why"));
    EXPECT_EQ(r.verdict, Verdict::Error) << reason;
    EXPECT_EQ(r.type, "not-run");
    EXPECT_NE(r.message.find(reason), std::string::npos);
  }
  ReportCase code = one(ctest("sh.x", CtestStatus::NotRun, "SKIP_RETURN_CODE=77",
                              "checking\nno nvidia-smi on this runner\n"));
  EXPECT_EQ(code.verdict, Verdict::Skipped);
  EXPECT_EQ(code.message, "SKIP_RETURN_CODE=77: no nvidia-smi on this runner");
  EXPECT_EQ(code.classname, "sh");
  EXPECT_EQ(code.name, "x");

  CaseRecords index;
  CaseRecord g = record("cli.run/gpu");
  g.skipped = true;
  g.skip = "suite.cpp:40\nno GPU on this runner";
  add_record(index, g);
  ReportCase gskip = one(ctest("cli.run/gpu", CtestStatus::NotRun,
                               "SKIP_REGULAR_EXPRESSION_MATCHED"),
                         index, gtest_info());
  EXPECT_EQ(gskip.verdict, Verdict::Skipped);
  EXPECT_EQ(gskip.message, "no GPU on this runner");
  // The reason first, then where GoogleTest recorded the skip.
  EXPECT_EQ(gskip.body, "no GPU on this runner\nSkipped at suite.cpp:40");

  EXPECT_EQ(one(ctest("sh.off", CtestStatus::Disabled)).verdict, Verdict::Skipped);
}

TEST(JunitVerdict, AGtestProgramWithoutRecordsSkipsWithTheReasonItPrinted) {
  // The unit tests and the self-test write no record: the reason is read from the console.
  const std::string console =
      "[ RUN      ] OutputFile.Locked\n"
      "/src/check/tests/output_file_test.cpp:187: Skipped\n"
      "root may write into any folder\n"
      "and says so on two lines\n"
      "[  SKIPPED ] OutputFile.Locked (0 ms)\n"
      "[==========] 1 test from 1 test suite ran. (0 ms total)\n"
      "[  SKIPPED ] 1 test, listed below:\n"
      "[  SKIPPED ] OutputFile.Locked\n";
  ReportCase r = one(ctest("OutputFile.Locked", CtestStatus::NotRun,
                           "SKIP_REGULAR_EXPRESSION_MATCHED", console));
  EXPECT_EQ(r.verdict, Verdict::Skipped);
  EXPECT_EQ(r.message, "root may write into any folder and says so on two lines");
  EXPECT_EQ(r.body,
            "root may write into any folder and says so on two lines\n"
            "Skipped at /src/check/tests/output_file_test.cpp:187");

  // A skip without any reason printed still says what CTest saw.
  ReportCase bare = one(ctest("OutputFile.Bare", CtestStatus::NotRun,
                              "SKIP_REGULAR_EXPRESSION_MATCHED",
                              "x.cpp:3: Skipped\n\n[  SKIPPED ] OutputFile.Bare (0 ms)\n"));
  EXPECT_EQ(bare.verdict, Verdict::Skipped);
  EXPECT_EQ(bare.message,
            "SKIP_REGULAR_EXPRESSION_MATCHED: [  SKIPPED ] OutputFile.Bare (0 ms)");
}

TEST(JunitVerdict, AFailedAssertionIsNeverHiddenAsASkipOrAPass) {
  CaseRecords index;
  CaseRecord g = record("cli.run/x");
  g.failures = {"boom"};
  g.skipped = true;
  add_record(index, g);
  EXPECT_EQ(one(ctest("cli.run/x", CtestStatus::NotRun, "SKIP_REGULAR_EXPRESSION_MATCHED"),
                index, gtest_info())
                .verdict,
            Verdict::Failure);
  EXPECT_EQ(one(ctest("cli.run/x", CtestStatus::Passed), index, gtest_info()).verdict,
            Verdict::Failure);
}

TEST(JunitVerdict, PlainTestFailsByItsStatus) {
  ReportCase r = one(ctest("junit.consumer", CtestStatus::Failed, "", "step 1\nxmllint: bad\n"));
  EXPECT_EQ(r.verdict, Verdict::Failure);
  EXPECT_EQ(r.type, "exit-status");
  EXPECT_EQ(r.message, "failed (CTest): xmllint: bad");
  EXPECT_EQ(r.classname, "junit");
  EXPECT_EQ(r.name, "consumer");
  TestInfo plain;
  plain.timeout = 5.0;
  EXPECT_EQ(one(ctest("junit.consumer", CtestStatus::Failed, "", "", 5.01), {}, plain).type,
            "timeout");
}

TEST(JunitVerdict, CollidingCaseIdsKeepTheWholeTestName) {
  CtestRun run;
  run.cases = {ctest("cli.run/a", CtestStatus::Passed), ctest("cli.check/a", CtestStatus::Passed),
               ctest("cli.run/b", CtestStatus::Passed), ctest("Unit.Table", CtestStatus::Passed)};
  std::map<std::string, TestInfo> infos;
  for (const auto& c : run.cases) infos[c.name] = gtest_info();
  Report report = convert(run, {}, infos, "t");
  ASSERT_EQ(report.suites.size(), 2u);
  ASSERT_EQ(report.suites[0].cases.size(), 3u);
  EXPECT_EQ(report.suites[0].cases[0].name, "run/a");
  EXPECT_EQ(report.suites[0].cases[1].name, "check/a");
  EXPECT_EQ(report.suites[0].cases[2].name, "b");
  EXPECT_EQ(report.suites[1].name, "Unit");
  EXPECT_EQ(report.suites[1].cases[0].name, "Table");
}

TEST(JunitReasonFirst, EachVerdictButAPassOpensWithItsReasonAndEndsWhereTheCaseIsDeclared) {
  CaseRecords index;
  CaseRecord passed = record("cli.run/ok");
  passed.file = "suites/cli_cases.cpp";
  passed.line = 84;
  add_record(index, passed);
  EXPECT_EQ(one(ctest("cli.run/ok", CtestStatus::Passed), index, gtest_info()).body, "");

  CaseRecord skipped = record("cli.run/gpu");
  skipped.file = "suites/cli_cases.cpp";
  skipped.line = 84;
  skipped.skipped = true;
  skipped.skip = "suites/cli_cases.cpp:90\nno GPU";
  add_record(index, skipped);
  EXPECT_EQ(one(ctest("cli.run/gpu", CtestStatus::NotRun, "SKIP_REGULAR_EXPRESSION_MATCHED"),
                index, gtest_info())
                .body,
            "no GPU\nSkipped at suites/cli_cases.cpp:90\nCase declared at suites/cli_cases.cpp:84");

  CaseRecord failed = record("compute.run/product");
  failed.file = "suites/compute_cases.cpp";
  failed.line = 7;
  failed.failures = {"/src/x.cpp:3\nwrong product\ndetails"};
  add_record(index, failed);
  EXPECT_EQ(one(ctest("compute.run/product", CtestStatus::Failed), index, gtest_info()).body,
            "wrong product\n/src/x.cpp:3\nwrong product\ndetails\n"
            "Case declared at suites/compute_cases.cpp:7");

  // A disabled test has no body of its own: its reason is its body; no record, no place.
  EXPECT_EQ(one(ctest("sh.off", CtestStatus::Disabled)).body,
            "disabled in CTest (DISABLED property)");
}

TEST(JunitVerdict, HeadlineSkipsGtestLocationLines) {
  EXPECT_EQ(headline("/src/a.cpp:12\nFailed\n\nexpected exit 0"), "expected exit 0");
  EXPECT_EQ(headline("a.cpp:3: Failure\nValue of: x\n  Actual: false"), "Value of: x");
  EXPECT_EQ(headline("a.cpp:3"), "a.cpp:3");
  EXPECT_EQ(headline(std::string(300, 'x')).size(), 203u);
}

}  // namespace
}  // namespace kd::junit
