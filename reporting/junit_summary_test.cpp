// Covers junit_summary.hpp: the Markdown summary of a report.
#include "junit_summary.hpp"
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

}  // namespace
}  // namespace kd::junit
