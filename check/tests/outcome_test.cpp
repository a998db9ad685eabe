// Covers outcome.hpp: the one table of codes, exit statuses and stages against CONTRACT.md.
#include "facts/outcome.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace kd {
namespace {

struct ExpectedRow {
  Outcome outcome;
  const char* code;
  int exit_code;
};

// CONTRACT.md, "Outcomes", written out by hand so that a change of the
// table in outcome.cpp cannot silently change the contract.
const std::vector<ExpectedRow> kContract = {
    {Outcome::GpuCheckPassed, "GPU_CHECK_PASSED", 0},
    {Outcome::CpuCheckPassed, "CPU_CHECK_PASSED", 0},
    {Outcome::InternalError, "INTERNAL_ERROR", 1},
    {Outcome::TorchMissing, "TORCH_MISSING", 3},
    {Outcome::TorchImportFailed, "TORCH_IMPORT_FAILED", 4},
    {Outcome::GpuBackendAbsent, "GPU_BACKEND_ABSENT", 5},
    {Outcome::GpuUnavailable, "GPU_UNAVAILABLE", 6},
    {Outcome::DeviceIndexInvalid, "DEVICE_INDEX_INVALID", 7},
    {Outcome::CheckFailed, "CHECK_FAILED", 8},
    {Outcome::OutOfMemory, "OUT_OF_MEMORY", 9},
    {Outcome::RuntimeError, "RUNTIME_ERROR", 9},
    {Outcome::Timeout, "TIMEOUT", 10},
    {Outcome::WorkerFailed, "WORKER_FAILED", 11},
    {Outcome::OutputWriteFailed, "OUTPUT_WRITE_FAILED", 12},
    {Outcome::ExtensionImportFailed, "EXTENSION_IMPORT_FAILED", 13},
    {Outcome::WeightsUnusable, "WEIGHTS_UNUSABLE", 14},
    {Outcome::BackendLibraryMismatch, "BACKEND_LIBRARY_MISMATCH", 15},
    {Outcome::CompileFailed, "COMPILE_FAILED", 16},
};

// The loops below walk the contract's list; this one walks the check's own
// outcomes, so an outcome the list above lacks cannot go unseen.
TEST(Outcome, EveryOutcomeOfTheCheckIsInTheContract) {
  const std::vector<Outcome> all = all_outcomes();
  for (Outcome outcome : all) {
    bool listed = false;
    for (const auto& row : kContract) listed = listed || row.outcome == outcome;
    EXPECT_TRUE(listed) << code_of(outcome) << " is not in CONTRACT.md's table (kContract)";
  }
  EXPECT_EQ(all.size(), kContract.size());
}

TEST(Outcome, EveryOutcomeHasItsOwnRow) {
  for (const auto& row : kContract) {
    // info() falls back to the INTERNAL_ERROR row for an unknown outcome, so
    // a missing row shows as a row naming another outcome.
    EXPECT_EQ(info(row.outcome).outcome, row.outcome) << row.code;
  }
}

TEST(Outcome, CodesAndExitCodesMatchTheContract) {
  for (const auto& row : kContract) {
    EXPECT_EQ(code_of(row.outcome), row.code);
    EXPECT_EQ(exit_code_of(row.outcome), row.exit_code) << row.code;
    EXPECT_EQ(info(row.outcome).exit_code, row.exit_code) << row.code;
  }
}

TEST(Outcome, CodesAreUnique) {
  std::set<std::string> codes;
  for (const auto& row : kContract) {
    EXPECT_TRUE(codes.insert(std::string(code_of(row.outcome))).second) << row.code;
  }
  EXPECT_EQ(codes.size(), kContract.size());
}

TEST(Outcome, ExitCodesAvoidReservedValues) {
  for (const auto& row : kContract) {
    int code = exit_code_of(row.outcome);
    EXPECT_NE(code, kUsageExitCode) << row.code << ": 2 is kept for usage errors";
    EXPECT_NE(code, 124) << row.code << ": 124 is what timeout(1) returns";
    EXPECT_FALSE(code >= 126 && code <= 255) << row.code << " uses " << code;
    EXPECT_GE(code, 0);
  }
  EXPECT_EQ(kUsageExitCode, 2);
}

TEST(Outcome, OnlyTheTwoPassesPassAndExitZero) {
  for (const auto& row : kContract) {
    bool expected_pass =
        row.outcome == Outcome::GpuCheckPassed || row.outcome == Outcome::CpuCheckPassed;
    EXPECT_EQ(is_pass(row.outcome), expected_pass) << row.code;
    EXPECT_EQ(exit_code_of(row.outcome) == 0, expected_pass) << row.code;
  }
}

TEST(Outcome, FromCodeRoundTrips) {
  for (const auto& row : kContract) {
    auto back = outcome_from_code(code_of(row.outcome));
    ASSERT_TRUE(back.has_value()) << row.code;
    EXPECT_EQ(*back, row.outcome);
  }
}

TEST(Outcome, FromCodeRejectsUnknownText) {
  EXPECT_FALSE(outcome_from_code("").has_value());
  EXPECT_FALSE(outcome_from_code("gpu_check_passed").has_value());
  EXPECT_FALSE(outcome_from_code("GPU_CHECK_PASSED ").has_value());
  EXPECT_FALSE(outcome_from_code("USAGE_ERROR").has_value());
}

TEST(Outcome, EveryRowSaysWhatHappenedAndWhatToDo) {
  for (const auto& row : kContract) {
    const OutcomeInfo& i = info(row.outcome);
    EXPECT_FALSE(i.meaning.empty()) << row.code;
    EXPECT_FALSE(i.next_action.empty()) << row.code;
    EXPECT_EQ(i.meaning.back(), '.') << row.code;
    EXPECT_EQ(i.next_action.back(), '.') << row.code;
  }
}

TEST(Stage, NamesInContractOrder) {
  const std::vector<std::pair<Stage, const char*>> order = {
      {Stage::Import, "import"},   {Stage::Backend, "backend"}, {Stage::Device, "device"},
      {Stage::Compute, "compute"}, {Stage::Compile, "compile"}, {Stage::Application, "application"},
      {Stage::Output, "output"},   {Stage::Complete, "complete"},
  };
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(stage_name(order[i].first), order[i].second);
    auto back = stage_from_name(order[i].second);
    ASSERT_TRUE(back.has_value()) << order[i].second;
    EXPECT_EQ(*back, order[i].first);
    // The protocol relies on the enumerators being ordered like the walk.
    if (i > 0) {
      EXPECT_LT(order[i - 1].first, order[i].first);
    }
  }
}

TEST(Stage, UnknownNamesAreRejected) {
  EXPECT_FALSE(stage_from_name("").has_value());
  EXPECT_FALSE(stage_from_name("Import").has_value());
  EXPECT_FALSE(stage_from_name("load").has_value());
  EXPECT_FALSE(stage_from_name("device ").has_value());
}

}  // namespace
}  // namespace kd
