// Covers summary.hpp: the Markdown summary of a report.
#include "summary.hpp"
#include "certificate.hpp"
#include "junit_xml.hpp"

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

TEST(JunitSummary, MarkdownHoldsTheCertificateAndEveryReason) {
  Report report = certified_report(true);
  seal(report);
  const std::string md = summary_markdown(report, {}, {});
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
  seal(passing);
  const std::string clean = summary_markdown(passing, {}, {});
  EXPECT_NE(clean.find("CERTIFIED, no case failed"), std::string::npos) << clean;
  EXPECT_NE(clean.find("| variant | case | verdict | reason | cause and next action |\n"
                       "|---|---|---|---|---|\n| pypi | `kernodeck.cli.gpu` | skipped | no GPU | - |\n"),
            std::string::npos)
      << clean;
}

TEST(JunitSummary, AFailureNamesTheCauseItsReportNamesAndTheNextAction) {
  Report report = certified_report(true);
  seal(report);
  const Report& xml = report;  // rendered as written
  const Causes causes = sample_causes();
  // Under the variant's key, as a merged report keys it.
  const std::string md = summary_markdown(
      xml, {{"pypi/probe.bad", check_naming("GpuFault", "The computation failed.")}}, causes);
  EXPECT_NE(md.find("| variant | case | verdict | reason | cause and next action |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| pypi | `kernodeck.probe.bad` | failed | wrong product | a GPU fault "
                    "(`GpuFault`): Check dmesg for Xid errors and drain the node. |\n"),
            std::string::npos)
      << md;
  // A skip names no cause.
  EXPECT_NE(md.find("| pypi | `kernodeck.cli.gpu` | skipped | no GPU | - |\n"), std::string::npos)
      << md;
  // The cell keeps its words: a pipe in them is escaped.
  const std::string piped =
      summary_markdown(xml, {{"probe.bad", check_naming("LoaderError", "x")}}, causes);
  EXPECT_NE(piped.find("| wrong product | libtorch <not> loaded (`LoaderError`): Check the "
                       "libtorch package & its <b>dependencies</b> \\| all of them. |\n"),
            std::string::npos)
      << piped;
  // An error.type the catalogue does not hold, and no catalogue, name none.
  for (const std::string& other :
       {summary_markdown(xml, {{"probe.bad", check_naming("TorchMissing", "x")}}, causes),
        summary_markdown(xml, {{"probe.bad", check_naming("GpuFault", "x")}}, {})}) {
    EXPECT_NE(other.find("| pypi | `kernodeck.probe.bad` | failed | wrong product | - |\n"),
              std::string::npos)
        << other;
  }
}

TEST(JunitSummary, APassedCaseWithAWarningStaysPassedAndShowsTheWarning) {
  const Report report = sealed(certified_report(false));
  const std::string md =
      summary_markdown(report, {{"cli.ok", check(report_warning("passed"))}}, {});
  // Still certified, and the case is in no row of the failures.
  EXPECT_NE(md.find("CERTIFIED, no case failed"), std::string::npos) << md;
  EXPECT_NE(md.find("tests 3, failures 0, errors 0.\n"), std::string::npos) << md;
  const std::size_t section = md.find("\n## Warnings\n\n");
  ASSERT_NE(section, std::string::npos) << md;
  EXPECT_EQ(md.find("kernodeck.cli.ok"), md.find("kernodeck.cli.ok", section)) << md;
  // Its verdict, where the check noticed it, which, and the words, a pipe escaped.
  EXPECT_NE(md.find("| variant | case | verdict | stage | warning | message |\n"
                    "|---|---|---|---|---|---|\n"
                    "| pypi | `kernodeck.cli.ok` | passed | application | "
                    "`ExtensionForOtherTorch` | torchvision (torchvision 0.24.1) is made for "
                    "torch==2.9.1, and this environment's torch is 2.15.0+cu132 (CUDA 13.2). Let "
                    "pip choose the torchvision release made for this torch: python -m pip "
                    "install --upgrade \"torch==2.15.0\" torchvision <b>\\|</b> with this "
                    "environment's python. |\n",
                    section),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("a warning never changes a verdict or the check's exit code", section),
            std::string::npos)
      << md;
}

TEST(JunitSummary, WithoutWarningsTheSectionSaysNone) {
  const Report report = sealed(certified_report(true));
  const std::string md = summary_markdown(
      report, {{"cli.ok", check(R"({"warnings": []})")}, {"probe.bad", check("{}")}}, {});
  EXPECT_NE(md.find("\n## Warnings\n\nNone: no case's report has a warning.\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("| stage | warning |"), std::string::npos) << md;
}

TEST(JunitSummary, AFailureAtTheApplicationStageNamesItsCauseAndKeepsItsWarning) {
  const Report report = sealed(certified_report(true));
  const std::string md = summary_markdown(
      report, {{"probe.bad", check(report_warning("failed", "ExtensionImportError"))}},
      application_causes());
  EXPECT_NE(md.find("| pypi | `kernodeck.probe.bad` | failed | wrong product | an extension's "
                    "import failed, cause not recognised (`ExtensionImportError`): Run python -c "
                    "\"import {ext_module}\" with that interpreter to see the whole error. |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| pypi | `kernodeck.probe.bad` | failed | application | "
                    "`ExtensionForOtherTorch` | torchvision"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace kd::junit
