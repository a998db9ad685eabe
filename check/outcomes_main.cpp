// kernodeck-outcomes: the check's outcomes (outcome.hpp, the contract's one table) as JSON, with
// the usage error's exit status, for the scripts that act on the check's exit codes
// (ci/templates_check.py holds the Kubernetes Jobs' podFailurePolicy to them), so that none
// writes the numbers again.
//
//   kernodeck-outcomes   {"usage_exit_code": 2, "outcomes": [{"code", "exit_code", "passed"}...]}
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

#include "outcome.hpp"

int main() {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (kd::Outcome outcome : kd::all_outcomes()) {
    rows.push_back({{"code", std::string(kd::code_of(outcome))},
                    {"exit_code", kd::exit_code_of(outcome)},
                    {"passed", kd::is_pass(outcome)}});
  }
  const nlohmann::ordered_json table = {{"usage_exit_code", kd::kUsageExitCode},
                                        {"outcomes", rows}};
  std::cout << table.dump(2) << "\n";
  return 0;
}
