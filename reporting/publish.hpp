// The one pipeline from a test run to what is published (kernodeck-junit publish): the report of
// a CTest run, or of several merged, written as junit.xml, summary.md and index.html in the
// reports folder, every text under the privacy rule (check/facts/sanitize.hpp: no folder or name
// of this machine), then the checks every published report must pass, each of which says its
// verdict or fails: it validates against junit-10.xsd, and every skip says why. ci/common.sh,
// the conformance run's cleanup test (cmake/KernodeckConformanceReport.cmake) and ci/gpu-proof
// all call it.
//
//   Options o;
//   o.reports = "reports/debian"; o.source_root = "."; o.case_records = "build-debian/case-records";
//   o.causes = "build-debian/causes.json";
//   Published p = publish(o, environment_of_this_process(), std::cerr);
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "junit_report.hpp"

namespace kd::junit {

// What the command line asked for: publish's options, and fleet's.
struct Options {
  // Where junit.xml, summary.md and index.html go; a run's certificate is learned from the
  // check's reports in its cases/ folder.
  std::string reports;
  std::string source_root;  // paths under it become relative; git is asked about it
  // A run: the folder of the cases' records (contract/case_record.hpp), and CTest's JUnit and
  // test list when CTest was asked for them (ci/); without CTest's JUnit, the cases that started
  // (a plain `ctest` run).
  std::string case_records, ctest_junit, ctest_tests, variant;
  // Or the reports to merge, one per variant (then no run).
  std::vector<std::string> merge;
  std::string title = "kernodeck-diagnostic";
  // The check's cause catalogue, as kernodeck-causes --json printed it (the build's causes.json):
  // summary.md and index.html name the cause and next action of each failed case whose report
  // names one. Empty: they name none, and the pipeline says so.
  std::string causes;
  // The commit the run certifies; empty: git is asked (commit_mark), "unknown" outside a git
  // work tree. A packed kit, which has no git tree, gives the commit it was packed from.
  std::string commit;
  // Folders whose paths are shown as "<name>/..." besides the temporary folder.
  std::vector<std::string> hide;
  // Folders of this machine besides the source root (the build tree): one outside the source root
  // is shown as "<name>/...", as a hidden one.
  std::vector<std::string> machine_paths;
  // fleet: the folder of the check's reports, the units expected, and what to write.
  std::string fleet, output, summary, html;
  std::vector<std::string> expect, expect_files;
};

// What the pipeline takes from its environment.
struct PublishEnvironment {
  bool gpu_declared = false;        // KERNODECK_EXPECT_GPU=1: the runner declared a GPU
  std::string temporary = "/tmp";   // TMPDIR, or /tmp: its paths are shown as "<name>/..."
};

// KERNODECK_EXPECT_GPU and TMPDIR of this process.
PublishEnvironment environment_of_this_process();

struct Published {
  Counts counts;      // of the report written
  bool held = false;  // every check held
};

// Writes the report and runs every check, printing each verdict to `log` (what it found when a
// check fails). An input that cannot be read, or a report that cannot be written, is an
// InputError; a check that fails is `held` false, after every check has run.
Published publish(const Options& options, const PublishEnvironment& environment,
                  std::ostream& log);

// fleet: the fleet's junit.xml, and its summary and page when asked (fleet.hpp); its counts.
Counts publish_fleet(const Options& options, std::ostream& log);

}  // namespace kd::junit
