// The contract's rules for any report, whatever the case that produced it: the keys, codes,
// stages and exit codes that go together, what a pass and a failure carry, and error.evidence
// holding words and tokens only (CONTRACT.md, "The report"). A live case's report, committed
// evidence and each report of a fleet (reporting/fleet.hpp) are judged by these same rules.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kdh {

using nlohmann::json;

// The value at a JSON pointer of a report; null where there is none.
json value_at(const json& report, const std::string& pointer);

// Adds a problem for each rule `report` breaks, given the check's `arguments`; `exit_code` is
// the process's when `exited`.
void check_report_shape(const std::vector<std::string>& arguments, const json& report,
                        int exit_code, bool exited, std::vector<std::string>& problems);

// The contract's invariants of one report read from a file (committed
// evidence), judged by the same rules as a live case: `args` are the check's
// arguments that produced it; `exit_code` is the process's exit code when it is
// known. Without it, the report's own exit_code must still be the one the
// contract's table gives its code.
std::vector<std::string> report_problems(const json& report, const std::vector<std::string>& args,
                                         std::optional<int> exit_code);

// The check's arguments as the report's `requested` and `output.requested`
// record them: --device, --device-index, --timeout, --host-check, --import, --output.
std::vector<std::string> arguments_from_report(const json& report);

// A report read alone (a fleet's, committed evidence without its exit file): judged with the
// arguments it records and its own exit_code against its code.
std::vector<std::string> report_problems(const json& report);

}  // namespace kdh
