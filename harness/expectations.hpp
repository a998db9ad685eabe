// Judges a case run against the case's expectations and the contract's
// invariants, and writes the failure text a reviewer reads in the JUnit page:
// the promise, the command, the manipulation, how it ended, every problem,
// the end of stderr and the report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "case.hpp"
#include "run_case.hpp"

namespace kdh {

std::vector<std::string> evaluate(const Case& c, const CaseRun& run);

std::string failure_context(const Case& c, const CaseRun& run,
                            const std::vector<std::string>& problems);

// The contract's invariants of one report read from a file (committed
// evidence), judged by the same rules as a live case: `args` are the check's
// arguments that produced it; `exit_code` is the process's exit code when it is
// known. Without it, the report's own exit_code must still be the one the
// contract's table gives its code.
std::vector<std::string> report_problems(const json& report, const std::vector<std::string>& args,
                                         std::optional<int> exit_code);

// Skip (or, on a declared GPU runner, fail), run, judge, clean up.
void run_and_check(const Case& c);

}  // namespace kdh
