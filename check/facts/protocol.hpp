// What a stage finds, said through a FindingsSink as values: entering a stage, a section of
// facts, the outcome. Where it crosses a process boundary (the worker's fd 3), each finding
// becomes one JSON line (LineSink), parsed once where it arrives (apply_event); in the parent
// (the stages walked over the python probe's answers) it is folded into the findings as it is
// (FindingsFold), by the same rules. The lines:
//
//   {"event":"stage","stage":"device"}            entering a stage
//   {"event":"facts","pytorch":{...}}             facts as soon as known
//   {"event":"facts","execution":{...}}
//   {"event":"outcome","code":"CHECK_FAILED","stage":"compute",
//    "error":{"type":"...","message":"...",
//             "evidence":{...}}}                  the verdict, last
//
// The parent keeps only the keys the report has, with the types it expects,
// so neither a confused worker nor a fixture can put anything else in a report.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "facts/evidence.hpp"
#include "facts/extension_import.hpp"
#include "facts/outcome.hpp"
#include "facts/python_import.hpp"
#include "facts/backend_library.hpp"
#include "facts/compile_facts.hpp"
#include "facts/precision.hpp"
#include "facts/weights_file.hpp"

namespace kd {

using ojson = nlohmann::ordered_json;

struct ErrorInfo {
  ErrorInfo() = default;
  ErrorInfo(std::string type_, std::string message_, std::optional<Evidence> evidence_ = std::nullopt)
      : type(std::move(type_)), message(std::move(message_)), evidence(std::move(evidence_)) {}

  std::string type;
  std::string message;
  std::optional<Evidence> evidence;  // what the check saw after the failure (evidence.hpp)
};

// The report's `pytorch` and `execution` objects with every key null.
ojson pytorch_skeleton();
ojson execution_skeleton();
ojson memory_by_stage_skeleton();

// The last stage the worker walks (import, backend, device, compute, compile, application, in
// that order): a stage line beyond it, or before the stage already reached, is refused.
inline constexpr Stage kLastWorkerStage = Stage::Application;

struct WorkerFindings {
  Stage stage = Stage::Import;  // the last stage the worker entered
  ojson pytorch = pytorch_skeleton();
  ojson execution = execution_skeleton();
  std::optional<Outcome> outcome;
  std::optional<Stage> outcome_stage;
  std::optional<ErrorInfo> error;
  std::string protocol_problem;  // first malformed event, if any
  // The python probe's: the interpreter's version and environment, the first lines of the
  // warnings its import of torch printed, and the facts of an import that failed.
  std::string python_version;
  std::string python_environment;
  std::vector<std::string> import_warnings;
  std::optional<PythonImport> python_import;
  // The application layer's (application.hpp): the report's `application` block (null where
  // the stage was not reached), the facts of the module asked with --import that failed, those
  // of each distribution made for another torch (a warning each), those of the weights file of
  // --weights that could not be used, and what the worker was doing when it was stopped
  // ("importing kd_hang", "opening model.safetensors"; "" for none).
  ojson application = nullptr;
  std::optional<ExtensionImport> extension_failure;
  std::vector<ExtensionImport> extension_warnings;
  std::optional<WeightsFile> weights_failure;
  std::string application_step;
  // The weights asked that do not fit in the memory this process may use, and the precision the
  // computation could not run in (precision.hpp).
  std::optional<WeightsMemory> weights_memory;
  std::optional<PrecisionRun> precision_failure;
  // The report's memory_by_stage: {import, compute, application}, each null where not measured.
  ojson memory_by_stage = memory_by_stage_skeleton();
  // The backend's own libraries (backend_libraries.hpp): the cuDNN torch refused on a GPU, and
  // those met without failing (each a warning).
  std::optional<BackendLibrary> library_failure;
  std::vector<BackendLibrary> library_warnings;
  // torch.compile's failure (compile_facts.hpp), where it failed for its toolchain.
  std::optional<CompileFacts> compile_failure;
};

// Where a stage says what it finds, as values.
class FindingsSink {
 public:
  virtual ~FindingsSink() = default;
  virtual void stage(Stage stage) = 0;
  virtual void facts(std::string_view section, const ojson& values) = 0;
  virtual void outcome(Outcome outcome, Stage stage, const std::optional<ErrorInfo>& error) = 0;
};

// Parent side: folds one line into the findings; a malformed line is noted
// in protocol_problem and otherwise ignored.
void apply_event(WorkerFindings& findings, std::string_view line);

// Parent side, within one process: each finding folded into `findings` as it is, by the rules
// of apply_event (what a line may say, a value may say; nothing after the outcome).
class FindingsFold : public FindingsSink {
 public:
  explicit FindingsFold(WorkerFindings& findings) : findings_(findings) {}
  void stage(Stage stage) override;
  void facts(std::string_view section, const ojson& values) override;
  void outcome(Outcome outcome, Stage stage, const std::optional<ErrorInfo>& error) override;

 private:
  WorkerFindings& findings_;
};

// Worker side: the lines, built here so both ends share one definition.
std::string stage_event(Stage stage);
std::string facts_event(std::string_view section, const ojson& values);
std::string outcome_event(Outcome outcome, Stage stage, const std::optional<ErrorInfo>& error);

// Worker side: each finding as its line, handed to `write` (the worker's fd 3).
class LineSink final : public FindingsSink {
 public:
  explicit LineSink(std::function<void(const std::string& line)> write) : write_(std::move(write)) {}
  void stage(Stage stage) override { write_(stage_event(stage)); }
  void facts(std::string_view section, const ojson& values) override {
    write_(facts_event(section, values));
  }
  void outcome(Outcome outcome, Stage stage, const std::optional<ErrorInfo>& error) override {
    write_(outcome_event(outcome, stage, error));
  }

 private:
  std::function<void(const std::string& line)> write_;
};

}  // namespace kd
