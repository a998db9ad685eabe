// Covers junit_inputs.hpp: what is read of CTest's JUnit, GoogleTest's XML, the marks of the
// cases that started and CTest's test list, and what is refused.
#include "junit_inputs.hpp"
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

TEST(JunitCtestInput, ReadsStatusesReasonsAndOutput) {
  CtestRun run = parse_ctest_junit(kCtestJunit);
  EXPECT_EQ(run.timestamp, "2026-03-01T10:00:00");
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
}

TEST(JunitGtestInput, JoinsCdataPiecesAndReadsSkips) {
  // GoogleTest's own way of writing "]]>" inside a message.
  const std::string xml = R"xml(<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" name="AllTests" timestamp="2026-03-01T10:00:01.000">
  <testsuite name="cli" tests="3">
    <testcase name="run/bad" status="run" result="completed" classname="cli"
        timestamp="2026-03-01T10:00:01.100">
      <failure message="x.cpp:3&#x0A;Failed&#x0A;a ]]&gt; b" type=""><![CDATA[x.cpp:3
Failed
a ]]>]]&gt;<![CDATA[ b]]></failure>
    </testcase>
    <testcase name="run/gpu" status="run" result="skipped" classname="cli">
      <skipped message="x.cpp:9&#x0A;no GPU"><![CDATA[x.cpp:9
no GPU]]></skipped>
    </testcase>
    <testcase name="DISABLED_run/off" status="notrun" result="suppressed" classname="cli"/>
  </testsuite>
</testsuites>)xml";
  auto cases = parse_gtest_xml(xml, "x.xml");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].full_name(), "cli.run/bad");
  ASSERT_EQ(cases[0].failures.size(), 1u);
  EXPECT_EQ(cases[0].failures[0], "x.cpp:3\nFailed\na ]]> b");
  EXPECT_EQ(cases[0].timestamp, "2026-03-01T10:00:01.100");
  EXPECT_TRUE(cases[1].skipped);
  EXPECT_EQ(cases[1].skip_text, "x.cpp:9\nno GPU");
  EXPECT_EQ(cases[1].timestamp, "2026-03-01T10:00:01.000");
}

TEST(JunitGtestInput, EachCaseIsDeclaredWhereGoogleTestSays) {
  // GoogleTest 1.12 writes file and line on every <testcase>: a TEST_P's for its instances,
  // what RegisterTest was given for a case registered by a helper or a loop.
  const auto cases = parse_gtest_xml(R"(<testsuites><testsuite name="cli">
  <testcase name="run/a" file="/src/suites/cli_cases.cpp" line="84" result="completed"/>
  <testcase name="run/b" file="/src/suites/cli_cases.cpp" line="117" result="completed"/>
  <testcase name="run/c" result="completed"/>
  <testcase name="run/d" file="/src/x.cpp" line="zero" result="completed"/>
</testsuite></testsuites>)",
                                     "x.xml");
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].file, "/src/suites/cli_cases.cpp");
  EXPECT_EQ(cases[0].line, 84);
  EXPECT_EQ(cases[1].line, 117);
  EXPECT_EQ(cases[2].file, "");
  EXPECT_EQ(cases[3].file, "");  // a place without a line is none
  EXPECT_EQ(cases[3].line, 0);
  GtestIndex index;
  for (const GtestCase& c : cases) index.add(c);
  EXPECT_EQ(index.declared("cli.run/b"), "/src/suites/cli_cases.cpp:117");
  EXPECT_EQ(index.declared("cli.run/c"), "");
  // A case without XML is placed by its ".started" mark; its XML, when there is one, wins.
  index.add_started({"cli.run/crash", "/src/suites/cli_cases.cpp", 130});
  index.add_started({"cli.run/a", "/elsewhere.cpp", 1});
  EXPECT_EQ(index.declared("cli.run/crash"), "/src/suites/cli_cases.cpp:130");
  EXPECT_EQ(index.declared("cli.run/a"), "/src/suites/cli_cases.cpp:84");
  EXPECT_EQ(index.declared("cli.run/unknown"), "");
}

TEST(JunitGtestInput, FolderIsIndexedByContentRecursively) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("kd-junit-test-" + std::to_string(::getpid()));
  fs::create_directories(dir / "cli.run");
  std::ofstream(dir / "cli.run" / "renamed.xml")
      << R"(<testsuites><testsuite name="cli"><testcase name="run/ok" result="completed"/>)"
      << "</testsuite></testsuites>";
  std::ofstream(dir / "broken.xml") << "<testsuites><testsuite";
  std::ofstream(dir / "other.xml") << "<coverage/>";
  std::vector<std::string> warnings;
  GtestIndex index = load_gtest_dir(dir, warnings);
  fs::remove_all(dir);
  EXPECT_EQ(index.size(), 1u);
  EXPECT_NE(index.find("cli.run/ok"), nullptr);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("broken.xml"), std::string::npos);
  EXPECT_THROW(load_gtest_dir(dir, warnings), InputError);
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

// A plain `ctest` run's cleanup test sees only what the cases left: GoogleTest's XML and the
// ".started" marks. Every case that left either is in the report with GoogleTest's verdict;
// one that started and left no verdict is an error; nothing else is.
TEST(JunitStartedRun, EveryCaseThatStartedHasItsVerdictAndOneWithoutIsAnError) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("kd-junit-started-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "cli.run");
  auto write = [](const fs::path& path, const std::string& text) {
    std::ofstream(path) << text;
  };
  auto gtest_xml = [](const std::string& name, const std::string& inner) {
    return R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" timestamp="2026-03-01T10:00:01"><testsuite name="cli" tests="1">
<testcase name=")" + name + R"(" file="/src/suites/cli_cases.cpp" line="84" status="run" )" +
           R"(result="completed" time="0.25" classname="cli">)" +
           inner + "</testcase></testsuite></testsuites>\n";
  };
  write(dir / "cli.run/ok.xml", gtest_xml("run/ok", ""));
  // A mark an older build wrote names the case only.
  write(dir / "cli.run/ok.xml.started", "cli.run/ok\n");
  write(dir / "cli.run/bad.xml",
        gtest_xml("run/bad", R"(<failure message="x"><![CDATA[a.cpp:3
expected no_gpu]]></failure>)"));
  write(dir / "cli.run/bad.xml.started", "cli.run/bad\t/src/suites/cli_cases.cpp:84\n");
  write(dir / "cli.run/gpu.xml",
        gtest_xml("run/gpu", R"(<skipped message="no GPU"><![CDATA[no GPU]]></skipped>)"));
  // Started and never finished: no XML, and its place only in its mark.
  write(dir / "cli.run/crash.xml.started", "cli.run/crash\t/src/suites/cli_cases.cpp:130\n");
  // A file that is neither mark nor XML says nothing.
  write(dir / "cli.run/notes.txt", "cli.run/unselected\n");

  std::vector<std::string> warnings;
  const GtestIndex index = load_gtest_dir(dir, warnings);
  const CtestRun run = run_from_started(index);
  EXPECT_TRUE(warnings.empty());
  std::map<std::string, TestInfo> infos;
  const Report report = convert(run, index, infos, "t");
  fs::remove_all(dir);

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
  EXPECT_EQ(by_id.at("crash").declared, "/src/suites/cli_cases.cpp:130");
  EXPECT_EQ(by_id.at("ok").declared, "/src/suites/cli_cases.cpp:84");
  const Counts counts = report.counts();
  EXPECT_EQ(counts.tests, 4u);
  EXPECT_EQ(counts.passed, 1u);
  EXPECT_EQ(counts.failures, 1u);
  EXPECT_EQ(counts.errors, 1u);
  EXPECT_EQ(counts.skipped, 1u);
}

}  // namespace
}  // namespace kd::junit
