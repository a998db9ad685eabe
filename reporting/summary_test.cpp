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

}  // namespace
}  // namespace kd::junit
