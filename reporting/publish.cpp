#include "publish.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "commit_mark.hpp"
#include "junit_checks.hpp"
#include "junit_files.hpp"
#include "published_scan.hpp"

namespace kd::junit {
namespace {

namespace fs = std::filesystem;

std::string within(const std::string& folder, const char* file) {
  return (fs::path(folder) / file).string();
}

// The report of the run or of the merged reports, written into the reports folder.
Written write_report(const PublishOptions& o, const PublishEnvironment& env, std::ostream& log) {
  const PathScrub scrub = path_scrub(o.source_root, {env.temporary});
  const OutputFiles out{within(o.reports, "junit.xml"), within(o.reports, "summary.md"),
                        within(o.reports, "index.html")};
  const Causes causes = read_causes(o.causes);
  if (o.causes.empty())
    log << "kernodeck-junit: no cause catalogue (--causes): summary.md and index.html name no "
           "cause\n";
  std::error_code ec;
  fs::create_directories(o.reports, ec);
  if (!o.merge.empty()) return write_merged(o.merge, o.title, scrub, out, causes, log);
  RunInputs run;
  run.gtest_dir = o.gtest_xml;
  run.ctest_junit = o.ctest_junit;
  run.ctest_tests = o.ctest_tests;
  run.variant = o.variant;
  run.title = o.title;
  run.cases_dir = within(o.reports, "cases");
  fs::create_directories(run.cases_dir, ec);  // a run whose cases wrote no report has none
  run.commit = !o.commit.empty() ? o.commit : commit_mark(o.source_root).value_or("");
  run.gpu_declared = env.gpu_declared ? "yes" : "no";
  return write_run(run, scrub, out, causes, log);
}

// One whole line at a time: CTest merges a test's stdout and stderr as they arrive, and a line
// written in pieces could be split by the other stream.
void say(std::ostream& log, const std::string& line) { log << line + "\n" << std::flush; }

// "1 problem", "2 problems".
std::string count(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

bool check_schema(const std::string& file, const std::string& xml, std::ostream& log) {
  const std::vector<std::string> errors = schema_errors(xml);
  if (errors.empty()) {
    say(log, "kernodeck-junit: " + file + " validates against junit-10.xsd");
    return true;
  }
  std::string text =
      "kernodeck-junit: FAILED: " + file + " does not validate against junit-10.xsd:";
  for (const std::string& e : errors) text += "\n  " + e;
  say(log, text);
  return false;
}

bool check_skips(const std::string& file, const std::string& xml, std::ostream& log) {
  const std::vector<std::string> cases = reasonless_skips(xml);
  if (cases.empty()) {
    say(log, "kernodeck-junit: every skip in " + file + " says why");
    return true;
  }
  std::string text = "kernodeck-junit: FAILED: " + file +
                     ": cases skipped without a reason (give GTEST_SKIP() one):";
  for (const std::string& c : cases) text += " " + c;
  say(log, text);
  return false;
}

// Nothing in the reports folder names this machine: its folders, HOME, host or user name.
bool check_machine(const PublishOptions& o, std::ostream& log) {
  if (!o.no_machine_scan.empty()) {
    say(log, "kernodeck-junit: " + o.reports +
                 " is not held against this machine's details: " + o.no_machine_scan);
    return true;
  }
  published::MachineDetails machine = published::this_machine();
  machine.paths.push_back(fs::absolute(o.source_root).lexically_normal().string());
  machine.paths.insert(machine.paths.end(), o.machine_paths.begin(), o.machine_paths.end());
  std::vector<std::string> binary;
  std::size_t scanned = 0;
  const auto problems = published::check_published_folder(o.reports, machine, binary, scanned);
  for (const auto& p : problems) say(log, p.file + ": " + p.problem);
  const std::string files =
      count(scanned, "published file", "published files") +
      (binary.empty() ? "" : ", " + count(binary.size(), "binary file", "binary files") +
                                 " not read");
  if (problems.empty()) {
    say(log, "kernodeck-junit: nothing in " + o.reports + " names this machine (" + files + ")");
    return true;
  }
  say(log, "kernodeck-junit: FAILED: " + o.reports + " would publish details of this machine: " +
               count(problems.size(), "problem", "problems") + " in " + files);
  return false;
}

}  // namespace

PublishEnvironment environment_of_this_process() {
  PublishEnvironment env;
  const char* gpu = std::getenv("KERNODECK_EXPECT_GPU");
  env.gpu_declared = gpu != nullptr && std::string(gpu) == "1";
  const char* tmp = std::getenv("TMPDIR");
  if (tmp != nullptr && *tmp != '\0') env.temporary = tmp;
  return env;
}

Published publish(const PublishOptions& options, const PublishEnvironment& environment,
                  std::ostream& log) {
  const Written written = write_report(options, environment, log);
  const std::string file = within(options.reports, "junit.xml");
  Published published{written.counts, check_schema(file, written.xml, log)};
  // A skip is judged in a report the schema accepts, as dashboards would read it.
  if (published.held) published.held = check_skips(file, written.xml, log);
  published.held = check_machine(options, log) && published.held;
  return published;
}

}  // namespace kd::junit
