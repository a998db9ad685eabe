// Covers path_scrub.hpp: paths made relative or anonymous, reasons first, declarations.
#include "path_scrub.hpp"

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

TEST(JunitLocalize, PathsBecomeRelativeOrHidden) {
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

TEST(JunitLocalize, EachVerdictButAPassEndsWithWhereGoogleTestSaysTheCaseIsDeclared) {
  Scratch s("decl");
  // A table that names the cases where GoogleTest does not: nothing reads it.
  s.write("suites/cli_cases.cpp", "// cli\n  Case(\"ok\", \"cli\")\n  Case(\"gpu\", \"cli\")\n");
  Report report = certified_report(true);
  const std::string declared = s.dir.string() + "/suites/cli_cases.cpp:84";
  report.suites[0].cases[0].declared = declared;                          // passed
  report.suites[0].cases[1].declared = declared;                          // skipped
  report.suites[1].cases[0].declared = "/builds/x/suites/cli_cases.cpp:7";  // built elsewhere
  ReportCase error{"probe", "crash", 0, Verdict::Error, "crash", "crashed", "", ""};
  report.suites[1].cases.push_back(error);  // GoogleTest recorded no place
  PathScrub scrub;
  scrub.source_root = s.dir;
  localize(report, scrub);
  EXPECT_EQ(report.suites[0].cases[0].body, "");
  EXPECT_EQ(report.suites[0].cases[0].declared, "suites/cli_cases.cpp:84");
  EXPECT_EQ(report.suites[0].cases[1].body, "no GPU\nCase declared at suites/cli_cases.cpp:84");
  EXPECT_EQ(report.suites[1].cases[0].body,
            "wrong product\n/src/x.cpp:3\nwrong product\ndetails\n"
            "Case declared at suites/cli_cases.cpp:7");
  EXPECT_EQ(report.suites[1].cases[1].body, "crashed");
}

TEST(JunitLocalize, EveryReasonComesFirstInItsBody) {
  Report report = certified_report(true);
  localize(report, PathScrub{});
  EXPECT_EQ(report.suites[0].cases[1].body, "no GPU");
  EXPECT_EQ(report.suites[1].cases[0].body, "wrong product\n/src/x.cpp:3\nwrong product\ndetails");
  EXPECT_EQ(report.suites[0].cases[0].body, "");  // a pass has none
}

}  // namespace
}  // namespace kd::junit
