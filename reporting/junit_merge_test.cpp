// Covers merge_reports and read_junit (junit_xml.hpp): reports merged into one, and what is
// refused.
#include "junit_xml.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "junit_test_support.hpp"

namespace kd::junit {
namespace {

using namespace kd::junit::testing;

// The reports, each written and read back, merged as publish --merge merges them.
Report merged_of(const std::vector<std::pair<std::string, Report>>& inputs,
                 const std::string& title, std::vector<std::string>& warnings) {
  std::vector<Report> read;
  std::vector<std::string> sources;
  for (const auto& [source, report] : inputs) {
    read.push_back(read_junit(write_junit(report), source));
    sources.push_back(source);
  }
  return merge_reports(std::move(read), sources, title, warnings);
}

TEST(JunitMerge, SumsTheCountsAndKeepsEverySuiteInOrder) {
  Report b = sealed(small_report("b", 1.5));
  b.suites.pop_back();  // b holds cli only: 3 cases, no error
  const Report a = sealed(small_report("a"));
  const std::string a_xml = write_junit(a);
  std::vector<std::string> warnings;
  const Report merged = merged_of({{"a.xml", a}, {"b.xml", b}}, "both", warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(summary_line(merged.counts()), "tests=7 passed=2 failures=2 errors=1 skipped=2");

  const std::string xml = write_junit(merged);
  const XmlDoc doc = parse_xml(xml, "test");
  const auto* root = root_of(doc);
  EXPECT_STREQ(attribute(root, "name"), "both");
  EXPECT_EQ(root_counts(root), "testsuites tests=7 failures=2 errors=1 skipped=(none) time=4.500");
  EXPECT_EQ(attribute_of_each(root, "testsuite", "name"),
            (std::vector<std::string>{"cli [a]", "probe [a]", "cli [b]"}));

  // Each suite is the input's, unchanged: the merged text holds a's suites verbatim.
  const std::size_t a_start = a_xml.find("<testsuite ");
  const std::size_t a_end = a_xml.rfind("</testsuite>") + std::string("</testsuite>").size();
  EXPECT_NE(xml.find(a_xml.substr(a_start, a_end - a_start)), std::string::npos) << xml;
  const auto* bad =
      next_element(first_element(first_element(root, "testsuite"), "testcase"), "testcase");
  EXPECT_STREQ(attribute(bad, "classname"), "kernodeck.cli");
  EXPECT_STREQ(text_of(first_element(bad, "failure")), "line 1\nline 2 <&>");
}

TEST(JunitMerge, OneReportMergedAloneIsTheSameReport) {
  std::vector<std::string> warnings;
  for (const Report& report : {sealed(small_report("a")), sealed(small_report()),
                               sealed(certified_report(true))}) {
    Report promised = report;
    promised.suites.back().cases.front().promise = "a promise";
    promised.suites.back().cases.front().declared = "suites/x.cpp:3";
  const std::string xml = write_junit(promised);
    EXPECT_EQ(write_junit(merged_of({{"a.xml", promised}}, promised.title, warnings)), xml);
  }
  EXPECT_TRUE(warnings.empty());
}

TEST(JunitMerge, ASuiteNameTwiceIsWarnedAbout) {
  const Report report = sealed(small_report());
  std::vector<std::string> warnings;
  const Report merged = merged_of({{"debian.xml", report}, {"pypi.xml", report}}, "kd", warnings);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("\"cli\" is in both debian.xml and pypi.xml"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("--variant"), std::string::npos) << warnings[0];
  EXPECT_EQ(merged.counts().tests, 8u);
  const XmlDoc doc = parse_xml(write_junit(merged), "test");
  EXPECT_EQ(attribute_of_each(root_of(doc), "testsuite", "name"),
            (std::vector<std::string>{"cli", "probe", "cli", "probe"}));
}

TEST(JunitMerge, RefusesWhatIsNotAReportAndNamesTheFile) {
  const std::string good = write_junit(sealed(small_report("a")));
  auto refused = [](const std::string& xml, const std::string& why) {
    try {
      read_junit(xml, "bad.xml");
      ADD_FAILURE() << "accepted: " << why << "\n" << xml;
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("bad.xml", 0), 0u) << message;
      EXPECT_NE(message.find(why), std::string::npos) << message;
    }
  };
  EXPECT_NO_THROW(read_junit(good, "good.xml"));
  refused("", "not well-formed XML");
  refused("<testsuites name=\"x\"", "not well-formed XML");
  refused(kCtestJunit, "is not a report kernodeck-junit wrote: its root is not <testsuites>");
  const char* invalid =
      "is not a report kernodeck-junit wrote: it does not validate against junit-10.xsd";
  refused(replace_once(good, "time=\"3.000\"", "time=\"-3\""), invalid);
  refused(replace_once(good, "<testsuites ", "<testsuites disabled=\"0\" "), invalid);
  refused(replace_once(good, "<testcase name=\"ok\"", "<testcase bogus=\"1\" name=\"ok\""),
          invalid);
  refused(replace_once(good, "<property name=", "<other name="), invalid);
}

}  // namespace
}  // namespace kd::junit
