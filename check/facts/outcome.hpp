// The check's outcomes and their one table: code, exit status, stage and
// next action, as CONTRACT.md lists them. Everything else refers to an
// Outcome; only main() turns one into a process exit status.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kd {

// A name written in CamelCase ("GpuCheckPassed"), spelled at compile time in
// snake case: upper ("GPU_CHECK_PASSED") or lower ("gpu_check_passed"). A
// name too long to spell does not compile where the table is constexpr.
class SnakeCase {
 public:
  enum Letters { kLower, kUpper };
  constexpr SnakeCase(std::string_view camel, Letters letters) {
    for (size_t i = 0; i < camel.size(); ++i) {
      const char c = camel[i];
      const bool capital = c >= 'A' && c <= 'Z';
      if (capital && i > 0) push('_');
      const char lower = capital ? static_cast<char>(c - 'A' + 'a') : c;
      const bool small = lower >= 'a' && lower <= 'z';
      push(letters == kUpper && small ? static_cast<char>(lower - 'a' + 'A') : lower);
    }
  }
  constexpr std::string_view view() const { return {text_, size_}; }
  constexpr operator std::string_view() const { return view(); }

 private:
  constexpr void push(char c) {
    if (size_ == sizeof text_) throw "the name is too long to spell in snake case";
    text_[size_++] = c;
  }
  char text_[40]{};
  size_t size_ = 0;
};

enum class Outcome {
  GpuCheckPassed,
  CpuCheckPassed,
  InternalError,
  TorchMissing,
  TorchImportFailed,
  GpuBackendAbsent,
  GpuUnavailable,
  DeviceIndexInvalid,
  CheckFailed,
  OutOfMemory,
  RuntimeError,
  Timeout,
  WorkerFailed,
  OutputWriteFailed,
  ExtensionImportFailed,
  WeightsUnusable,
  BackendLibraryMismatch,
  CompileFailed,
};

// Exit status of a usage error; it has no report and so no Outcome.
inline constexpr int kUsageExitCode = 2;

// The stages in the order they are walked.
enum class Stage { Import, Backend, Device, Compute, Compile, Application, Output, Complete };

struct OutcomeInfo {
  Outcome outcome;
  SnakeCase code;                // the outcome's name in upper snake case: "GPU_CHECK_PASSED"
  int exit_code;                 // the process exit status
  std::string_view meaning;      // what happened, one sentence
  std::string_view next_action;  // what to do, one sentence
};

// The words of a cause the check recognised for one outcome, filled in with
// this run's facts (causes.hpp, cause_words): the report's message says them
// instead of the outcome's meaning and next action.
struct Cause {
  std::string what;         // a sentence: what happened, with the limit and its value
  std::string next_action;  // a sentence: what to do
};

const OutcomeInfo& info(Outcome outcome);
std::string_view code_of(Outcome outcome);
int exit_code_of(Outcome outcome);
bool is_pass(Outcome outcome);
std::optional<Outcome> outcome_from_code(std::string_view code);
// Every outcome, in the order of the table. An enumerator without a row does
// not compile, so this is the whole enumeration.
std::vector<Outcome> all_outcomes();

std::string_view stage_name(Stage stage);
std::optional<Stage> stage_from_name(std::string_view name);

}  // namespace kd
