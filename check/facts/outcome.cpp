#include "facts/outcome.hpp"

#include <array>

namespace kd {
namespace {

// The outcome's code is its name: OUTCOME(GpuCheckPassed) is "GPU_CHECK_PASSED".
#define OUTCOME(name) Outcome::name, SnakeCase(#name, SnakeCase::kUpper)

// Each row: the outcome, its exit status and what happened; then what to do.
constexpr std::array<OutcomeInfo, 18> kTable{{
    {OUTCOME(GpuCheckPassed), 0, "Product and gradient were verified on the chosen GPU.",
     "Run a small input of your application next."},
    {OUTCOME(CpuCheckPassed), 0, "Product and gradient were verified on the CPU only.",
     "Draw no conclusion about CUDA or ROCm from this result."},
    {OUTCOME(InternalError), 1, "The check itself failed.",
     "Report this defect of the check with this report."},
    {OUTCOME(TorchMissing), 3, "libtorch cannot be found by this process.",
     "Check the library path and the libtorch installation."},
    {OUTCOME(TorchImportFailed), 4, "libtorch was found but failed to load.",
     "Check the libtorch package and its dependencies."},
    {OUTCOME(GpuBackendAbsent), 5, "This libtorch declares neither CUDA nor HIP.",
     "Install the libtorch build that fits your machine."},
    {OUTCOME(GpuUnavailable), 6, "No usable GPU in this process.",
     "Check device exposure, the driver and permissions."},
    {OUTCOME(DeviceIndexInvalid), 7, "The device index is outside the visible devices.",
     "Check device exposure and the index asked."},
    {OUTCOME(CheckFailed), 8, "The product or the gradient is wrong.",
     "Read the stage before running the full model."},
    {OUTCOME(OutOfMemory), 9, "An allocation on the device failed.",
     "Read the stage before running the full model."},
    {OUTCOME(RuntimeError), 9, "A backend operation failed.",
     "Read the stage before running the full model."},
    {OUTCOME(Timeout), 10, "The check was stopped by its time limit.",
     "Treat it as a failure and examine the environment."},
    {OUTCOME(WorkerFailed), 11, "The worker process died or left no usable report.",
     "Treat it as a failure and examine the environment."},
    {OUTCOME(OutputWriteFailed), 12, "The report was not saved where asked.",
     "Use a new, reachable file name."},
    {OUTCOME(ExtensionImportFailed), 13,
     "A module of the application asked with --import failed to import with this torch.",
     "Check its compatibility with the torch package and the backend of this environment."},
    {OUTCOME(WeightsUnusable), 14,
     "A weights file asked with --weights cannot be loaded as the application loads it.",
     "Check its path, its format and the access rights, and download it again if it is cut."},
    {OUTCOME(BackendLibraryMismatch), 15,
     "torch refuses the cuDNN (MIOpen) library it loaded.",
     "Install the release torch pins, and take other copies off the library path."},
    {OUTCOME(CompileFailed), 16, "The computation failed through torch.compile.",
     "Install what torch.compile's toolchain needs (a C++ compiler, the Python headers, triton)."},
}};

#undef OUTCOME

constexpr std::array<std::string_view, 8> kStages{"import",  "backend",     "device", "compute",
                                                  "compile", "application", "output", "complete"};

// The row of each outcome. A switch without a default: an enumerator left
// out does not compile (-Wswitch), and the assertion below holds the table
// to the same order.
constexpr size_t row_of(Outcome outcome) {
  switch (outcome) {
    case Outcome::GpuCheckPassed: return 0;
    case Outcome::CpuCheckPassed: return 1;
    case Outcome::InternalError: return 2;
    case Outcome::TorchMissing: return 3;
    case Outcome::TorchImportFailed: return 4;
    case Outcome::GpuBackendAbsent: return 5;
    case Outcome::GpuUnavailable: return 6;
    case Outcome::DeviceIndexInvalid: return 7;
    case Outcome::CheckFailed: return 8;
    case Outcome::OutOfMemory: return 9;
    case Outcome::RuntimeError: return 10;
    case Outcome::Timeout: return 11;
    case Outcome::WorkerFailed: return 12;
    case Outcome::OutputWriteFailed: return 13;
    case Outcome::ExtensionImportFailed: return 14;
    case Outcome::WeightsUnusable: return 15;
    case Outcome::BackendLibraryMismatch: return 16;
    case Outcome::CompileFailed: return 17;
  }
  return 2;  // not an enumerator: the INTERNAL_ERROR row
}

constexpr bool table_follows_the_enumeration() {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (row_of(kTable[i].outcome) != i) return false;
  }
  return true;
}
static_assert(table_follows_the_enumeration(), "one row per outcome, in the switch's order");

}  // namespace

const OutcomeInfo& info(Outcome outcome) { return kTable[row_of(outcome)]; }

std::vector<Outcome> all_outcomes() {
  std::vector<Outcome> all;
  for (const auto& row : kTable) all.push_back(row.outcome);
  return all;
}

std::string_view code_of(Outcome outcome) { return info(outcome).code; }
int exit_code_of(Outcome outcome) { return info(outcome).exit_code; }
bool is_pass(Outcome outcome) {
  return outcome == Outcome::GpuCheckPassed || outcome == Outcome::CpuCheckPassed;
}

std::optional<Outcome> outcome_from_code(std::string_view code) {
  for (const auto& row : kTable) {
    if (row.code == code) return row.outcome;
  }
  return std::nullopt;
}

std::string_view stage_name(Stage stage) { return kStages[static_cast<size_t>(stage)]; }

std::optional<Stage> stage_from_name(std::string_view name) {
  for (size_t i = 0; i < kStages.size(); ++i) {
    if (kStages[i] == name) return static_cast<Stage>(i);
  }
  return std::nullopt;
}

}  // namespace kd
