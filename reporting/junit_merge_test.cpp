// Covers junit_merge.hpp: reports merged into one, and what is refused.
#include "junit_merge.hpp"
#include "junit_write.hpp"

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

}  // namespace
}  // namespace kd::junit
