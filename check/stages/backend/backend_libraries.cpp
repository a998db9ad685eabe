#include "stages/backend/backend_libraries.hpp"

#include "causes/causes.hpp"
#include "facts/json_fields.hpp"
#include "facts/sanitize.hpp"
#include "facts/version_spec.hpp"

namespace kd {
namespace {

using json_field::flag;
using json_field::text;

// "nvidia-cudnn-cu13==9.26.0.51" -> {"nvidia-cudnn-cu13", "==9.26.0.51"}.
std::pair<std::string, std::string> requirement_parts(const std::string& pinned) {
  size_t at = pinned.find_first_of("=<>!~");
  if (at == std::string::npos) return {pinned, ""};
  return {pinned.substr(0, at), pinned.substr(at)};
}

// The python probe's origin ("wheel": a distribution's files, named) as the report's words: a
// file that is not the one the wheel installed, the pinned release, or another distribution's or
// release's files.
std::string origin_of(const BackendLibrary& l, const std::string& said) {
  if (said != "wheel") return said;
  if (!l.intact) return "replaced_wheel";
  const auto [name, specifier] = requirement_parts(l.pinned);
  const bool pinned = !name.empty() && folded_name(name) == folded_name(l.distribution) &&
                      satisfies(l.version, specifier) == std::optional<bool>(true);
  return pinned ? "pinned_wheel" : "other_wheel";
}

std::optional<BackendLibrary> library_of(const nlohmann::json& libraries, const char* name) {
  auto it = libraries.find(name);
  if (it == libraries.end() || !it->is_object()) return std::nullopt;
  BackendLibrary l;
  l.name = name;
  l.compiled = text(*it, "compiled");
  l.runtime = text(*it, "runtime");
  l.refused = flag(*it, "refused");
  l.distribution = text(*it, "distribution");
  l.version = text(*it, "version");
  l.pinned = text(*it, "pinned");
  l.words = text(*it, "words");
  l.intact = flag(*it, "intact", true);
  l.source = text(*it, "source");
  l.origin = origin_of(l, text(*it, "origin"));
  return l;
}

ojson token_or_null(const std::string& text) {
  const std::string token = Sanitizer::token(text);
  return token.empty() ? ojson(nullptr) : ojson(token);
}

}  // namespace

BackendLibraries backend_libraries_of(const nlohmann::json& answer) {
  BackendLibraries found;
  const nlohmann::json libraries = answer.value("libraries", nlohmann::json::object());
  if (!libraries.is_object()) return found;
  found.dnn = library_of(libraries, "cudnn");
  if (!found.dnn) found.dnn = library_of(libraries, "miopen");
  found.ccl = library_of(libraries, "nccl");
  if (!found.ccl) found.ccl = library_of(libraries, "rccl");
  return found;
}

ojson library_json(const BackendLibrary& l) {
  const bool dnn = l.name == "cudnn" || l.name == "miopen";
  ojson out;
  if (dnn) out["compiled"] = token_or_null(l.compiled);
  out["runtime"] = token_or_null(l.runtime);
  if (dnn) out["accepted"] = l.runtime.empty() ? ojson(nullptr) : ojson(!l.refused);
  out["origin"] = token_or_null(l.origin);
  if (dnn) out["source"] = token_or_null(l.source);
  const std::string pinned = Sanitizer::specifier(l.pinned);
  out["pinned"] = pinned.empty() ? ojson(nullptr) : ojson(pinned);
  return out;
}

bool ccl_other_than_pinned(const BackendLibrary& l) {
  const auto [name, specifier] = requirement_parts(l.pinned);
  if (name.empty() || l.runtime.empty() || specifier.empty()) return false;
  // The pin names the wheel's version (2.30.7, or 2.30.7.post1): its release is the library's.
  const auto pinned = versions_named(specifier);
  const auto runtime = parse_version(l.runtime);
  if (pinned.empty() || !runtime) return false;
  return compare(pinned.front().base(), runtime->base()) != 0;
}

bool backend_libraries_stage(const PythonAnswers& answers, bool gpu, WorkerFindings& findings,
                             FindingsSink& sink) {
  const nlohmann::json* answer = answers.find("backend_libraries");
  if (answer == nullptr) return true;  // a probe of the stages before these facts
  const BackendLibraries found = backend_libraries_of(*answer);
  ojson facts = ojson::object();
  for (const auto* library : {&found.dnn, &found.ccl}) {
    if (*library) facts[(*library)->name] = library_json(**library);
  }
  if (!facts.empty()) sink.facts("pytorch", facts);
  if (found.ccl && recognise_backend_library(*found.ccl)) {
    findings.library_warnings.push_back(*found.ccl);
  }
  const std::optional<CauseId> refused = found.dnn ? recognise_backend_library(*found.dnn)
                                                  : std::nullopt;
  if (!refused) return true;
  if (!gpu) {
    // The CPU verdict stands: what a GPU run would meet is said.
    findings.library_warnings.push_back(*found.dnn);
    return true;
  }
  findings.library_failure = found.dnn;
  const CauseInfo& row = cause_info(*refused);
  const std::string& words = found.dnn->words;
  sink.outcome(row.outcome, Stage::Backend,
               ErrorInfo{std::string(row.type),
                         words.empty() ? found.dnn->name + " " + found.dnn->runtime : words});
  return false;
}

}  // namespace kd
