// Covers html_page.hpp: the certificate as a self-contained page.
#include "html_page.hpp"
#include "certificate.hpp"
#include "junit_text.hpp"
#include "junit_xml.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "junit_test_support.hpp"

namespace kd::junit {
namespace {

using namespace kd::junit::testing;

TEST(JunitHtml, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(escape_markup("<a href=\"x\">it's & </a>"),
            "&lt;a href=&quot;x&quot;&gt;it&#39;s &amp; &lt;/a&gt;");
  EXPECT_EQ(escape_markup("plain"), "plain");
}

// A report with an import layer whose failure carries markup, and a passing device layer.
Report html_report() {
  Report report = certified_report(false);
  ReportCase bad{"import", "bad", 1, Verdict::Failure, "assertion",
                 "wrong <script>alert(\"x\")</script> & more", "the body <b>", ""};
  ReportCase gpu{"device", "gpu", 1, Verdict::Passed, "", "", "", ""};
  report.suites.push_back({"import", {bad}});
  report.suites.push_back({"device", {gpu}});
  seal(report);
  return report;
}

TEST(JunitHtml, CountsEnvironmentAndLadderAreInTheDom) {
  const std::string html = certificate_html(html_report(), {}, {});
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
  EXPECT_NE(html.find("<section id=\"causes\" data-causes=\"0\" data-met=\"0\">"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("No cause catalogue given (kernodeck-junit without --causes)."),
            std::string::npos)
      << html;
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
  const auto rule = kd::Sanitizer::with_stand_ins(
      {{root.string() + "/", ""}, {root.string(), ".", true}, {tmp, "<tmp>", true}});
  const auto json = read_check_reports(scratch.dir / "cases", rule);
  ASSERT_EQ(json.count("import.bad"), 1u);
  Report report = html_report();
  ReportCase& bad = report.suites.at(2).cases.at(0);
  ASSERT_EQ(bad.name, "bad");
  bad.promise = "a promise that <holds>";
  bad.body += "\nCase declared at suites/import_cases.cpp:1";
  const std::string html = certificate_html(report, json, {});
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

TEST(JunitHtml, WhatTheCheckSaidOfACauseNamesNoPathOfThisMachine) {
  Scratch scratch("said");
  const fs::path root = scratch.dir / "src";
  scratch.write("cases/import.bad.json",
                report_naming("LoaderError", "cannot load " + root.string() + "/lib/libc10.so"));
  const auto rule = kd::Sanitizer::with_stand_ins({{root.string() + "/", ""}});
  const std::string html =
      certificate_html(html_report(), read_check_reports(scratch.dir / "cases", rule),
                       sample_causes());
  EXPECT_NE(html.find("The check said: cannot load lib/libc10.so"), std::string::npos) << html;
  EXPECT_EQ(html.find(scratch.dir.string()), std::string::npos) << html;
}

// The element of one case: from its <div class="case"> to the next case or section.
std::string case_element(const std::string& html, const std::string& name) {
  const std::size_t at = html.find("data-case=\"" + name + "\"");
  if (at == std::string::npos) return "";
  const std::size_t begin = html.rfind("<div class=\"case\"", at);
  std::size_t end = html.find("<div class=\"case\"", at);
  end = std::min(end, html.find("</section>", at));
  return html.substr(begin, end - begin);
}

// The id of a case's element.
std::string case_anchor(const std::string& element) {
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(element, found, std::regex("^<div class=\"case\"[^>]* id=\"([^\"]+)\">"));
    return found;
  }();
  return m.empty() ? "" : m[1].str();
}

// The cause catalogue's page: import.bad failed and its report names a cause, import.odd
// failed with an error.type that is none of the catalogue's, device.gpu passed meeting a cause.
struct CausePage {
  std::string html;
  explicit CausePage(const Causes& causes) {
    Report report = html_report();
    report.suites.at(2).cases.push_back({"import", "odd", 1, Verdict::Failure, "assertion",
                                         "odd exit", "the body", ""});
    const CaseReports json{
        {"import.bad", check_naming("LoaderError", "libtorch was found but <failed> to load.")},
        {"import.odd", check_naming("TorchMissing", "libtorch was not found.")},
        {"device.gpu", check_naming("NoDeviceNodes", "No usable GPU.")}};
    html = certificate_html(report, json, causes);
  }
};

TEST(JunitHtml, AFailedCaseShowsTheCauseItsReportNamesWithItsNextAction) {
  const std::string html = CausePage(sample_causes()).html;
  const std::string bad = case_element(html, "import.bad");
  ASSERT_FALSE(bad.empty()) << html;
  EXPECT_NE(bad.find("<div class=\"cause\" data-cause=\"loader_error\">\n<div "
                     "class=\"cause-title\">Cause: <a href=\"#cause-loader_error\">libtorch "
                     "&lt;not&gt; loaded</a> (<code>LoaderError</code>), import layer, "
                     "TORCH_IMPORT_FAILED (4)</div>\n<div class=\"next-action\">Next action: "
                     "Check the libtorch package &amp; its &lt;b&gt;dependencies&lt;/b&gt; | all "
                     "of them.</div>\n<div class=\"said\">The check said: libtorch was found "
                     "but &lt;failed&gt; to load.</div>\n</div>\n"),
            std::string::npos)
      << bad;
  // Prominent: right below the reason, above what went wrong and the JSON report.
  EXPECT_LT(bad.find("<div class=\"reason\">"), bad.find("<div class=\"cause\""));
  EXPECT_LT(bad.find("<div class=\"cause\""), bad.find("What went wrong")) << bad;
  EXPECT_LT(bad.find("What went wrong"), bad.find("The check's JSON report")) << bad;
  // An error.type the catalogue does not hold names no cause.
  const std::string odd = case_element(html, "import.odd");
  ASSERT_FALSE(odd.empty()) << html;
  EXPECT_EQ(odd.find("cause"), std::string::npos) << odd;
  EXPECT_NE(odd.find("The check's JSON report"), std::string::npos) << odd;
  // A case that passed meeting a cause names it in one line.
  const std::string gpu = case_element(html, "device.gpu");
  EXPECT_NE(gpu.find("<div class=\"cause-met\" data-cause=\"no_device_nodes\">Cause met: <a "
                     "href=\"#cause-no_device_nodes\">no GPU device node in the container</a> "
                     "(<code>NoDeviceNodes</code>)</div>"),
            std::string::npos)
      << gpu;
  EXPECT_EQ(gpu.find("Next action"), std::string::npos) << gpu;
  // Markup of the catalogue is text; links stay within the page.
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_FALSE(std::regex_search(html, std::regex("href=\"[^#]"))) << html;
}

TEST(JunitHtml, TheCausesSectionListsTheCatalogueLinkedToTheCasesThatMetThem) {
  const std::string html = CausePage(sample_causes()).html;
  const std::size_t at = html.find("<section id=\"causes\" data-causes=\"3\" data-met=\"2\">");
  ASSERT_NE(at, std::string::npos) << html;
  const std::string section = html.substr(at, html.find("</section>", at) - at);
  EXPECT_NE(section.find("<h2>Causes the check tells apart</h2>"), std::string::npos);
  EXPECT_NE(section.find("<tr><th>layer</th><th>cause</th><th>error.type</th><th>next action"
                         "</th><th>met in this run by</th></tr>"),
            std::string::npos)
      << section;
  std::size_t rows = 0;
  for (std::size_t p = section.find("<tr id=\"cause-"); p != std::string::npos;
       p = section.find("<tr id=\"cause-", p + 1))
    ++rows;
  EXPECT_EQ(rows, 3u) << section;
  const std::string bad = case_anchor(case_element(html, "import.bad"));
  const std::string gpu = case_anchor(case_element(html, "device.gpu"));
  ASSERT_FALSE(bad.empty());
  ASSERT_NE(bad, gpu);
  EXPECT_NE(section.find("<tr id=\"cause-no_device_nodes\" data-cause=\"no_device_nodes\" "
                         "data-error-type=\"NoDeviceNodes\" data-met=\"1\" class=\"met\"><td>"
                         "device</td><td>no GPU device node in the container</td><td><code>"
                         "NoDeviceNodes</code></td><td>Start the container with its GPUs exposed "
                         "(--gpus or the device plugin).</td><td><a href=\"#" + gpu +
                         "\" class=\"passed\">device.gpu [pypi]</a></td></tr>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<tr id=\"cause-loader_error\" data-cause=\"loader_error\" "
                         "data-error-type=\"LoaderError\" data-met=\"1\" class=\"met "
                         "by-failed\"><td>import</td><td>libtorch &lt;not&gt; loaded</td>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<a href=\"#" + bad + "\" class=\"failed\">import.bad [pypi]</a>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("data-error-type=\"GpuFault\" data-met=\"0\"><td>compute</td><td>a "
                         "GPU fault</td><td><code>GpuFault</code></td><td>Check dmesg for Xid "
                         "errors and drain the node.</td><td>-</td></tr>"),
            std::string::npos)
      << section;
}

TEST(JunitHtml, WithoutACatalogueNoCaseNamesACause) {
  const std::string html = CausePage({}).html;
  EXPECT_EQ(html.find("class=\"cause"), std::string::npos) << html;
  EXPECT_NE(html.find("<section id=\"causes\" data-causes=\"0\" data-met=\"0\">\n<h2>Causes "
                      "the check tells apart</h2>\n<p>No cause catalogue given (kernodeck-junit "
                      "without --causes).</p>\n</section>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("<table id=\"cause-table\">"), std::string::npos) << html;
  EXPECT_NE(case_element(html, "import.bad").find("The check's JSON report"), std::string::npos);
}

// A certified run whose passed case cli.ok warns, and with `failing` a case of the application
// layer that failed there, its report naming a cause of the application layer.
std::string warning_page(bool failing) {
  Report report = certified_report(false);
  if (failing)
    report.suites.push_back({"application", {{"application", "torchvision", 1, Verdict::Failure,
                                              "assertion", "exit code 13", "the body", ""}}});
  seal(report);
  const CaseReports json{
      {"cli.ok", check(report_warning("passed"))},
      {"application.torchvision", check(report_warning("failed", "ExtensionImportError"))}};
  return certificate_html(report, json, application_causes());
}

TEST(JunitHtml, APassedCaseWithAWarningStaysPassedAndShowsTheWarning) {
  const std::string html = warning_page(false);
  EXPECT_NE(html.find("data-certified=\"yes\">"), std::string::npos) << html;
  const std::string ok = case_element(html, "cli.ok");
  ASSERT_FALSE(ok.empty()) << html;
  EXPECT_NE(ok.find("data-verdict=\"passed\""), std::string::npos) << ok;
  EXPECT_NE(ok.find("<span class=\"passed\">passed</span>"), std::string::npos) << ok;
  // Its stage, its type linked to the catalogue's row, and the words escaped.
  EXPECT_NE(ok.find("<div class=\"warnings\" data-warnings=\"1\">\n<div class=\"warning\" "
                    "data-warning-type=\"ExtensionForOtherTorch\" data-stage=\"application\">"
                    "Warning, application stage: <code>ExtensionForOtherTorch</code> (<a "
                    "href=\"#cause-extension_for_other_torch\">an extension made for another "
                    "torch</a>): torchvision (torchvision 0.24.1) is made for torch==2.9.1, and "
                    "this environment&#39;s torch is 2.15.0+cu132 (CUDA 13.2). Let pip choose the "
                    "torchvision release made for this torch: python -m pip install --upgrade "
                    "&quot;torch==2.15.0&quot; torchvision &lt;b&gt;|&lt;/b&gt; with this "
                    "environment&#39;s python.</div>\n</div>\n"),
            std::string::npos)
      << ok;
  EXPECT_EQ(html.find("<b>"), std::string::npos) << html;
  // A warning names no cause of a failure, and says no reason.
  EXPECT_EQ(ok.find("class=\"cause"), std::string::npos) << ok;
  EXPECT_EQ(ok.find("class=\"reason\""), std::string::npos) << ok;
  EXPECT_EQ(ok.find("What went wrong"), std::string::npos) << ok;
  // Counted under the counts, which it does not change.
  EXPECT_NE(html.find("<p id=\"warnings\" data-warnings=\"1\">1 warning in the reports of 1 case "
                      "(marked below): what the check noticed without failing for it, which "
                      "changes no verdict and no exit code.</p>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("data-tests=\"3\" data-passed=\"2\" data-failed=\"0\""),
            std::string::npos)
      << html;
  // The catalogue's row is met by the warning, linked to the case.
  const std::string anchor = case_anchor(ok);
  ASSERT_FALSE(anchor.empty());
  EXPECT_NE(html.find("<tr id=\"cause-extension_for_other_torch\" data-cause=\""
                      "extension_for_other_torch\" data-error-type=\"ExtensionForOtherTorch\" "
                      "data-met=\"1\" class=\"met\"><td>application</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<a href=\"#" + anchor + "\" class=\"warned\">cli.ok [pypi]</a> (a "
                      "warning)</td></tr>"),
            std::string::npos)
      << html;
}

TEST(JunitHtml, WithoutWarningsThePageSaysSo) {
  const std::string html = certificate_html(html_report(), {}, {});
  EXPECT_NE(html.find("<p id=\"warnings\" data-warnings=\"0\">No warning in the cases' "
                      "reports.</p>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("class=\"warning"), std::string::npos) << html;
}

TEST(JunitHtml, AFailedCaseOfTheApplicationLayerShowsItsCauseAndTheLadderTheLayer) {
  const std::string html = warning_page(true);
  const std::string failed = case_element(html, "application.torchvision");
  ASSERT_FALSE(failed.empty()) << html;
  EXPECT_NE(failed.find("<div class=\"cause\" data-cause=\"extension_import_error\">\n<div "
                        "class=\"cause-title\">Cause: <a href=\"#cause-extension_import_error\">"
                        "an extension&#39;s import failed, cause not recognised</a> (<code>"
                        "ExtensionImportError</code>), application layer, "
                        "EXTENSION_IMPORT_FAILED (13)</div>\n<div class=\"next-action\">Next "
                        "action: Run python -c &quot;import {ext_module}&quot; with that "
                        "interpreter to see the whole error.</div>\n<div class=\"said\">The "
                        "check said: the check said so.</div>\n</div>\n"),
            std::string::npos)
      << failed;
  // Its warning too, below the cause.
  EXPECT_LT(failed.find("<div class=\"cause\""), failed.find("<div class=\"warning\""))
      << failed;
  // The application layer is the ladder's last rung, after compute.
  const std::size_t compute = html.find("<li class=\"skipped\" data-layer=\"compute\"");
  const std::size_t application = html.find("<li class=\"failed\" data-layer=\"application\" "
                                            "data-state=\"failed\"><strong>application</strong>: "
                                            "failed (0 passed, 1 failed, 0 skipped)</li>");
  ASSERT_NE(compute, std::string::npos) << html;
  ASSERT_NE(application, std::string::npos) << html;
  EXPECT_LT(compute, application);
  EXPECT_NE(html.find("<section class=\"layer\" data-layer=\"application\">"), std::string::npos)
      << html;
  // Its cause's row is met by the failure; the warning's by both cases.
  EXPECT_NE(html.find("data-error-type=\"ExtensionImportError\" data-met=\"1\" class=\"met "
                      "by-failed\"><td>application</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("data-error-type=\"ExtensionForOtherTorch\" data-met=\"2\" class=\"met\">"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<p id=\"warnings\" data-warnings=\"2\">2 warnings in the reports of 2 "
                      "cases"),
            std::string::npos)
      << html;
}

}  // namespace
}  // namespace kd::junit
