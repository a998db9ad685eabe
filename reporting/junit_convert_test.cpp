// Covers junit_convert.hpp: how each CTest / GoogleTest combination becomes a verdict, and the
// XML the report is made of.
#include "junit_convert.hpp"

#include <gtest/gtest.h>
#include <tinyxml2.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <fstream>
#include <string>

namespace kd::junit {
namespace {

// What CTest 3.25 writes, trimmed to the parts the converter reads.
const char* const kCtestJunit = R"xml(<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3" failures="1" disabled="1" skipped="1" hostname=""
  time="4" timestamp="2026-03-01T10:00:00">
  <testcase name="cli.run/usage_ok" classname="cli.run/usage_ok" time="0.5" status="run">
    <system-out>ok</system-out>
  </testcase>
  <testcase name="cli.run/bad" classname="cli.run/bad" time="1.25" status="fail">
    <failure message=""/>
    <system-out>[ RUN      ] cli.run/bad
line[NON-XML-CHAR-0x1]</system-out>
  </testcase>
  <testcase name="sh.missing" classname="sh.missing" time="0" status="notrun">
    <skipped message="Unable to find executable"/>
    <system-out>Unable to find executable: /nope</system-out>
  </testcase>
  <testcase name="sh.off" classname="sh.off" time="0" status="disabled">
    <system-out>Disabled</system-out>
  </testcase>
</testsuite>
)xml";

CtestCase ctest(std::string name, CtestStatus status, std::string reason = "",
                std::string output = "", double time = 0.5) {
  return CtestCase{std::move(name), status, std::move(reason), time, std::move(output)};
}

GtestCase gtest_case(std::string suite, std::string name) {
  GtestCase g;
  g.suite = std::move(suite);
  g.name = std::move(name);
  g.timestamp = "2026-03-01T10:00:01.250";
  g.source = "x.xml";
  return g;
}

TestInfo gtest_info(std::optional<double> timeout = 10.0) {
  TestInfo info;
  info.gtest = true;
  info.timeout = timeout;
  return info;
}

// Converts one CTest case and returns its report entry.
ReportCase one(const CtestCase& c, const GtestIndex& index = {},
               const std::optional<TestInfo>& info = std::nullopt) {
  CtestRun run;
  run.timestamp = "2026-03-01T10:00:00";
  run.cases.push_back(c);
  std::map<std::string, TestInfo> infos;
  if (info) infos[c.name] = *info;
  Report report = convert(run, index, infos, "t");
  EXPECT_EQ(report.suites.size(), 1u);
  EXPECT_EQ(report.suites.at(0).cases.size(), 1u);
  return report.suites.at(0).cases.at(0);
}

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

TEST(JunitVerdict, AssertionFailureKeepsTheWholeTextUnderTheLayerAndCaseId) {
  GtestIndex index;
  GtestCase g = gtest_case("cli", "run/usage_unknown_option");
  g.failures = {"suite.cpp:12\nFailed\nexit code 2, expected 64\ncommand: x --bogus"};
  index.add(g);
  ReportCase r = one(ctest("cli.run/usage_unknown_option", CtestStatus::Failed, "", "out"),
                     index, gtest_info());
  EXPECT_EQ(r.classname, "cli");
  EXPECT_EQ(r.name, "usage_unknown_option");
  EXPECT_EQ(r.verdict, Verdict::Failure);
  EXPECT_EQ(r.type, "assertion");
  EXPECT_EQ(r.message, "exit code 2, expected 64");
  EXPECT_EQ(r.body, g.failures[0]);
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

  // Without the test list, GoogleTest's banner is the evidence.
  ReportCase guessed = one(ctest("probe.run/x", CtestStatus::Failed, "", output, 2.0));
  EXPECT_EQ(guessed.verdict, Verdict::Error);
  EXPECT_EQ(guessed.type, "crash");
  EXPECT_NE(guessed.message.find("CTest timeout"), std::string::npos);
}

TEST(JunitVerdict, GtestPassedButCtestFailedIsAnAbnormalExit) {
  GtestIndex index;
  index.add(gtest_case("probe", "run/dirty"));
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

  GtestIndex index;
  GtestCase g = gtest_case("cli", "run/gpu");
  g.skipped = true;
  g.skip_text = "suite.cpp:40\nno GPU on this runner";
  index.add(g);
  ReportCase gskip = one(ctest("cli.run/gpu", CtestStatus::NotRun,
                               "SKIP_REGULAR_EXPRESSION_MATCHED"),
                         index, gtest_info());
  EXPECT_EQ(gskip.verdict, Verdict::Skipped);
  EXPECT_EQ(gskip.message, "no GPU on this runner");
  // The reason first, then where GoogleTest recorded the skip.
  EXPECT_EQ(gskip.body, "no GPU on this runner\nSkipped at suite.cpp:40");

  EXPECT_EQ(one(ctest("sh.off", CtestStatus::Disabled)).verdict, Verdict::Skipped);
}

TEST(JunitVerdict, AGtestProgramWithoutXmlSkipsWithTheReasonItPrinted) {
  // The unit tests and the self-test write no XML: the reason is read from the console.
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
  GtestIndex index;
  GtestCase g = gtest_case("cli", "run/x");
  g.failures = {"boom"};
  g.skipped = true;
  index.add(g);
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

TEST(JunitVerdict, VerdictFromAnEarlierRunIsIgnored) {
  GtestIndex index;
  GtestCase g = gtest_case("cli", "run/x");
  g.timestamp = "2026-03-01T09:59:50.000";
  index.add(g);
  ReportCase r = one(ctest("cli.run/x", CtestStatus::Failed), index, gtest_info());
  EXPECT_EQ(r.verdict, Verdict::Error);
  EXPECT_EQ(r.type, "crash");
  EXPECT_NE(r.body.find("was ignored"), std::string::npos);
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
<testcase name=")" + name + R"(" status="run" result="completed" time="0.25" classname="cli">)" +
           inner + "</testcase></testsuite></testsuites>\n";
  };
  write(dir / "cli.run/ok.xml", gtest_xml("run/ok", ""));
  write(dir / "cli.run/ok.xml.started", "cli.run/ok\n");
  write(dir / "cli.run/bad.xml",
        gtest_xml("run/bad", R"(<failure message="x"><![CDATA[a.cpp:3
expected no_gpu]]></failure>)"));
  write(dir / "cli.run/bad.xml.started", "cli.run/bad\n");
  write(dir / "cli.run/gpu.xml",
        gtest_xml("run/gpu", R"(<skipped message="no GPU"><![CDATA[no GPU]]></skipped>)"));
  // Started and never finished: no XML.
  write(dir / "cli.run/crash.xml.started", "cli.run/crash\n");
  // A file that is neither mark nor XML says nothing.
  write(dir / "cli.run/notes.txt", "cli.run/unselected\n");

  std::vector<std::string> warnings;
  const GtestIndex index = load_gtest_dir(dir, warnings);
  const CtestRun run = run_from_started(dir, index, warnings);
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
  const Counts counts = report.counts();
  EXPECT_EQ(counts.tests, 4u);
  EXPECT_EQ(counts.passed, 1u);
  EXPECT_EQ(counts.failures, 1u);
  EXPECT_EQ(counts.errors, 1u);
  EXPECT_EQ(counts.skipped, 1u);
}

TEST(JunitText, XmlSafeKeepsUtf8AndMakesTheRestVisible) {
  EXPECT_EQ(xml_safe("a\x01" "b\tc\n"), "a\\x01b\tc\n");
  EXPECT_EQ(xml_safe("5 \xC2\xB5s \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "5 \xC2\xB5s \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(xml_safe("bad \xFF\xC3 end"), "bad \\xFF\\xC3 end");
  EXPECT_EQ(xml_safe("\xC0\xAF"), "\\xC0\\xAF");          // overlong '/'
  EXPECT_EQ(xml_safe("\xED\xA0\x80"), "\\xED\\xA0\\x80");  // a surrogate
  EXPECT_EQ(xml_safe("\xEF\xBF\xBE"), "\\xEF\\xBF\\xBE");  // U+FFFE
  EXPECT_EQ(xml_safe("a\r\nb\rc"), "a\nb\nc");
}

TEST(JunitText, TailKeepsTheLastLinesAndSaysHowManyWereCut) {
  EXPECT_EQ(tail_lines("a\nb\nc\n\n", 5), "a\nb\nc\n");
  EXPECT_EQ(tail_lines("1\n2\n3\n4\n", 2), "[... 2 earlier lines not shown ...]\n3\n4\n");
  EXPECT_EQ(tail_lines("", 2), "");
}

TEST(JunitText, HeadlineSkipsGtestLocationLines) {
  EXPECT_EQ(headline("/src/a.cpp:12\nFailed\n\nexpected exit 0"), "expected exit 0");
  EXPECT_EQ(headline("a.cpp:3: Failure\nValue of: x\n  Actual: false"), "Value of: x");
  EXPECT_EQ(headline("a.cpp:3"), "a.cpp:3");
  EXPECT_EQ(headline(std::string(300, 'x')).size(), 203u);
}

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
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS) << xml;
  const auto* root = doc.RootElement();
  EXPECT_STREQ(root->Name(), "testsuites");
  EXPECT_STREQ(root->Attribute("tests"), "4");
  EXPECT_STREQ(root->Attribute("failures"), "1");
  EXPECT_STREQ(root->Attribute("errors"), "1");
  EXPECT_EQ(root->Attribute("skipped"), nullptr);  // not allowed there by junit-10.xsd
  EXPECT_STREQ(root->Attribute("time"), "3.000");

  const auto* cli = root->FirstChildElement("testsuite");
  EXPECT_STREQ(cli->Attribute("name"), "cli");
  EXPECT_STREQ(cli->Attribute("tests"), "3");
  EXPECT_STREQ(cli->Attribute("skipped"), "1");
  EXPECT_STREQ(cli->Attribute("time"), "1.250");

  const auto* bad = cli->FirstChildElement("testcase")->NextSiblingElement("testcase");
  EXPECT_STREQ(bad->Attribute("classname"), "kernodeck.cli");
  EXPECT_STREQ(bad->Attribute("name"), "bad");
  EXPECT_EQ(bad->Attribute("status"), nullptr);
  const auto* failure = bad->FirstChildElement("failure");
  EXPECT_STREQ(failure->Attribute("message"), "x < y & \"z\"");
  EXPECT_STREQ(failure->GetText(), "line 1\nline 2 <&> ]]> \\x02");
  EXPECT_STREQ(bad->FirstChildElement("system-out")->GetText(), "tail\n");

  const auto* gpu = bad->NextSiblingElement("testcase");
  EXPECT_STREQ(gpu->FirstChildElement("skipped")->Attribute("message"), "no GPU");
  EXPECT_EQ(gpu->FirstChildElement("system-out"), nullptr);

  const auto* probe = cli->NextSiblingElement("testsuite");
  EXPECT_STREQ(probe->Attribute("errors"), "1");
  EXPECT_STREQ(probe->FirstChildElement("testcase")->FirstChildElement("error")->Attribute("type"),
               "crash");

  EXPECT_EQ(summary_line(report.counts()), "tests=4 passed=1 failures=1 errors=1 skipped=1");
}

// Two layers, one case of each verdict: what write_junit is given in the tests below.
Report small_report(const std::string& variant = "", double time = 3) {
  Report report;
  report.title = "kd";
  report.time = time;
  report.variant = variant;
  ReportCase pass{"cli", "ok", 0.25, Verdict::Passed, "", "", "", ""};
  ReportCase fail{"cli", "bad", 1, Verdict::Failure, "assertion", "x < y", "line 1\nline 2 <&>",
                  "tail\n"};
  ReportCase skip{"cli", "gpu", 0, Verdict::Skipped, "", "no GPU", "", ""};
  ReportCase error{"probe", "crash", 0.5, Verdict::Error, "crash", "crashed", "crashed\n...", "t"};
  report.suites = {{"cli", {pass, fail, skip}}, {"probe", {error}}};
  return report;
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::vector<std::string> attribute_of_each(const tinyxml2::XMLElement* parent, const char* child,
                                           const char* attribute) {
  std::vector<std::string> values;
  for (const auto* e = parent->FirstChildElement(child); e; e = e->NextSiblingElement(child))
    values.emplace_back(e->Attribute(attribute) ? e->Attribute(attribute) : "(none)");
  return values;
}

TEST(JunitVariant, SuitesCarryTheVariantWhileCasesKeepTheirNames) {
  EXPECT_EQ(suite_name("cli", "pypi"), "cli [pypi]");
  EXPECT_EQ(suite_name("cli", ""), "cli");

  const std::string xml = write_junit(small_report("pypi"));
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS) << xml;
  const auto* root = doc.RootElement();
  EXPECT_STREQ(root->Attribute("name"), "kd");
  EXPECT_STREQ(root->Attribute("tests"), "4");
  EXPECT_EQ(attribute_of_each(root, "testsuite", "name"),
            (std::vector<std::string>{"cli [pypi]", "probe [pypi]"}));
  for (const auto* suite = root->FirstChildElement("testsuite"); suite;
       suite = suite->NextSiblingElement("testsuite")) {
    // The properties come first, and hold the variant alone.
    const auto* properties = suite->FirstChildElement();
    ASSERT_NE(properties, nullptr);
    EXPECT_STREQ(properties->Name(), "properties");
    EXPECT_EQ(attribute_of_each(properties, "property", "name"),
              std::vector<std::string>{"kernodeck.variant"});
    EXPECT_EQ(attribute_of_each(properties, "property", "value"),
              std::vector<std::string>{"pypi"});
    EXPECT_EQ(suite->FirstChildElement("properties")->NextSiblingElement("properties"), nullptr);
  }
  const auto* cli = root->FirstChildElement("testsuite");
  EXPECT_EQ(attribute_of_each(cli, "testcase", "classname"),
            (std::vector<std::string>{"kernodeck.cli", "kernodeck.cli", "kernodeck.cli"}));
  EXPECT_EQ(attribute_of_each(cli, "testcase", "name"),
            (std::vector<std::string>{"ok", "bad", "gpu"}));
  EXPECT_STREQ(cli->Attribute("failures"), "1");
  EXPECT_STREQ(cli->Attribute("skipped"), "1");
}

TEST(JunitVariant, WithoutAVariantTheReportIsAsBefore) {
  const std::string plain = write_junit(small_report());
  EXPECT_EQ(plain.find("<properties"), std::string::npos) << plain;
  EXPECT_NE(plain.find("<testsuite name=\"cli\" "), std::string::npos) << plain;
  // The variant adds the properties and the suffix, and changes nothing else.
  std::string tagged = write_junit(small_report("debian"));
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

TEST(JunitMerge, SumsTheCountsAndKeepsEverySuiteInOrder) {
  Report b = small_report("b", 1.5);
  b.suites.pop_back();  // b holds cli only: 3 cases, no error
  const std::string a_xml = write_junit(small_report("a"));
  const Merged merged = merge_reports({{"a.xml", a_xml}, {"b.xml", write_junit(b)}}, "both");
  EXPECT_TRUE(merged.warnings.empty());
  EXPECT_EQ(summary_line(merged.counts), "tests=7 passed=2 failures=2 errors=1 skipped=2");

  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(merged.xml.c_str()), tinyxml2::XML_SUCCESS) << merged.xml;
  const auto* root = doc.RootElement();
  EXPECT_STREQ(root->Name(), "testsuites");
  EXPECT_STREQ(root->Attribute("name"), "both");
  EXPECT_STREQ(root->Attribute("tests"), "7");
  EXPECT_STREQ(root->Attribute("failures"), "2");
  EXPECT_STREQ(root->Attribute("errors"), "1");
  EXPECT_EQ(root->Attribute("skipped"), nullptr);  // not allowed there by junit-10.xsd
  EXPECT_STREQ(root->Attribute("time"), "4.500");
  EXPECT_EQ(attribute_of_each(root, "testsuite", "name"),
            (std::vector<std::string>{"cli [a]", "probe [a]", "cli [b]"}));

  // Each suite is the input's, unchanged: the merged text holds a's suites verbatim.
  const std::size_t a_start = a_xml.find("<testsuite ");
  const std::size_t a_end = a_xml.rfind("</testsuite>") + std::string("</testsuite>").size();
  EXPECT_NE(merged.xml.find(a_xml.substr(a_start, a_end - a_start)), std::string::npos)
      << merged.xml;
  const auto* bad = root->FirstChildElement("testsuite")->FirstChildElement("testcase")
                        ->NextSiblingElement("testcase");
  EXPECT_STREQ(bad->Attribute("classname"), "kernodeck.cli");
  EXPECT_STREQ(bad->FirstChildElement("failure")->GetText(), "line 1\nline 2 <&>");
}

TEST(JunitMerge, OneReportMergedAloneIsTheSameReport) {
  const std::string xml = write_junit(small_report("a"));
  EXPECT_EQ(merge_reports({{"a.xml", xml}}, "kd").xml, xml);
  const std::string plain = write_junit(small_report());
  EXPECT_EQ(merge_reports({{"p.xml", plain}}, "kd").xml, plain);
}

TEST(JunitMerge, ASuiteNameTwiceIsWarnedAbout) {
  const std::string xml = write_junit(small_report());
  const Merged merged = merge_reports({{"debian.xml", xml}, {"pypi.xml", xml}}, "kd");
  ASSERT_EQ(merged.warnings.size(), 2u);
  EXPECT_NE(merged.warnings[0].find("\"cli\" is in both debian.xml and pypi.xml"),
            std::string::npos)
      << merged.warnings[0];
  EXPECT_NE(merged.warnings[0].find("--variant"), std::string::npos) << merged.warnings[0];
  EXPECT_EQ(merged.counts.tests, 8u);
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(merged.xml.c_str()), tinyxml2::XML_SUCCESS) << merged.xml;
  EXPECT_EQ(attribute_of_each(doc.RootElement(), "testsuite", "name"),
            (std::vector<std::string>{"cli", "probe", "cli", "probe"}));
}

TEST(JunitMerge, RefusesWhatIsNotAReportAndNamesTheFile) {
  const std::string good = write_junit(small_report("a"));
  auto refused = [&good](const std::string& xml, const std::string& why) {
    try {
      merge_reports({{"good.xml", good}, {"bad.xml", xml}}, "kd");
      ADD_FAILURE() << "accepted: " << why << "\n" << xml;
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("bad.xml is not a report kernodeck-junit wrote: ", 0), 0u)
          << message;
      EXPECT_NE(message.find(why), std::string::npos) << message;
    }
  };
  refused("", "not well-formed XML");
  refused("<testsuites name=\"x\"", "not well-formed XML");
  refused(kCtestJunit, "its root is <testsuite>, not <testsuites>");
  refused(replace_once(good, "tests=\"4\"", "tests=\"5\""),
          "<testsuites name=\"kd\"> says tests=5 but its cases make 4");
  refused(replace_once(good, "errors=\"1\"", "errors=\"one\""), "errors=\"one\" is not a count");
  refused(replace_once(good, "time=\"3.000\"", "time=\"-3\""), "is not a number of seconds");
  refused(replace_once(good, " time=\"3.000\"", ""), "<testsuites name=\"kd\"> has no time");
  refused(replace_once(good, "failures=\"1\" errors=\"0\"", "failures=\"0\" errors=\"0\""),
          "<testsuite name=\"cli [a]\"> says failures=0 but its cases make 1");
  refused(replace_once(good, "skipped=\"1\"", "skipped=\"2\""), "says skipped=2");
  refused(replace_once(good, "<testsuites ", "<testsuites disabled=\"0\" "),
          "has the attribute disabled, which junit-10.xsd does not allow there");
  refused(replace_once(good, "<testcase name=\"ok\"", "<testcase status=\"run\" name=\"ok\""),
          "<testcase name=\"ok\"> has the attribute status");
  refused(replace_once(good, "<system-out>tail", "<error message=\"\"/><system-out>tail"),
          "<testcase name=\"bad\"> has more than one verdict");
  const std::string nested = R"(<testsuite name="in" tests="0" failures="0" errors="0"/>)";
  refused(replace_once(good, "<testcase name=\"ok\"", nested + "<testcase name=\"ok\""),
          "<testsuite name=\"cli [a]\"> holds <testsuite>");
  refused(replace_once(good, "<property name=", "<other name="), "has a property that is not one");
}

// ---- the certificate -------------------------------------------------------------------------

namespace fs = std::filesystem;

// A folder of its own for one test, removed at the end.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name)
      : dir(fs::temp_directory_path() /
            ("kd-junit-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  void write(const fs::path& relative, const std::string& text) const {
    fs::create_directories((dir / relative).parent_path());
    std::ofstream(dir / relative) << text;
  }
};

std::string check_report(const std::string& probe, const std::string& device,
                         const std::string& code, const std::string& name,
                         const std::string& host = "null") {
  return R"({"tool": {"name": "kernodeck-diagnostic", "version": "1.0.0", "probe": ")" + probe +
         R"("}, "code": ")" + code + R"(", "requested": {"device": ")" + device +
         R"("}, "pytorch": {"version": "2.15.0", "cuda": "13.2", "hip": null, "backend": "cuda",)"
         R"( "visible_device_count": )" + (device == "cuda" ? "1" : "null") +
         R"(}, "execution": {"device_name": )" + name + R"(, "capability": )" +
         (name == "null" ? "null" : "\"9.0\"") + R"(}, "host": )" + host + "}";
}

TEST(JunitCertificate, FactsComeFromTheRealProbesReportsOnly) {
  Scratch s("facts");
  s.write("device.gpu_pass_index_0.json",
          check_report("libtorch", "cuda", "GPU_CHECK_PASSED", "\"NVIDIA H200\""));
  s.write("device.gpu_pass_index_1.json",
          check_report("libtorch", "cuda", "GPU_CHECK_PASSED", "\"NVIDIA H200\""));
  s.write("host.real.json",
          check_report("libtorch", "cpu", "CPU_CHECK_PASSED", "null",
                       R"({"status": "ok", "driver_version": "570.86.15"})"));
  s.write("device.fault.json",
          check_report("override", "cuda", "GPU_CHECK_PASSED", "\"Simulated\"",
                       R"({"status": "ok", "driver_version": "550.54.15"})"));
  s.write("cli.usage.json", "not json");
  s.write("cli.usage.stderr.txt", "ignored: not .json");
  std::vector<std::string> warnings;
  const Certificate c = read_case_reports(s.dir, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("cli.usage.json"), std::string::npos);
  EXPECT_EQ(c.reports, 4u);
  EXPECT_EQ(c.real_reports, 3u);
  EXPECT_EQ(c.check_version, "1.0.0");
  EXPECT_EQ(c.libtorch_version, "2.15.0");
  EXPECT_EQ(c.backend, "cuda");
  EXPECT_EQ(c.cuda_version, "13.2");
  EXPECT_EQ(c.hip_version, "none");
  EXPECT_EQ(c.gpu_model, "NVIDIA H200");
  EXPECT_EQ(c.gpu_capability, "9.0");
  // Each of the two per-GPU cases saw one GPU (a resource spec): two GPUs were certified.
  EXPECT_EQ(c.gpu_count, "2");
  EXPECT_EQ(c.driver_version, "570.86.15");
  EXPECT_EQ(c.commit, "unknown");
  EXPECT_EQ(c.gpu_declared, "not said");
  EXPECT_THROW(read_case_reports(s.dir / "missing", warnings), InputError);
}

TEST(JunitCertificate, NothingToldStaysUnknown) {
  Scratch s("empty");
  s.write("import.missing.json",
          R"({"tool": {"name": "kernodeck-diagnostic", "version": "1.0.0", "probe": "libtorch"},)"
          R"( "requested": {"device": "cuda"}, "pytorch": {"version": null},)"
          R"( "host": {"status": "not_found", "driver_version": null}})");
  std::vector<std::string> warnings;
  const Certificate c = read_case_reports(s.dir, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.libtorch_version, "unknown");
  EXPECT_EQ(c.backend, "unknown");
  EXPECT_EQ(c.cuda_version, "unknown");
  EXPECT_EQ(c.gpu_model, "none");
  EXPECT_EQ(c.gpu_count, "unknown");
  EXPECT_EQ(c.driver_version, "not available (host check: not_found)");
}

TEST(JunitCertificate, PathsBecomeRelativeOrHidden) {
  Scratch s("paths");
  s.write("harness/expectations.cpp", "");
  PathScrub scrub;
  scrub.source_root = s.dir;
  scrub.prefixes = {{"/tmp", "<tmp>"}};
  const std::string root = s.dir.string();
  EXPECT_EQ(scrub_paths(root + "/suites/a.cpp:12", scrub), "suites/a.cpp:12");
  // GoogleTest's file of a build made in another folder: the project's file.
  EXPECT_EQ(scrub_paths("/builds/x/harness/expectations.cpp:425\nwhy", scrub),
            "harness/expectations.cpp:425\nwhy");
  EXPECT_EQ(scrub_paths("ran /tmp/kd-case-1/out.json.", scrub), "ran <tmp>/kd-case-1/out.json.");
  // Not paths of this machine: JSON pointers, relative paths, a system tool.
  EXPECT_EQ(scrub_paths("/execution/device a/b /usr/bin/env", scrub),
            "/execution/device a/b /usr/bin/env");
}

TEST(JunitCertificate, ACaseIsFoundWhereItIsDeclared) {
  Scratch s("decl");
  s.write("suites/cli_cases.cpp", "// cli\n  Case(\"usage_ok\", \"cli\")\n  usage(\"bad\", {})\n");
  EXPECT_EQ(case_declaration(s.dir, "usage_ok"), "suites/cli_cases.cpp:2");
  EXPECT_EQ(case_declaration(s.dir, "bad"), "suites/cli_cases.cpp:3");
  EXPECT_EQ(case_declaration(s.dir, "usage"), "");
  EXPECT_EQ(case_declaration(fs::path(), "usage_ok"), "");
}

Report certified_report(bool failing) {
  Report report;
  report.title = "kd";
  report.variant = "pypi";
  ReportCase pass{"cli", "ok", 0.25, Verdict::Passed, "", "", "", ""};
  ReportCase skip{"cli", "gpu", 0, Verdict::Skipped, "", "no GPU", "", ""};
  ReportCase fail{"probe", "bad", 1, Verdict::Failure, "assertion", "wrong product",
                  "/src/x.cpp:3\nwrong product\ndetails", "tail"};
  report.suites = {{"cli", {pass, skip}}};
  if (failing) report.suites.push_back({"probe", {fail}});
  Certificate c;
  c.check_version = "1.0.0";
  c.commit = "abc";
  c.libtorch_version = "2.15.0";
  c.gpu_model = "NVIDIA H200";
  c.gpu_count = "1";
  c.gpu_declared = "yes";
  report.certificate = c;
  return report;
}

TEST(JunitCertificate, EveryReasonComesFirstInItsBody) {
  Report report = certified_report(true);
  localize(report, PathScrub{});
  EXPECT_EQ(report.suites[0].cases[1].body, "no GPU");
  EXPECT_EQ(report.suites[1].cases[0].body, "wrong product\n/src/x.cpp:3\nwrong product\ndetails");
  EXPECT_EQ(report.suites[0].cases[0].body, "");  // a pass has none
}

TEST(JunitCertificate, APassingRunIsCertifiedInPlainWords) {
  Report report = certified_report(false);
  add_certificate_case(report);
  ASSERT_EQ(report.suites.size(), 2u);
  EXPECT_EQ(report.suites[0].name, "certificate");
  const ReportCase& c = report.suites[0].cases.at(0);
  EXPECT_EQ(c.verdict, Verdict::Passed);
  EXPECT_EQ(c.name, "certificate");
  EXPECT_NE(c.system_out.find("kd 1.0.0 (commit abc), variant pypi: CERTIFIED"), std::string::npos)
      << c.system_out;
  EXPECT_NE(c.system_out.find("GPU: NVIDIA H200 (count 1"), std::string::npos) << c.system_out;
  EXPECT_NE(c.system_out.find("Per layer: cli 1 passed, 1 skipped."), std::string::npos)
      << c.system_out;

  const std::string xml = write_junit(report);
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS) << xml;
  for (const auto* suite = doc.RootElement()->FirstChildElement("testsuite"); suite;
       suite = suite->NextSiblingElement("testsuite")) {
    const auto* properties = suite->FirstChildElement("properties");
    ASSERT_NE(properties, nullptr);
    EXPECT_EQ(attribute_of_each(properties, "property", "name"),
              (std::vector<std::string>{
                  "kernodeck.variant", "kernodeck.check.version", "kernodeck.check.commit",
                  "kernodeck.libtorch.version", "kernodeck.backend", "kernodeck.cuda.version",
                  "kernodeck.hip.version", "kernodeck.gpu.model", "kernodeck.gpu.capability",
                  "kernodeck.gpu.count", "kernodeck.driver.version", "kernodeck.gpu.declared",
                  "kernodeck.case_reports"}));
  }
  EXPECT_NE(xml.find("classname=\"kernodeck.certificate\""), std::string::npos) << xml;
  // A report read back by --merge keeps its certificate.
  EXPECT_NO_THROW(merge_reports({{"a.xml", xml}}, "kd"));
}

TEST(JunitCertificate, AFailingRunIsNotCertifiedAndItsCaseFails) {
  Report report = certified_report(true);
  add_certificate_case(report);
  const ReportCase& c = report.suites[0].cases.at(0);
  EXPECT_EQ(c.verdict, Verdict::Failure);
  EXPECT_EQ(c.type, "certificate");
  EXPECT_EQ(c.message, "not certified: 1 failure and 0 errors");
  EXPECT_EQ(c.body.substr(0, c.body.find('\n')), c.message);
  EXPECT_NE(c.body.find("NOT CERTIFIED"), std::string::npos) << c.body;
  EXPECT_EQ(summary_line(report.counts()), "tests=4 passed=1 failures=2 errors=0 skipped=1");
}

TEST(JunitSummary, MarkdownHoldsTheCertificateAndEveryReason) {
  Report report = certified_report(true);
  add_certificate_case(report);
  const std::string md = summary_markdown(write_junit(report));
  EXPECT_EQ(md.rfind("# kd: certificate\n", 0), 0u) << md;
  EXPECT_NE(md.find("## certificate [pypi]\n"), std::string::npos) << md;
  EXPECT_NE(md.find("NOT CERTIFIED"), std::string::npos) << md;
  EXPECT_NE(md.find("| pypi | `kernodeck.cli.gpu` | skipped | no GPU |"), std::string::npos) << md;
  EXPECT_NE(md.find("| pypi | `kernodeck.probe.bad` | failed | wrong product |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("kernodeck.cli.ok"), std::string::npos) << md;
  EXPECT_EQ(md.find("kernodeck.certificate.certificate"), std::string::npos) << md;

  Report passing = certified_report(false);
  add_certificate_case(passing);
  const std::string clean = summary_markdown(write_junit(passing));
  EXPECT_NE(clean.find("CERTIFIED, no case failed"), std::string::npos) << clean;
  EXPECT_NE(clean.find("| variant | case | verdict | reason |\n|---|---|---|---|\n"
                       "| pypi | `kernodeck.cli.gpu` | skipped | no GPU |\n"),
            std::string::npos)
      << clean;
  EXPECT_THROW(summary_markdown("not xml"), InputError);
}

TEST(JunitHtml, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_escape("<a href=\"x\">it's & </a>"),
            "&lt;a href=&quot;x&quot;&gt;it&#39;s &amp; &lt;/a&gt;");
  EXPECT_EQ(html_escape("plain"), "plain");
}

// A report with an import layer whose failure carries markup, and a passing device layer.
Report html_report() {
  Report report = certified_report(false);
  ReportCase bad{"import", "bad", 1, Verdict::Failure, "assertion",
                 "wrong <script>alert(\"x\")</script> & more", "the body <b>", ""};
  ReportCase gpu{"device", "gpu", 1, Verdict::Passed, "", "", "", ""};
  report.suites.push_back({"import", {bad}});
  report.suites.push_back({"device", {gpu}});
  add_certificate_case(report);
  return report;
}

TEST(JunitHtml, CountsEnvironmentAndLadderAreInTheDom) {
  const std::string html = certificate_html(write_junit(html_report()), {}, {});
  // certificate (failed: a case failed), cli ok, cli gpu (skipped), import bad, device gpu.
  EXPECT_NE(html.find("<main id=\"certificate\" data-tests=\"5\" data-passed=\"2\" "
                      "data-failed=\"2\" data-errors=\"0\" data-skipped=\"1\" "
                      "data-certified=\"no\">"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr data-property=\"kernodeck.libtorch.version\"><th>kernodeck.libtorch."
                      "version</th><td data-variant=\"pypi\">2.15.0</td></tr>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("data-layer=\"import\" data-state=\"failed\""), std::string::npos) << html;
  EXPECT_NE(html.find("data-layer=\"device\" data-state=\"passed\""), std::string::npos) << html;
  EXPECT_NE(html.find("data-layer=\"compute\" data-state=\"not run\""), std::string::npos) << html;
  EXPECT_NE(html.find("Skipped: no GPU"), std::string::npos) << html;
  // Markup from the report is text, never markup.
  EXPECT_EQ(html.find("<script"), std::string::npos) << html;
  EXPECT_EQ(html.find("<b>"), std::string::npos) << html;
  EXPECT_NE(html.find("wrong &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more"),
            std::string::npos)
      << html;
  // Self-contained: nothing to fetch.
  EXPECT_EQ(html.find("src="), std::string::npos) << html;
  EXPECT_EQ(html.find("href="), std::string::npos) << html;
  EXPECT_THROW(certificate_html("not xml", {}, {}), InputError);
}

TEST(JunitHtml, EmbedsEachCaseJsonAndItsPromiseWithoutAbsolutePaths) {
  Scratch scratch("html");
  const fs::path root = scratch.dir / "src";
  scratch.write("src/suites/import_cases.cpp",
                "  Case(\"bad\", \"import\")\n      .guards(\"a promise \"\n"
                "              \"that <holds>\")\n      .args({});\n"
                "  Case(\"gpu\", \"device\")\n      .args({});\n");
  const std::string tmp = (scratch.dir / "tmp").string();
  scratch.write("cases/import.bad.json",
                "{\"output\": \"" + tmp + "/out.json\", \"file\": \"" + root.string() +
                    "/suites/x.cpp\", \"text\": \"<i>\"}");
  PathScrub scrub;
  scrub.source_root = root;
  scrub.prefixes.emplace_back(tmp, "<tmp>");
  const auto json = read_case_json(scratch.dir / "cases", scrub);
  ASSERT_EQ(json.count("import.bad"), 1u);
  const std::string html = certificate_html(write_junit(html_report()), json, root);
  const std::size_t at = html.find("<div class=\"case\" data-case=\"import.bad\"");
  ASSERT_NE(at, std::string::npos) << html;
  EXPECT_NE(html.find("Promise: a promise that &lt;holds&gt;", at), std::string::npos) << html;
  EXPECT_NE(html.find("<details class=\"json\"><summary>The check's JSON report</summary><pre>"
                      "{&quot;output&quot;: &quot;&lt;tmp&gt;/out.json&quot;, &quot;file&quot;: "
                      "&quot;suites/x.cpp&quot;, &quot;text&quot;: &quot;&lt;i&gt;&quot;}</pre>",
                      at),
            std::string::npos)
      << html;
  // The device case has no promise in its declaration and no JSON report.
  const std::size_t gpu = html.find("data-case=\"device.gpu\"");
  ASSERT_NE(gpu, std::string::npos);
  EXPECT_EQ(html.find("Promise:", gpu), std::string::npos) << html;
  EXPECT_EQ(html.find(scratch.dir.string()), std::string::npos) << html;
}

TEST(JunitPromise, ReadFromGoogleTestsParameterAndWrittenFirstInEveryVerdictsOutput) {
  // The harness prints a case as "<layer>.<id> guards: <promise>"; GoogleTest records that
  // as the test's value_param.
  const auto cases = parse_gtest_xml(
      R"(<testsuites><testsuite name="cli">
  <testcase name="run/usage" value_param="cli.usage guards: exit 2 &amp; nothing on stdout"
            status="run" result="completed" time="0.1" classname="cli"/>
  <testcase name="plain" status="run" result="completed" time="0.1" classname="cli"/>
</testsuite></testsuites>)",
      "x.xml");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].promise, "exit 2 & nothing on stdout");
  EXPECT_EQ(cases[1].promise, "");

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
  tinyxml2::XMLDocument doc;
  const std::string xml = write_junit(report);
  ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS) << xml;
  const auto* tc = doc.RootElement()->FirstChildElement("testsuite")->FirstChildElement("testcase");
  EXPECT_STREQ(tc->FirstChildElement("system-out")->GetText(), "Promise: a pass keeps its promise\n");
  tc = tc->NextSiblingElement("testcase");
  EXPECT_STREQ(tc->FirstChildElement("system-out")->GetText(), "Promise: a GPU case\n");
  tc = tc->NextSiblingElement("testcase");
  EXPECT_STREQ(tc->FirstChildElement("system-out")->GetText(), "Promise: a failure\n\ntail\n");
  tc = tc->NextSiblingElement("testcase");
  EXPECT_EQ(tc->FirstChildElement("system-out"), nullptr);

  // The HTML page shows the recorded promise, whatever the source declares.
  const std::string html = certificate_html(xml, {}, {});
  EXPECT_NE(html.find("Promise: a pass keeps its promise"), std::string::npos) << html;
  EXPECT_NE(html.find("Promise: a GPU case"), std::string::npos) << html;
}

}  // namespace
}  // namespace kd::junit
