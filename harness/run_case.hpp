// Runs the check under test for one case: a fresh folder, a clean
// environment with only the case's change, the files and limits it asks for,
// a signal at a chosen moment, and afterwards a search for any process the
// check left behind (every process it starts inherits a marker variable).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "case.hpp"
#include "kd/supervisor.hpp"

namespace kdh {

struct CopyRun {
  kd::RunResult result;
  std::string command;
  std::optional<json> report;
  std::string report_text;   // what the report was read from: stdout or the case's report file
  std::string report_error;  // why that is not one JSON document
};

struct CaseRun {
  std::string tmp;                 // the case's folder ({tmp})
  std::string cwd;                 // where the check ran
  std::string gpu_index = "0";     // what {gpu_index} stood for
  std::vector<std::string> manipulation;  // the environment change, in words
  std::vector<CopyRun> copies;     // one per parallel copy; copies[0] is "the" run
  std::vector<std::string> leftovers;        // processes found after the end
  std::vector<std::string> watch_problems;   // from watch_processes()
  int watched_workers = 0;                   // worker processes seen while watching
  std::vector<std::pair<std::string, std::string>> canaries;  // name, value
  std::vector<std::string> listing_before;   // names in {tmp} before the run
  std::string setup_error;                   // the case could not be prepared

  const CopyRun& main() const { return copies.front(); }
};

// Where the loader's audit of a case that expects no worker (Case::no_worker) logs what the
// check's processes loaded: "open <file name> <pid>" per watched library, in {tmp}.
inline constexpr const char* kWorkerAuditLog = ".kd-worker-audit.log";

// Replaces {tmp}, {fixtures}, {copy} in `text`.
std::string expand(const std::string& text, const std::string& tmp, const std::string& copy);

CaseRun run_case(const Case& c);

// Removes the case's folder (kept when KERNODECK_KEEP_CASES=1).
void cleanup(const CaseRun& run);

}  // namespace kdh
