// A report's files: the inputs of a run (or the reports to merge) read, and junit.xml written,
// with summary.md and index.html when asked. Each file is written beside its place and renamed,
// so that a dashboard never reads half of one. kernodeck-junit's conversions and its publish
// pipeline both go through here. The summary and the page name the causes of the check's
// catalogue (junit_causes.hpp) that the cases' reports name.
//
//   Written w = write_run(run, scrub, {"reports/junit.xml", "reports/summary.md", ""}, causes,
//                         std::cerr);
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "junit_causes.hpp"
#include "junit_localize.hpp"
#include "junit_report.hpp"

namespace kd::junit {

// The whole file; an InputError naming `what` and the path when it cannot be read.
std::string read_input(const std::string& path, const char* what);

// Written to "<path>.tmp" and renamed; an InputError when it cannot be.
void write_output(const std::string& path, const std::string& content);

// What to write: the report, and the summary and page when their paths are not empty.
struct OutputFiles {
  std::string junit, summary, html;
};

// A CTest run and GoogleTest's XML, as one report.
struct RunInputs {
  std::string gtest_dir;    // GoogleTest's XML folder, with the cases' ".started" marks
  std::string ctest_junit;  // CTest's JUnit; empty: the cases that started (run_from_started)
  std::string ctest_tests;  // ctest --show-only=json-v1; empty: none
  std::string variant;
  std::string title = "kernodeck-diagnostic";
  std::string cases_dir;  // the check's own reports: the certificate's facts; empty: none
  std::string commit;        // empty: "unknown"
  std::string gpu_declared;  // "yes", "no"; empty: "not said"
};

struct Written {
  std::string xml;  // what went into the report's file
  Counts counts;
};

// Converts the run (notes on unreadable inputs go to `log`, "kernodeck-junit: ...") and writes
// the files; the summary and the page read the cases' reports from run.cases_dir.
Written write_run(const RunInputs& run, const PathScrub& scrub, const OutputFiles& out,
                  const Causes& causes, std::ostream& log);

// Merges `reports` (files kernodeck-junit wrote, one per variant) and writes the files; the
// summary and the page read each case's JSON report from the cases/ folder beside its report.
Written write_merged(const std::vector<std::string>& reports, const std::string& title,
                     const PathScrub& scrub, const OutputFiles& out, const Causes& causes,
                     std::ostream& log);

}  // namespace kd::junit
