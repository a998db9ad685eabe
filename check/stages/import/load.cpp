#include "stages/import/load.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <utility>

#include "facts/loader_error.hpp"
#include "stages/import/torch_location.hpp"

namespace kd {
namespace {

// The loader said a library cannot be found: is a copy where it looks, that it
// skipped (unreadable, or built for another machine)? Only then is it looked for.
std::optional<Evidence> library_evidence(const std::string& loader_words,
                                         const std::string& probe_path) {
  LoaderWords w = read_loader_words(loader_words);
  if (w.missing.empty() || loader_words.find("No such file or directory") == std::string::npos) {
    return std::nullopt;
  }
  Evidence e;
  e.library = find_library_copy(w.missing, loader_folders(probe_path));
  return e;
}

// The loader refused libtorch (or the probe module with it): the cause from
// its words, looking where it looks from `requester`, the object whose needs
// it was resolving.
void finish_loader_error(Stages& s, const std::string& words, const std::string& requester,
                         bool torch_found = false) {
  std::optional<Evidence> evidence = library_evidence(words, requester);
  CauseId id = recognise_loader(words, evidence ? evidence->library : std::nullopt);
  if (torch_found && id == CauseId::TorchNotFound) id = CauseId::DependencyNotFound;
  s.finish_cause(id, words, std::move(evidence));
}

}  // namespace

// The probe module, loaded (and with a compiled probe libtorch too); nullptr
// once it has finished the run.
const kd_probe* load_probe(const WorkerRequest& request, Stages& s, double& load_ms) {
  if (access(request.probe_path.c_str(), R_OK) != 0) {
    s.finish(Outcome::InternalError,
             ErrorInfo{failure_type(Failure::ProbeMissing),
                       "the check's probe module is missing or unreadable: " +
                           std::string(strerror(errno))});
    return nullptr;
  }
  auto load_start = std::chrono::steady_clock::now();
  // RTLD_NOW: an unresolvable symbol of libtorch is an import failure now,
  // not a crash later.
  void* handle = dlopen(request.probe_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  load_ms = ms_since(load_start);
  if (handle == nullptr) {
    const char* text = dlerror();
    finish_loader_error(s, text != nullptr ? text : "the loader gave no reason", request.probe_path);
    return nullptr;
  }
  auto entry = reinterpret_cast<kd_probe_entry_fn>(dlsym(handle, KD_PROBE_ENTRY_SYMBOL));
  const kd_probe* probe = entry != nullptr ? entry() : nullptr;
  const bool kind_known = probe != nullptr && probe->kind != nullptr &&
                          (std::strcmp(probe->kind, KD_PROBE_KIND_LIBTORCH) == 0 ||
                           std::strcmp(probe->kind, KD_PROBE_KIND_STABLE_ABI) == 0);
  if (probe == nullptr || probe->abi_version != KD_PROBE_ABI_VERSION || !kind_known ||
      probe->library_info == nullptr || probe->gpu_info == nullptr ||
      probe->init_device == nullptr || probe->compute == nullptr || probe->memory == nullptr ||
      probe->device_info == nullptr || probe->runtime_status == nullptr) {
    s.finish(Outcome::InternalError,
             ErrorInfo{failure_type(Failure::ProbeIncompatible),
                       "the probe module does not provide interface version " +
                           std::to_string(KD_PROBE_ABI_VERSION)});
    return nullptr;
  }
  // The handle stays open: libtorch is not made to be unloaded.
  return probe;
}

// A probe that does not link libtorch loads it now: the torch folder the parent found in
// the user's Python environment (torch_location.hpp). False once it has finished the run.
bool load_torch(const kd_probe& probe, const WorkerRequest& request, Stages& s, double& load_ms) {
  if (request.torch_dir.empty()) {
    s.finish(Outcome::InternalError,
             ErrorInfo{failure_type(Failure::ProbeNeedsTorch),
                       "the probe loads libtorch itself, and the check named "
                       "no torch folder for it"});
    return false;
  }
  auto load_start = std::chrono::steady_clock::now();
  kd_error err{};
  kd_status st = probe.load_library(request.torch_dir.c_str(), &err);
  load_ms = ms_since(load_start);
  if (st == KD_OK) return true;
  const std::string type = bounded(err.type, sizeof err.type);
  const std::string words = bounded(err.message, sizeof err.message);
  if (type == KD_ERROR_LOADER) {
    // libtorch.so itself was found: a library of libtorch's own the loader lacks is a part
    // of it missing (a damaged installation), not a libtorch this process cannot find.
    finish_loader_error(s, words, torch_library(request.torch_dir), /*torch_found=*/true);
  } else if (auto id = cause_from_type(type)) {
    // What the library is, where its files say it: the release it was found too old.
    kd_library_info lib{};
    kd_error ignored{};
    if (probe.library_info(&lib, &ignored) == KD_OK) {
      s.facts("pytorch", {{"version", text_or_null(lib.version, sizeof lib.version)}});
    }
    s.finish_cause(*id, words, std::nullopt);
  } else {
    s.finish(Outcome::TorchImportFailed, ErrorInfo{type, words});
  }
  return false;
}

// The import, as the interpreter answered it. False once it has finished the run.
bool python_import_stage(const PythonAnswers& answers, const WorkerRequest& request,
                         const std::string& searched, WorkerFindings& findings, Stages& s) {
  s.enter(Stage::Import);
  const nlohmann::json* imported = answers.find("import");
  if (imported == nullptr) {
    const nlohmann::json* failed = answers.find("probe_failed");
    s.finish(Outcome::InternalError,
             ErrorInfo{failure_type(Failure::WorkerException),
                       "the python probe failed: " +
                           (failed != nullptr ? failed->value("message", std::string("no reason"))
                                              : std::string("it gave no answer to the import"))});
    return false;
  }
  const nlohmann::json none = nlohmann::json::object();
  if (imported->value("ok", false) == true) {
    // Loading torch took this long: an import that failed loaded nothing to time.
    if (auto ms = answers.ms("import")) s.facts("execution", {{"timings_ms", {{"load", *ms}}}});
    if (auto w = imported->find("warnings"); w != imported->end() && w->is_array()) {
      for (const auto& line : *w) {
        if (line.is_string()) findings.import_warnings.push_back(line.get<std::string>());
      }
    }
    if (answers.find("import_incomplete") == nullptr) return true;
    // The import went through, and what it imported lacks torch's API.
    PythonImport facts = python_import_of(none, imported->value("found", none));
    facts.imported_incomplete = true;
    facts.exception = "AttributeError";
    facts.words = "the torch imported has no torch.tensor";
    findings.python_import = facts;
    s.finish_cause(recognise_python_import(facts), facts.exception + ": " + facts.words,
                   std::nullopt);
    return false;
  }
  PythonImport facts =
      python_import_of(imported->value("facts", none), imported->value("found", none));
  findings.python_import = facts;
  const std::string words = facts.words.empty() ? facts.exception : facts.words;
  if (facts.loader && !request.torch_dir.empty()) {
    // The loader refused a library of torch's, or one it needs: today's loader causes, looking
    // where the loader looks from torch's own libtorch.
    finish_loader_error(s, words, torch_library(request.torch_dir), /*torch_found=*/true);
    return false;
  }
  const CauseId id = recognise_python_import(facts);
  // No torch at all: said as the search for it says it (torch_location.hpp).
  s.finish_cause(id,
                 id == CauseId::TorchPackageMissing
                     ? searched + " has no torch package"
                     : facts.exception + ": " + words,
                 std::nullopt);
  return false;
}

}  // namespace kd
