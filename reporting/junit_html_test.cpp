// Covers junit_html.hpp: the certificate as a self-contained page.
#include "junit_html.hpp"
#include "junit_certificate.hpp"
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
  const std::string html = certificate_html(write_junit(html_report()), {});
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
  EXPECT_THROW(certificate_html("not xml", {}), InputError);
}

TEST(JunitHtml, EmbedsEachCaseJsonAndItsRecordedPromiseWithoutAbsolutePaths) {
  Scratch scratch("html");
  const fs::path root = scratch.dir / "src";
  // A table that declares promises in its text: the page shows only what the cases recorded.
  scratch.write("src/suites/import_cases.cpp",
                "  Case(\"bad\", \"import\")\n      .guards(\"a promise of the source text\")\n"
                "  Case(\"gpu\", \"device\")\n      .guards(\"another one\")\n");
  const std::string tmp = (scratch.dir / "tmp").string();
  scratch.write("cases/import.bad.json",
                "{\"output\": \"" + tmp + "/out.json\", \"file\": \"" + root.string() +
                    "/suites/x.cpp\", \"text\": \"<i>\"}");
  PathScrub scrub;
  scrub.source_root = root;
  scrub.prefixes.emplace_back(tmp, "<tmp>");
  const auto json = read_case_json(scratch.dir / "cases", scrub);
  ASSERT_EQ(json.count("import.bad"), 1u);
  Report report = html_report();
  ReportCase& bad = report.suites.at(2).cases.at(0);
  ASSERT_EQ(bad.name, "bad");
  bad.promise = "a promise that <holds>";
  bad.body += "\nCase declared at suites/import_cases.cpp:1";
  const std::string html = certificate_html(write_junit(report), json);
  const std::size_t at = html.find("<div class=\"case\" data-case=\"import.bad\"");
  ASSERT_NE(at, std::string::npos) << html;
  EXPECT_NE(html.find("Promise: a promise that &lt;holds&gt;", at), std::string::npos) << html;
  EXPECT_NE(html.find("Case declared at suites/import_cases.cpp:1</pre>", at), std::string::npos)
      << html;
  EXPECT_NE(html.find("<details class=\"json\"><summary>The check's JSON report</summary><pre>"
                      "{&quot;output&quot;: &quot;&lt;tmp&gt;/out.json&quot;, &quot;file&quot;: "
                      "&quot;suites/x.cpp&quot;, &quot;text&quot;: &quot;&lt;i&gt;&quot;}</pre>",
                      at),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("source text"), std::string::npos) << html;
  // The device case recorded no promise and has no JSON report.
  const std::size_t gpu = html.find("data-case=\"device.gpu\"");
  ASSERT_NE(gpu, std::string::npos);
  EXPECT_EQ(html.find("Promise:", gpu), std::string::npos) << html;
  EXPECT_EQ(html.find("another one"), std::string::npos) << html;
  EXPECT_EQ(html.find(scratch.dir.string()), std::string::npos) << html;
}

}  // namespace
}  // namespace kd::junit
