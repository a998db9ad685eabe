#include "contract/table.hpp"

#include <algorithm>
#include <iterator>

namespace kdh {

const std::vector<ContractOutcome>& contract_outcomes() {
  static const std::vector<ContractOutcome> table{
      {"GPU_CHECK_PASSED", 0},     {"CPU_CHECK_PASSED", 0},  {"INTERNAL_ERROR", 1},
      {"TORCH_MISSING", 3},        {"TORCH_IMPORT_FAILED", 4}, {"GPU_BACKEND_ABSENT", 5},
      {"GPU_UNAVAILABLE", 6},      {"DEVICE_INDEX_INVALID", 7}, {"CHECK_FAILED", 8},
      {"OUT_OF_MEMORY", 9},        {"RUNTIME_ERROR", 9},      {"TIMEOUT", 10},
      {"WORKER_FAILED", 11},       {"OUTPUT_WRITE_FAILED", 12}, {"EXTENSION_IMPORT_FAILED", 13},
      {"WEIGHTS_UNUSABLE", 14},   {"BACKEND_LIBRARY_MISMATCH", 15}, {"COMPILE_FAILED", 16},
  };
  return table;
}

std::optional<int> contract_exit_code(const std::string& code) {
  for (const auto& row : contract_outcomes()) {
    if (code == row.code) return row.exit_code;
  }
  return std::nullopt;
}

const std::vector<std::string>& contract_stages() {
  static const std::vector<std::string> stages{"import",  "backend",     "device", "compute",
                                               "compile", "application", "output", "complete"};
  return stages;
}

bool is_contract_stage(const std::string& name) {
  const auto& stages = contract_stages();
  return std::find(stages.begin(), stages.end(), name) != stages.end();
}

namespace {

// Every key the report always has, in the contract's order ("The report").
const char* const kReportKeys[] = {
    "/schema_version",
    "/tool",
    "/tool/name",
    "/tool/version",
    "/status",
    "/code",
    "/exit_code",
    "/stage",
    "/message",
    "/requested",
    "/requested/device",
    "/requested/device_index",
    "/requested/timeout_s",
    "/requested/host_check",
    "/requested/imports",
    "/requested/weights",
    "/requested/compile",
    "/runtime",
    "/runtime/os_family",
    "/runtime/arch",
    "/runtime/check_build",
    "/runtime/torch_source",
    "/runtime/python_environment",
    "/runtime/python_version",
    "/pytorch",
    "/pytorch/version",
    "/pytorch/cuda",
    "/pytorch/hip",
    "/pytorch/backend",
    "/pytorch/gpu_available",
    "/pytorch/visible_device_count",
    "/pytorch/cudnn",
    "/pytorch/nccl",
    "/pytorch/miopen",
    "/pytorch/rccl",
    "/pytorch/import_warnings",
    "/execution",
    "/execution/device",
    "/execution/device_name",
    "/execution/capability",
    "/execution/product_verified",
    "/execution/gradient_verified",
    "/execution/loss",
    "/execution/synchronized",
    "/execution/gradient_source",
    "/execution/timings_ms",
    "/execution/timings_ms/load",
    "/execution/timings_ms/device_init",
    "/execution/timings_ms/compute",
    "/execution/memory",
    "/execution/compile",
    "/application",
    "/host",
    "/output",
    "/output/requested",
    "/output/written",
    "/error",
    "/warnings",
};

}  // namespace

const std::vector<std::string>& contract_report_keys() {
  static const std::vector<std::string> keys(std::begin(kReportKeys), std::end(kReportKeys));
  return keys;
}

}  // namespace kdh
