// Judges a case run against the case's expectations and the contract's rules for any report
// (contract/report_rules.hpp), and writes the failure text a reviewer reads in the JUnit page:
// the promise, the command, the manipulation, how it ended, every problem,
// the end of stderr and the report.
#pragma once

#include <string>
#include <vector>

#include "case.hpp"
#include "run_case.hpp"

namespace kdh {

std::vector<std::string> evaluate(const Case& c, const CaseRun& run);

std::string failure_context(const Case& c, const CaseRun& run,
                            const std::vector<std::string>& problems);

}  // namespace kdh
