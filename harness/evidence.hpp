// Committed GPU evidence (docs/evidence/<gpu>-<date>/, what `ci/gpu-proof run`
// wrote) held against the contract: every report in it by the suite's own
// invariants (report_problems, contract/report_rules.hpp), and every file for details of the
// machine that must not be published (published_scan.hpp: evidence is made on another machine,
// whose details are found by their shapes). kernodeck-evidence and its tests share this.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "published_scan.hpp"

namespace kdh {

// A file of the folder, or a missing one, and what does not hold.
using EvidenceProblem = kd::published::Problem;

// The files a folder needs to be complete, relative to it.
const std::vector<std::string>& evidence_required_files();

// Everything that does not hold in one evidence folder, in file order.
std::vector<EvidenceProblem> check_evidence_folder(const std::string& dir);

}  // namespace kdh
