// Covers junit_write.hpp: the XML the report is made of, its variants and the promise of
// each case.
#include "junit_write.hpp"
#include "junit_html.hpp"
#include "junit_inputs.hpp"

#include <gtest/gtest.h>
#include <tinyxml2.h>
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
