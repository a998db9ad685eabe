// Covers junit_inputs.hpp: what is read of CTest's JUnit, the cases' records
// (contract/case_record.hpp) and CTest's test list, and what is refused.
#include "junit_inputs.hpp"
#include "junit_verdict.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "junit_test_support.hpp"

namespace kd::junit {
namespace {

using namespace kd::junit::testing;

TEST(JunitCtestInput, ReadsStatusesReasonsAndOutput) {
  CtestRun run = parse_ctest_junit(kCtestJunit);
  EXPECT_DOUBLE_EQ(run.time, 4.0);
  ASSERT_EQ(run.cases.size(), 4u);
  EXPECT_EQ(run.cases[0].status, CtestStatus::Passed);
  EXPECT_EQ(run.cases[1].status, CtestStatus::Failed);
  EXPECT_DOUBLE_EQ(run.cases[1].time, 1.25);
  EXPECT_NE(run.cases[1].output.find("[ RUN      ] cli.run/bad"), std::string::npos);
  EXPECT_EQ(run.cases[2].status, CtestStatus::NotRun);
  EXPECT_EQ(run.cases[2].reason, "Unable to find executable");
  EXPECT_EQ(run.cases[3].status, CtestStatus::Disabled);
}

TEST(JunitCtestInput, RefusesWhatIsNotCtestJunit) {
  EXPECT_THROW(parse_ctest_junit("<testsuite"), InputError);
  EXPECT_THROW(parse_ctest_junit("<report/>"), InputError);
  // Another tool's JUnit: a wrapper CTest does not write, a case without CTest's status.
  EXPECT_THROW(parse_ctest_junit("<testsuites><testsuite/></testsuites>"), InputError);
  EXPECT_THROW(parse_ctest_junit("<testsuite><testcase name=\"x\" time=\"1\"/></testsuite>"),
               InputError);
}

// What a case writes when it ends, read back whole: its failures keep their lines and any
// character, its skip and place as GoogleTest gave them.
TEST(JunitCaseRecords, ARecordReadsBackAsItWasWritten) {
  CaseRecord written;
  written.name = "cli.run/bad";
  written.file = "suites/cli_cases.cpp";
  written.line = 84;
  written.promise = "a bad option is refused";
  written.started = "2026-03-01T10:00:01";
  written.ended = true;
  written.failures = {"x.cpp:3\nFailed\na ]]> b <&> \x07", "x.cpp:4\nagain"};
  written.skip = "x.cpp:9\nno GPU";
  written.time = 0.25;
  const std::optional<CaseRecord> read = kdh::parse_record(kdh::record_text(written));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->name, written.name);
  EXPECT_EQ(read->declared(), "suites/cli_cases.cpp:84");
  EXPECT_EQ(read->promise, written.promise);
  EXPECT_EQ(read->started, written.started);
  EXPECT_TRUE(read->ended);
  EXPECT_EQ(read->failures, written.failures);
  EXPECT_EQ(read->skip, written.skip);
  EXPECT_DOUBLE_EQ(read->time, 0.25);

  // A case that started and never came back: its place and promise, no verdict.
  const std::optional<CaseRecord> started = kdh::parse_record(
      R"({"name": "cli.run/crash", "file": "suites/cli_cases.cpp", "line": 130,)"
      R"( "started": "2026-03-01T10:00:02", "ended": false, "failures": ["ignored"]})");
  ASSERT_TRUE(started.has_value());
  EXPECT_FALSE(started->ended);
  EXPECT_TRUE(started->failures.empty());
  EXPECT_EQ(started->declared(), "suites/cli_cases.cpp:130");
  // A place without a line is none; what is not a record is refused.
  EXPECT_EQ(kdh::parse_record(R"({"name": "x.y", "file": "a.cpp", "line": "zero"})")->declared(),
            "");
  EXPECT_FALSE(kdh::parse_record(R"({"file": "a.cpp"})").has_value());
  EXPECT_FALSE(kdh::parse_record("{\"name\": \"cli.run/ha").has_value());
  EXPECT_FALSE(kdh::parse_record("[]").has_value());
}

TEST(JunitCaseRecords, TheFolderIsReadRecursivelyAndTheLaterStartWins) {
  Scratch scratch("records");
  auto text = [](const std::string& name, const std::string& started) {
    CaseRecord r;
    r.name = name;
    r.started = started;
    r.ended = true;
    return kdh::record_text(r);
  };
  scratch.write("cli.run/ok.json", text("cli.run/ok", "2026-03-01T10:00:01"));
  // The same case's record, left elsewhere by an older run.
  scratch.write("old/ok.json", text("cli.run/ok", "2026-03-01T09:00:00"));
  scratch.write("broken.json", "{\"name\": \"cli.run/half");
  scratch.write("notes.txt", "cli.run/unselected\n");
  std::vector<std::string> warnings;
  const CaseRecords records = load_records(scratch.dir, warnings);
  EXPECT_EQ(records.size(), 1u);
  ASSERT_EQ(records.count("cli.run/ok"), 1u);
  EXPECT_EQ(records.at("cli.run/ok").started, "2026-03-01T10:00:01");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("broken.json"), std::string::npos);
  EXPECT_THROW(load_records(scratch.dir / "absent", warnings), InputError);
}

TEST(JunitTestList, TellsGtestTestsTimeoutsAndWillFail) {
  const std::string json = R"({"kind":"ctestInfo","version":{"major":1,"minor":0},"tests":[
    {"name":"pre:cli.run/a","command":["/b/t","--gtest_filter=cli.run/a",
      "--gtest_also_run_disabled_tests","--gtest_output=xml:/b/x/cli.run/a.xml"],
     "properties":[{"name":"TIMEOUT","value":30.0}]},
    {"name":"many","command":["/b/t","--gtest_filter=cli.*"]},
    {"name":"sh","command":["/bin/sh","-c","exit 1"],
     "properties":[{"name":"WILL_FAIL","value":true},{"name":"TIMEOUT","value":0}]},
    {"name":"missing"}]})";
  auto infos = parse_ctest_tests_json(json);
  ASSERT_EQ(infos.size(), 4u);
  EXPECT_TRUE(infos["pre:cli.run/a"].gtest);
  EXPECT_EQ(infos["pre:cli.run/a"].gtest_name, "cli.run/a");
  EXPECT_EQ(infos["pre:cli.run/a"].timeout, 30.0);
  EXPECT_TRUE(infos["many"].gtest);
  EXPECT_EQ(infos["many"].gtest_name, "");
  EXPECT_FALSE(infos["sh"].gtest);
  EXPECT_TRUE(infos["sh"].will_fail);
  EXPECT_FALSE(infos["sh"].timeout.has_value());
  EXPECT_FALSE(infos["missing"].gtest);
  EXPECT_THROW(parse_ctest_tests_json("not json"), InputError);
}

// A plain `ctest` run's cleanup test sees only what the cases left: their records. Every case
// that left one is in the report with the verdict it recorded; one whose record never ended is
// an error; nothing else is.
TEST(JunitStartedRun, EveryCaseThatStartedHasItsVerdictAndOneWithoutIsAnError) {
  Scratch scratch("started");
  auto write = [&scratch](const std::string& name, bool ended,
                          const std::vector<std::string>& failures = {},
                          const std::string& skip = "") {
    CaseRecord r;
    r.name = name;
    r.file = "suites/cli_cases.cpp";
    r.line = name == "cli.run/crash" ? 130 : 84;
    r.started = "2026-03-01T10:00:01";
    r.ended = ended;
    r.failures = failures;
    r.skipped = !skip.empty();
    r.skip = skip;
    r.time = 0.25;
    scratch.write(kdh::record_file(name), kdh::record_text(r));
  };
  write("cli.run/ok", true);
  write("cli.run/bad", true, {"a.cpp:3\nexpected no_gpu"});
  write("cli.run/gpu", true, {}, "no GPU");
  // Started and never finished.
  write("cli.run/crash", false);
  // A file that is not a record says nothing.
  scratch.write("cli.run/notes.txt", "cli.run/unselected\n");

  std::vector<std::string> warnings;
  const CaseRecords records = load_records(scratch.dir, warnings);
  const CtestRun run = run_from_records(records);
  EXPECT_TRUE(warnings.empty());
  std::map<std::string, TestInfo> infos;
  const Report report = convert(run, records, infos, "t");

  ASSERT_EQ(report.suites.size(), 1u);
  std::map<std::string, ReportCase> by_id;
  for (const ReportCase& c : report.suites[0].cases) by_id[c.name] = c;
  ASSERT_EQ(by_id.size(), 4u) << "expected ok, bad, gpu and crash only";
  EXPECT_EQ(report.suites[0].name, "cli");
  EXPECT_EQ(by_id.at("ok").verdict, Verdict::Passed);
  EXPECT_DOUBLE_EQ(by_id.at("ok").time, 0.25);
  EXPECT_EQ(by_id.at("bad").verdict, Verdict::Failure);
  EXPECT_EQ(by_id.at("bad").message, "expected no_gpu");
  EXPECT_EQ(by_id.at("gpu").verdict, Verdict::Skipped);
  EXPECT_EQ(by_id.at("gpu").message, "no GPU");
  EXPECT_EQ(by_id.at("crash").verdict, Verdict::Error);
  EXPECT_EQ(by_id.at("crash").type, "crash");
  EXPECT_NE(by_id.at("crash").message.find("GoogleTest recorded no verdict"), std::string::npos)
      << by_id.at("crash").message;
  EXPECT_EQ(by_id.at("crash").declared, "suites/cli_cases.cpp:130");
  EXPECT_EQ(by_id.at("ok").declared, "suites/cli_cases.cpp:84");
  const Counts counts = report.counts();
  EXPECT_EQ(counts.tests, 4u);
  EXPECT_EQ(counts.passed, 1u);
  EXPECT_EQ(counts.failures, 1u);
  EXPECT_EQ(counts.errors, 1u);
  EXPECT_EQ(counts.skipped, 1u);
}

}  // namespace
}  // namespace kd::junit
