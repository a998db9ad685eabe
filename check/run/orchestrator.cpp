#include "run/orchestrator.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <signal.h>

#include "stages/application/application.hpp"
#include "stages/application/precision.hpp"
#include "causes/causes.hpp"
#include "facts/computation.hpp"
#include "run/host_check.hpp"
#include "stages/import/library_damage.hpp"
#include "run/output_file.hpp"
#include "probe/probe_abi.h"
#include "run/python_probe.hpp"
#include "kd/supervisor.hpp"
#include "run/report.hpp"
#include "stages/import/torch_location.hpp"
#include "util/files.hpp"
#include "run/worker.hpp"

namespace kd {
namespace {

// The last non-empty line the worker printed, for a death without a verdict.
std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return {};
  size_t start = text.find_last_of('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return text.substr(start, end - start + 1);
}

// A passing verdict must be backed by the facts; otherwise the worker is
// confused, which is a defect of the check.
bool pass_is_backed(const WorkerFindings& f, const Options& options) {
  const auto& e = f.execution;
  const std::string expected = device_label(options.device, options.device_index);
  bool ok = !f.error && e["device"] == expected && e["product_verified"] == true &&
            e["gradient_verified"] == true && e["loss"].is_number() && e["loss"] == kExpectedLoss;
  if (options.device == Device::Cuda) {
    ok = ok && f.outcome == Outcome::GpuCheckPassed && e["synchronized"] == true &&
         f.pytorch["gpu_available"] == true;
  } else {
    ok = ok && f.outcome == Outcome::CpuCheckPassed;
  }
  return ok;
}

struct WorkerVerdict {
  Outcome outcome;
  Stage stage;
  std::optional<ErrorInfo> error;
  int interrupted = 0;
  std::optional<Cause> cause;  // the words of the cause the catalogue names
};

// The words of a cause of the catalogue (causes.hpp) with what the parent
// knows of this run: the limits it ran under, how the worker ended.
Cause words_of(CauseId id, FactSources sources, const ResourceLimits& limits,
               const Sanitizer& sanitizer) {
  sources.limits = &limits;
  return cause_words(id, cause_facts(sources, sanitizer));
}

// A run that did not end on its own: never started, lost, interrupted or
// out of time. nullopt when the worker exited.
std::optional<WorkerVerdict> verdict_of_end(const RunResult& run, const WorkerFindings& findings,
                                            const ResourceLimits& limits,
                                            const Sanitizer& sanitizer) {
  switch (run.end) {
    case RunEnd::SpawnFailed: {
      // Lack of processes or memory is the environment's, not a defect.
      CauseId id = recognise_worker_start(run.spawn_errno);
      const CauseInfo& row = cause_info(id);
      ErrorInfo error{std::string(row.type), "the worker could not be started: " + run.spawn_error};
      return WorkerVerdict{row.outcome, row.stage, error, 0,
                           words_of(id, FactSources{}, limits, sanitizer)};
    }
    case RunEnd::WatchFailed:
      return WorkerVerdict{Outcome::WorkerFailed, findings.stage,
                           ErrorInfo{failure_type(Failure::WatchFailed),
                                     "the worker could not be watched to its end (" +
                                         run.watch_error + "); it was stopped"},
                           0, std::nullopt};
    case RunEnd::Interrupted:
      return WorkerVerdict{Outcome::WorkerFailed, findings.stage, std::nullopt,
                           run.interrupt_signal, std::nullopt};
    case RunEnd::Deadline:
      return WorkerVerdict{Outcome::Timeout, findings.stage,
                           ErrorInfo{failure_type(Failure::Timeout),
                                     "no verdict within the time limit; the worker was stopped" +
                                         (findings.application_step.empty()
                                              ? std::string()
                                              : " while " + findings.application_step)},
                           0, std::nullopt};
    case RunEnd::Exited:
      break;
  }
  return std::nullopt;
}

std::string text_of(const ojson& value) {
  return value.is_string() ? value.get<std::string>() : std::string();
}

// The cause of a verdict the worker gave: the one it named in error.type, if
// of this outcome; else an allocation refused under a limit.
std::optional<CauseId> cause_of_verdict(const WorkerFindings& findings, Outcome outcome,
                                        const ResourceLimits& limits) {
  if (!findings.error) return std::nullopt;
  auto id = cause_from_type(findings.error->type);
  if (id && cause_info(*id).outcome == outcome) return id;
  if (outcome == Outcome::OutOfMemory) return recognise_allocation(limits);
  return std::nullopt;
}

// The verdict the worker gave, once it exited 0 after a well-formed report.
WorkerVerdict verdict_given(const WorkerFindings& findings, const Options& options,
                            const ResourceLimits& limits, const Sanitizer& sanitizer) {
  Outcome outcome = *findings.outcome;
  Stage stage = findings.outcome_stage.value_or(findings.stage);
  if (is_pass(outcome)) {
    if (!pass_is_backed(findings, options)) {
      return {Outcome::InternalError, Stage::Compute,
              ErrorInfo{failure_type(Failure::InconsistentVerdict),
                        "the worker reported a pass its own facts do not support"},
              0, std::nullopt};
    }
    stage = Stage::Complete;
  }
  // A cause of the catalogue: the cause is named, not only the layer, and
  // error.type says which; error.message keeps what the backend said.
  std::optional<CauseId> id = cause_of_verdict(findings, outcome, limits);
  if (!id) return {outcome, stage, findings.error, 0, std::nullopt};
  ErrorInfo error = *findings.error;
  error.type = std::string(cause_info(*id).type);
  const std::string backend = text_of(findings.pytorch["backend"]);
  const std::string capability = text_of(findings.execution["capability"]);
  FactSources sources;
  sources.evidence = error.evidence ? &*error.evidence : nullptr;
  sources.error_message = error.message;
  sources.backend = backend;
  sources.capability = capability;
  sources.import = findings.python_import ? &*findings.python_import : nullptr;
  sources.python_version = findings.python_version;
  sources.extension = findings.extension_failure ? &*findings.extension_failure : nullptr;
  sources.weights = findings.weights_failure ? &*findings.weights_failure : nullptr;
  sources.library = findings.library_failure ? &*findings.library_failure : nullptr;
  sources.compile = findings.compile_failure ? &*findings.compile_failure : nullptr;
  sources.memory = findings.weights_memory ? &*findings.weights_memory : nullptr;
  const std::optional<PrecisionRun> precision = failed_precision_of(findings);
  sources.precision = precision ? &*precision : nullptr;
  const std::string torch_version = text_of(findings.pytorch["version"]);
  sources.torch_version = torch_version;
  return {outcome, stage, error, 0, words_of(*id, sources, limits, sanitizer)};
}

// Died, or spoke nonsense: say how, with its last words.
WorkerVerdict verdict_of_death(const RunResult& run, const WorkerFindings& findings,
                               const ResourceLimits& limits, const Sanitizer& sanitizer) {
  std::string how = run.status.describe();
  // Where the application stage was when it died: "while importing kd_fill".
  std::string message = "the worker " + how +
                        (findings.application_step.empty() ? std::string()
                                                           : " while " + findings.application_step);
  if (!findings.protocol_problem.empty()) {
    message = "the worker's report was unusable: " + findings.protocol_problem;
  } else if (findings.outcome) {
    message = "the worker gave its verdict but then " + how;
  } else if (run.event_line_overflow) {
    message = "the worker wrote an oversized event";
  }
  std::string words = last_line(run.out.data);
  if (!words.empty()) message += "; its last output: " + words;
  // A report it could not use says nothing of a resource limit.
  CauseId id = findings.protocol_problem.empty() ? recognise_worker_end(run.status, words, limits)
                                                 : CauseId::WorkerFailed;
  FactSources sources;
  sources.stage = stage_name(findings.stage);
  const std::string sanitized_how = sanitizer.message(how);
  sources.how = sanitized_how;
  const CauseInfo& row = cause_info(id);
  ErrorInfo error{std::string(row.type), message};
  // The out-of-memory killer's SIGKILL is OUT_OF_MEMORY, every other end WORKER_FAILED.
  return {row.outcome, findings.stage, error, 0, words_of(id, sources, limits, sanitizer)};
}

// How an import ended that a damaged file may explain: words of the loader's that name no
// other cause (an undefined symbol, a damaged file, words not recognised), or a worker killed
// at the import stage by a signal that touching a damaged file raises. nullopt otherwise.
std::optional<ImportFailure> failure_to_examine(const WorkerVerdict& verdict,
                                                const RunResult& run, const Options& options) {
  if (verdict.stage != Stage::Import || !verdict.error) return std::nullopt;
  const std::optional<CauseId> cause = cause_from_type(verdict.error->type);
  ImportFailure failure;
  // The second look takes no longer than the worker was given, and an interrupt ends it.
  failure.deadline = deadline_in(options.timeout_s);
  failure.stop = [] { return pending_interrupt() != 0; };
  if (verdict.outcome == Outcome::TorchImportFailed &&
      (cause == CauseId::MixedBuilds || cause == CauseId::CorruptLibrary ||
       cause == CauseId::LoaderError)) {
    const LoaderWords words = read_loader_words(verdict.error->message);
    failure.undefined_symbol = verdict.error->message.find("undefined symbol") != std::string::npos;
    failure.needer = words.needer;
    failure.symbol = words.symbol;
    return failure;
  }
  const int sig = run.status.signaled ? run.status.signal : 0;
  const bool damage_signal =
      sig == SIGBUS || sig == SIGSEGV || sig == SIGILL || sig == SIGFPE || sig == SIGABRT;
  if (verdict.outcome == Outcome::WorkerFailed && cause == CauseId::WorkerFailed && damage_signal) {
    return failure;
  }
  return std::nullopt;
}

// The files the import starts from: the probe module, and for the stable probe the libtorch
// it opens by path in the torch folder found for it.
std::vector<std::string> import_roots(const WorkerRequest& request) {
  std::vector<std::string> roots;
  if (!request.probe_path.empty()) roots.push_back(request.probe_path);
  if (request.torch_dir.empty()) return roots;
  const std::string libtorch = torch_library(request.torch_dir);
  const std::string deps = dirname_of(libtorch) + "/libtorch_global_deps.so";
  if (access(deps.c_str(), F_OK) == 0) roots.push_back(deps);
  roots.push_back(libtorch);
  // The interpreter's import loads torch's extension module too (the python probe).
  for (const std::string& name : folder_entries(request.torch_dir)) {
    if (name.rfind("_C.", 0) == 0 && name.size() > 6 &&
        name.compare(name.size() - 3, 3, ".so") == 0) {
      roots.push_back(request.torch_dir + "/" + name);
    }
  }
  return roots;
}

// After an undefined symbol of a library's version ("version libnvJitLink.so.13"), that library
// not libtorch's: the copy the loader takes for the import, and the role of its folder (a
// folder of LD_LIBRARY_PATH, a CUDA toolkit's among them, the needing file's own paths, the
// system's). nullopt for other words, or where the loader would find none.
std::optional<LibraryCopy> versioned_library_taken(const std::string& words,
                                                   const std::vector<std::string>& roots,
                                                   const LoaderSearch& search) {
  const std::string version = read_loader_words(words).symbol_version;
  if (version.empty() || is_torch_library(version)) return std::nullopt;
  for (const ImportFile& f : import_closure(roots, search)) {
    if (f.path.substr(f.path.rfind('/') + 1) != version) continue;
    const std::string folder = dirname_of(f.path);
    const auto& path = search.library_path;
    const auto& system = search.system_folders;
    LibraryCopy copy(version, CopyState::Readable);
    if (std::find(path.begin(), path.end(), folder) != path.end()) {
      copy.folder = library_path_role(folder);
    } else {
      const bool cached = std::any_of(search.cache.begin(), search.cache.end(),
                                      [&](const auto& entry) { return entry.second == f.path; });
      copy.folder = cached || std::find(system.begin(), system.end(), folder) != system.end()
                        ? "system"
                        : "own_path";
    }
    return copy;
  }
  return std::nullopt;
}

// A cause of the import named from what the parent found of its files: a damaged one, or a
// versioned library the loader takes from LD_LIBRARY_PATH; nullopt where neither is.
std::optional<std::pair<CauseId, LibraryCopy>> import_files_cause(const WorkerVerdict& verdict,
                                                                  const ImportFailure& failure,
                                                                  const WorkerRequest& request,
                                                                  const LoaderSearch& search) {
  const std::vector<std::string> roots = import_roots(request);
  if (auto damaged = examine_import(roots, search, failure)) {
    if (auto id = recognise_damaged_library(*damaged)) return std::make_pair(*id, *damaged);
  }
  if (!failure.undefined_symbol) return std::nullopt;
  const std::string& words = verdict.error->message;
  if (auto taken = versioned_library_taken(words, roots, search)) {
    if (auto id = recognise_shadowing(words, *taken)) return std::make_pair(*id, *taken);
  }
  return std::nullopt;
}

// After an import that failed or killed the worker, the files it needed, looked at without
// loading them: a damaged one is the cause, whatever the worker's end was; after an undefined
// symbol, so is an older library of LD_LIBRARY_PATH that shadows the import's own; else the
// verdict stands.
WorkerVerdict examined_import(WorkerVerdict verdict, const RunResult& run,
                              const Options& options, const WorkerRequest& request,
                              const std::string& self_exe, const ResourceLimits& limits,
                              const Sanitizer& sanitizer) {
  auto failure = failure_to_examine(verdict, run, options);
  if (!failure) return verdict;
  const LoaderSearch search = LoaderSearch::of_this_process(self_exe);
  auto found = import_files_cause(verdict, *failure, request, search);
  if (!found) return verdict;
  const auto& [id, copy] = *found;
  const CauseInfo& row = cause_info(id);
  Evidence evidence;
  evidence.library = copy;
  const std::string message =
      copy.found == CopyState::Damaged
          ? damage_words(copy) + " (found after the import failed: " + verdict.error->message + ")"
          : verdict.error->message;
  ErrorInfo error{std::string(row.type), message, evidence};
  FactSources sources;
  sources.evidence = &*error.evidence;
  sources.error_message = error.message;
  return {row.outcome, row.stage, error, 0, words_of(id, sources, limits, sanitizer)};
}

// The stable probe's torch, looked for here before the worker starts: the interpreter asked
// and the worker are never alive at once, so two processes stay all the check needs. nullopt
// when found (its folder in `torch_dir`); else the verdict, TORCH_MISSING naming the search.
std::optional<WorkerVerdict> find_torch(const std::string& self_exe, Clock::time_point deadline,
                                        std::string& torch_dir, ReportInput& in,
                                        const Sanitizer& sanitizer) {
  TorchLocation where = locate_torch(dirname_of(self_exe), deadline);
  in.torch_source = where.source;
  in.python_environment = where.environment;
  const ResourceLimits limits = read_resource_limits();
  if (where.found == TorchLocation::Found::Torch) {
    torch_dir = where.dir;
    return std::nullopt;
  }
  if (Clock::now() >= deadline) {
    return WorkerVerdict{Outcome::Timeout, Stage::Import,
                         ErrorInfo{failure_type(Failure::Timeout),
                                   "no verdict within the time limit: the Python asked "
                                   "for its torch did not answer in time"},
                         0, std::nullopt};
  }
  if (where.spawn_errno != 0) {
    // The first process the check starts could not be: as a worker that cannot start.
    CauseId id = recognise_worker_start(where.spawn_errno);
    const CauseInfo& row = cause_info(id);
    return WorkerVerdict{row.outcome, row.stage,
                         ErrorInfo{std::string(row.type), where.searched + " " + where.failure}, 0,
                         words_of(id, FactSources{}, limits, sanitizer)};
  }
  const bool no_python = where.found == TorchLocation::Found::NoPython;
  const CauseId id = no_python ? CauseId::NoPythonForTorch : CauseId::TorchPackageMissing;
  const CauseInfo& row = cause_info(id);
  std::string words = no_python              ? "there is no python3 on PATH"
                      : where.failure.empty() ? where.searched + " has no torch package"
                                             : where.searched + " " + where.failure;
  ErrorInfo error{std::string(row.type), words};
  FactSources sources;
  sources.error_message = error.message;
  return WorkerVerdict{row.outcome, row.stage, error, 0, words_of(id, sources, limits, sanitizer)};
}

// The verdict where no interpreter is there for the python probe: TORCH_MISSING, naming how
// it was looked for.
WorkerVerdict no_python(const PythonLocation& where, const ResourceLimits& limits,
                        const Sanitizer& sanitizer) {
  const CauseInfo& row = cause_info(CauseId::NoPythonForTorch);
  const std::string words = where.source == "torch_python_variable"
                                ? "KERNODECK_TORCH_PYTHON names no interpreter this process can run"
                                : "there is no python3 on PATH";
  ErrorInfo error{std::string(row.type), words};
  FactSources sources;
  sources.error_message = error.message;
  return WorkerVerdict{row.outcome, row.stage, error, 0,
                       words_of(CauseId::NoPythonForTorch, sources, limits, sanitizer)};
}

// A folder of the check's own under TMPDIR (else /tmp), mode 0700, removed with what it holds
// when the run ends; none where `wanted` is false or it cannot be made.
class PrivateFolder {
 public:
  explicit PrivateFolder(bool wanted) {
    if (!wanted) return;
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                          "/kernodeck-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~PrivateFolder() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The worker to start: this binary re-executed for a probe module, or the interpreter running
// the python probe. False where there is none to start (`verdict` then says why).
bool worker_spec(const std::string& self_exe, const ProbeChoice& probe, WorkerRequest& request,
                 std::string& searched, ReportInput& in, const Sanitizer& sanitizer,
                 Clock::time_point deadline, SpawnSpec& spec,
                 std::optional<WorkerVerdict>& verdict, const std::string& private_folder) {
  if (probe.kind == kProbeKindPython) {
    const PythonLocation where = locate_python(dirname_of(self_exe));
    in.torch_source = where.source;
    if (where.python.empty()) {
      verdict = no_python(where, read_resource_limits(), sanitizer);
      return false;
    }
    request.probe_path.clear();
    searched = where.searched;
    spec.argv = python_worker_argv(where.python, in.options.device == Device::Cuda,
                                   in.options.device_index, in.options, private_folder);
    return true;
  }
  if (probe.kind == KD_PROBE_KIND_STABLE_ABI) {
    verdict = find_torch(self_exe, deadline, request.torch_dir, in, sanitizer);
    if (verdict) return false;
  }
  spec.argv = worker_argv(self_exe, request);
  return true;
}

// The stages walked over the python probe's answers, folded into the findings as values. The
// interpreter said each stage as it entered it, so walking its answers does not say them again;
// where the interpreter did not end whole, how it ended is the verdict, not the walk's outcome.
class WalkedAnswers final : public FindingsSink {
 public:
  WalkedAnswers(WorkerFindings& findings, bool whole) : fold_(findings), whole_(whole) {}
  void stage(Stage) override {}
  void facts(std::string_view section, const ojson& values) override {
    fold_.facts(section, values);
  }
  void outcome(Outcome outcome, Stage stage, const std::optional<ErrorInfo>& error) override {
    if (whole_) fold_.outcome(outcome, stage, error);
  }

 private:
  FindingsFold fold_;
  bool whole_;
};

// The python probe's answers, once its interpreter ended: every answer given and the
// interpreter ended on its own, the stages walked over them; stopped or dead after the
// computation (compile, application), the answers up to there walked for their facts, the
// verdict being how the run ended.
void walk_python_answers(const PythonAnswers& answers, const RunResult& run,
                         WorkerRequest& request, const std::string& searched,
                         WorkerFindings& findings, const Sanitizer& sanitizer) {
  if (const nlohmann::json* i = answers.find("interpreter")) {
    request.torch_dir = i->value("torch_folder", std::string());
    findings.python_version = i->value("python_version", std::string());
    findings.python_environment = i->value("environment", std::string());
  }
  // A module's or a file's name, as any outside text.
  findings.application_step = sanitizer.message(application_step(answers));
  const bool whole = answers.done && answers.problem.empty() && run.end == RunEnd::Exited &&
                     run.status.exited() && run.status.code == 0;
  if (whole || (answers.problem.empty() && findings.stage >= Stage::Compile)) {
    WalkedAnswers walked(findings, whole);
    run_python_answers(answers, request, searched, findings, walked);
  } else if (!answers.problem.empty() && findings.protocol_problem.empty()) {
    findings.protocol_problem = answers.problem;
  }
}

WorkerVerdict run_worker_process(const std::string& self_exe, const ProbeChoice& probe,
                                 ReportInput& in, const Sanitizer& sanitizer) {
  const Options& options = in.options;
  WorkerFindings& findings = in.findings;
  const Clock::time_point deadline = deadline_in(options.timeout_s);
  WorkerRequest request{options.device, options.device_index, probe.path, "", options.imports,
                        options.weights, options.compile, options.dtypes};
  SpawnSpec spec;
  std::string searched;  // how the python probe's interpreter was found
  std::optional<WorkerVerdict> not_started;
  // The python probe's torch keeps its caches and temporary files here, never elsewhere; the
  // folder goes with its content when the run ends.
  const PrivateFolder folder(probe.kind == kProbeKindPython);
  if (!worker_spec(self_exe, probe, request, searched, in, sanitizer, deadline, spec,
                   not_started, folder.path())) {
    return *not_started;
  }
  spec.event_pipe = true;
  spec.merge_err_into_out = true;  // libtorch's own chatter, kept for a post-mortem
  spec.out = CaptureSpec{true, 16 * 1024, true};
  PythonAnswers answers;
  RunHooks hooks;
  hooks.on_event_line = [&findings, &answers](std::string_view line) {
    if (!take_python_line(answers, line)) apply_event(findings, line);
  };
  // The out-of-memory kills counted so far: one more by the worker's end, with a SIGKILL the
  // check did not send, is the out-of-memory killer's, not a guess.
  const std::optional<unsigned long long> oom_kills = read_cgroup_oom_kills();
  RunResult run = run_supervised(spec, deadline, hooks);

  if (probe.kind == kProbeKindPython) walk_python_answers(answers, run, request, searched, findings,
                                                         sanitizer);
  ResourceLimits limits = read_resource_limits();
  limits.oom_kills_while_running = oom_kills_since(oom_kills, read_cgroup_oom_kills());
  if (auto verdict = verdict_of_end(run, findings, limits, sanitizer)) return *verdict;
  const bool given = findings.outcome && findings.protocol_problem.empty() &&
                     run.status.exited() && run.status.code == 0;
  WorkerVerdict verdict = given ? verdict_given(findings, options, limits, sanitizer)
                                : verdict_of_death(run, findings, limits, sanitizer);
  if (is_pass(verdict.outcome)) return verdict;
  return examined_import(std::move(verdict), run, options, request, self_exe, limits, sanitizer);
}

// A warning for each distribution of the environment made for another torch than the one
// imported, worded by the catalogue's row for it: the exit code stays the check's.
std::vector<ReportInput::Warning> application_warnings(const WorkerFindings& findings,
                                                       const Sanitizer& sanitizer) {
  std::vector<ReportInput::Warning> warnings;
  const std::string torch_version = text_of(findings.pytorch["version"]);
  for (const BackendLibrary& library : findings.library_warnings) {
    const auto id = recognise_backend_library(library);
    if (!id) continue;
    FactSources sources;
    sources.library = &library;
    sources.torch_version = torch_version;
    const Cause words = cause_words(*id, cause_facts(sources, sanitizer));
    warnings.push_back({Stage::Backend, std::string(cause_info(*id).type),
                        words.what + " " + words.next_action});
  }
  for (const ExtensionImport& e : findings.extension_warnings) {
    FactSources sources;
    sources.extension = &e;
    sources.python_version = findings.python_version;
    const CauseInfo& row = cause_info(CauseId::ExtensionForOtherTorch);
    const Cause words = cause_words(row.id, cause_facts(sources, sanitizer));
    warnings.push_back({Stage::Application, std::string(row.type),
                        words.what + " " + words.next_action});
  }
  return warnings;
}

// Writes the report to stdout, the last destination. Stdout is a
// destination like --output: a report it cannot take whole turns a pass into
// OUTPUT_WRITE_FAILED (the verdict line on stderr says so); a failure keeps
// its own code.
CheckRun deliver(ReportInput& in, const Sanitizer& sanitizer, const ReportWriter& write_stdout) {
  ojson report = build_report(in, sanitizer);
  CheckRun run{exit_code_of(in.outcome), render_report(report), verdict_line(report), {}, 0, {}};
  for (const ReportInput::Warning& w : in.warnings) {
    run.warnings.push_back("kernodeck-diagnostic: warning (" + std::string(stage_name(w.stage)) +
                           ", " + w.type + "): " + w.message);
  }
  int err = write_stdout(run.report);
  if (err == 0) return run;
  run.stdout_problem = std::string("the report could not be written to stdout: ") + strerror(err);
  if (is_pass(in.outcome)) {
    in.outcome = Outcome::OutputWriteFailed;
    in.stage = Stage::Output;
    const CauseInfo& row = cause_info(CauseId::StdoutWriteFailed);
    in.error = ErrorInfo{std::string(row.type), run.stdout_problem};
    FactSources sources;
    const std::string why = strerror(err);
    sources.write_error = why;
    in.cause = cause_words(row.id, cause_facts(sources, sanitizer));
    ojson failed = build_report(in, sanitizer);
    run.exit_code = exit_code_of(in.outcome);
    run.verdict = verdict_line(failed);
  }
  return run;
}

}  // namespace

std::optional<std::string> refused_for_probe(const Options& options, const std::string& self_exe) {
  const bool interpreter_asked =
      !options.imports.empty() || !options.weights.empty() || options.compile;
  if (!interpreter_asked && options.dtypes.empty()) return std::nullopt;
  const std::string option = !options.imports.empty()   ? "--import"
                             : !options.weights.empty() ? "--weights"
                             : !options.dtypes.empty()  ? "--dtype"
                                                        : "--compile";
  const char* override_path = std::getenv(kProbeOverrideVariable);
  const std::string kind = override_path != nullptr && *override_path != '\0'
                               ? std::string("override")
                               : default_probe(self_exe).kind;
  if (kind == kProbeKindPython) return std::nullopt;
  // The compiled probe has the whole of libtorch: it computes in the precisions asked itself.
  if (kind == KD_PROBE_KIND_LIBTORCH && !interpreter_asked) return std::nullopt;
  const std::string which =
      kind == KD_PROBE_KIND_LIBTORCH ? "its compiled probe, built against one libtorch"
      : kind == KD_PROBE_KIND_STABLE_ABI
          ? "its stable probe, for the torch folder KERNODECK_TORCH_DIR names"
          : "the fault-injection probe KERNODECK_PROBE_MODULE names";
  const std::string needs =
      interpreter_asked ? "the interpreter of the application (to import its modules, load its "
                          "weights, run torch.compile)"
                        : "the interpreter of the application or the compiled probe (to compute "
                          "in other precisions)";
  return "kernodeck-diagnostic: error: " + option + " needs " + needs + ", and this check "
         "certifies libtorch through " + which + ", without one; run it with "
         "KERNODECK_TORCH_PYTHON naming the application's python (or installed into its "
         "environment), or without " + option + "\nRun 'kernodeck-diagnostic --help' for usage.";
}

ProbeChoice default_probe(const std::string& self_exe) {
  const std::string dir = dirname_of(self_exe) + "/";
  const std::string compiled = dir + KERNODECK_PROBE_RELATIVE_PATH;
  switch (probe_for(access(compiled.c_str(), F_OK) == 0)) {
    case ProbeKind::Compiled: return {compiled, KD_PROBE_KIND_LIBTORCH};
    case ProbeKind::Stable: return {dir + KERNODECK_STABLE_PROBE_RELATIVE_PATH, KD_PROBE_KIND_STABLE_ABI};
    case ProbeKind::Python: break;
  }
  return {"", kProbeKindPython};
}

CheckRun internal_error_run(const Options& options, const std::string& what,
                            const ReportWriter& write_stdout) {
  ReportInput in;
  in.options = options;
  in.outcome = Outcome::InternalError;
  in.error = ErrorInfo{failure_type(Failure::InternalError), what};
  return deliver(in, Sanitizer::for_this_process(), write_stdout);
}

namespace {

// Writes the file when asked (the report then says written: true, so the file and stdout stay
// byte-identical), then stdout. The file comes first: it is never rewritten, so if stdout then
// fails the file keeps the verdict of the check itself.
CheckRun finish(ReportInput& in, const Sanitizer& sanitizer, const ReportWriter& write_stdout) {
  // Interrupted after the worker ended: still no report and no file.
  if (int sig = pending_interrupt(); sig != 0) return CheckRun{1, "", "", {}, sig, {}};
  const Options& options = in.options;
  if (options.output && in.outcome != Outcome::OutputWriteFailed) {
    in.output_written = true;
    auto problem = write_new_file(*options.output, render_report(build_report(in, sanitizer)));
    if (problem) {
      in.output_written = false;
      if (is_pass(in.outcome)) {
        in.outcome = Outcome::OutputWriteFailed;
        in.stage = Stage::Output;
        in.error = ErrorInfo{failure_type(Failure::OutputError), problem->reason};
      }
    }
  }
  return deliver(in, sanitizer, write_stdout);
}

}  // namespace

CheckRun run_check(const Options& options, const std::string& self_exe,
                   const ReportWriter& write_stdout) {
  const Sanitizer sanitizer = Sanitizer::for_this_process();
  ReportInput in;
  in.options = options;

  ProbeChoice probe = default_probe(self_exe);
  in.probe_kind = probe.kind;
  if (const char* override_path = std::getenv(kProbeOverrideVariable);
      override_path != nullptr && *override_path != '\0') {
    probe = ProbeChoice{override_path, "override"};
    in.probe_override = true;
  }

  // A destination that cannot work fails before minutes are spent.
  if (options.output) {
    if (auto problem = preflight_new_file(*options.output)) {
      in.outcome = Outcome::OutputWriteFailed;
      in.stage = Stage::Output;
      in.error = ErrorInfo{failure_type(Failure::OutputError), problem->reason};
      return finish(in, sanitizer, write_stdout);
    }
  }

  WorkerVerdict verdict = run_worker_process(self_exe, probe, in, sanitizer);
  if (verdict.interrupted != 0) return CheckRun{1, "", "", {}, verdict.interrupted, {}};
  in.outcome = verdict.outcome;
  in.stage = verdict.stage;
  in.error = verdict.error;
  in.cause = verdict.cause;
  in.warnings = application_warnings(in.findings, sanitizer);

  if (options.host_check) {
    int interrupted = 0;
    in.host = run_host_check(interrupted);
    if (interrupted != 0) return CheckRun{1, "", "", {}, interrupted, {}};
  }
  return finish(in, sanitizer, write_stdout);
}

}  // namespace kd
