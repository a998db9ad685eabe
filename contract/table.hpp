// The contract's outcome table as the suite knows it, written from
// CONTRACT.md and kept apart from the check's own table on purpose: a suite
// that read the check's table could not catch a wrong one.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kdh {

struct ContractOutcome {
  const char* code;
  int exit_code;
};

const std::vector<ContractOutcome>& contract_outcomes();
std::optional<int> contract_exit_code(const std::string& code);

// The fixed computation's loss, (sum of a @ b)^2, as CONTRACT.md states it.
inline constexpr int kContractLoss = 196;

// The stages, in the order CONTRACT.md lists them.
const std::vector<std::string>& contract_stages();
bool is_contract_stage(const std::string& name);

// Every key the report always has, as JSON pointers, in the contract's order.
const std::vector<std::string>& contract_report_keys();

}  // namespace kdh
