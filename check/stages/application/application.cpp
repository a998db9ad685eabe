#include "stages/application/application.hpp"

#include <set>

#include "causes/causes.hpp"
#include "facts/json_fields.hpp"
#include "facts/precision.hpp"
#include "stages/application/precision.hpp"
#include "facts/version_spec.hpp"

namespace kd {
namespace {

// The torch the environment imported: the python probe's library_info answer, and the C++ ABI
// its listing gave.
TorchFacts torch_of(const PythonAnswers& answers) {
  TorchFacts t;
  if (const nlohmann::json* lib = answers.find("library_info")) {
    t.version = lib->value("version", nlohmann::json()).is_string() ? (*lib)["version"].get<std::string>() : "";
    t.cuda = lib->value("cuda_version", nlohmann::json()).is_string()
                 ? (*lib)["cuda_version"].get<std::string>()
                 : "";
  }
  if (const nlohmann::json* listed = answers.find("extensions_listed")) {
    if (auto abi = listed->find("torch_cxx11_abi"); abi != listed->end() && abi->is_boolean()) {
      t.cxx11_abi = abi->get<bool>();
    }
  }
  return t;
}

ojson text_or_null(const std::string& text) { return text.empty() ? ojson(nullptr) : ojson(text); }

// One entry of application.extensions. `asked`: the module was asked with --import, and
// `imported` is what became of it (null where it was not reached); a distribution only listed
// has both null.
ojson entry_of(const ExtensionImport& e, const nlohmann::json* answer) {
  const std::optional<double> seconds =
      answer != nullptr ? json_field::duration(*answer, "seconds") : std::nullopt;
  return {{"module", text_or_null(e.module)},
          {"distribution", text_or_null(e.distribution)},
          {"version", text_or_null(e.version)},
          {"requires_torch", e.requires_torch ? ojson(*e.requires_torch) : ojson(nullptr)},
          {"torch_matches", e.torch_matches ? ojson(*e.torch_matches) : ojson(nullptr)},
          {"imported", answer != nullptr ? ojson(!e.failed) : ojson(nullptr)},
          {"seconds", seconds ? ojson(*seconds) : ojson(nullptr)}};
}

// The python probe's answers to `call`, in order.
std::vector<const nlohmann::json*> answers_to(const PythonAnswers& answers, const char* call) {
  std::vector<const nlohmann::json*> found;
  for (const nlohmann::json& a : answers.answers) {
    if (a.value("call", std::string()) == call) found.push_back(&a);
  }
  return found;
}

// The probe's own defect: an answer missing where the stage needs one. Never a pass.
bool probe_gave_no(const char* what, FindingsSink& sink) {
  sink.outcome(Outcome::InternalError, Stage::Application,
               ErrorInfo{failure_type(Failure::WorkerException),
                         std::string("the python probe gave no answer for ") + what});
  return false;
}

// One entry of application.weights: null where the file was not reached.
ojson weights_entry_of(const WeightsFile& w, bool reached) {
  ojson dtypes = ojson::array();
  for (const std::string& d : w.dtypes) dtypes.push_back(d);
  const auto or_null = [](const std::optional<long long>& v) { return v ? ojson(*v) : ojson(); };
  return {{"file", w.file},
          {"format", text_or_null(w.format)},
          {"tensors", or_null(w.tensors)},
          {"bytes", or_null(w.bytes)},
          {"dtypes", dtypes},
          {"verified", reached ? ojson(w.verified) : ojson(nullptr)},
          {"seconds", w.seconds ? ojson(*w.seconds) : ojson(nullptr)}};
}

// The weights files asked, walked over their answers once the modules all imported: their
// entries, and the first that could not be used. `reached`: the stage got to them.
ojson weights_of(const PythonAnswers& answers, const std::vector<std::string>& asked,
                 bool reached, std::optional<WeightsFile>& failure, std::string& unanswered) {
  ojson entries = ojson::array();
  const std::vector<const nlohmann::json*> opened = answers_to(answers, "weights");
  for (size_t i = 0; i < asked.size(); ++i) {
    const bool answered = reached && !failure && i < opened.size() &&
                          opened[i]->value("file", std::string()) == asked[i];
    if (!answered) {
      WeightsFile w;
      w.file = asked[i];
      // Never answered (its opening did not return: not verified), or not reached.
      const bool hung = reached && !failure && unanswered.empty();
      if (hung) unanswered = asked[i];
      entries.push_back(weights_entry_of(w, hung));
      continue;
    }
    WeightsFile w = weights_file_of(*opened[i]);
    entries.push_back(weights_entry_of(w, true));
    if (!w.verified) failure = w;
  }
  return entries;
}

// error.message of weights that do not fit: the sizes and what binds.
std::string memory_words(const WeightsMemory& m) {
  return "the weights need " + std::to_string(m.weights_bytes) + " bytes, and " +
         (m.available_bytes ? std::to_string(*m.available_bytes) : std::string("no")) +
         " bytes are left (" + (m.limited_by.empty() ? std::string("unmeasured") : m.limited_by) +
         ")";
}

// The words of error.message for a weights file that could not be used: the failure's own
// words where there are some, else what the check found.
std::string weights_words(const WeightsFile& w) {
  if (!w.words.empty()) return (w.exception.empty() ? "" : w.exception + ": ") + w.words;
  if (!w.damage.empty()) return w.file + ": " + w.damage;
  return w.file + ": " + format_words(w.format);
}

}  // namespace

namespace {

// The modules asked, walked over their answers, then the other distributions listed: the
// entries of application.extensions, the warnings into `findings`, the first module that failed
// and the first the probe gave no answer for (its import never returned).
ojson extensions_of(const PythonAnswers& answers, const std::vector<std::string>& asked,
                    WorkerFindings& findings, std::optional<ExtensionImport>& failure,
                    std::string& unanswered) {
  const TorchFacts torch = torch_of(answers);
  ojson extensions = ojson::array();
  std::set<std::string> covered;
  const std::vector<const nlohmann::json*> imported = answers_to(answers, "extension");
  for (size_t i = 0; i < asked.size(); ++i) {
    if (i >= imported.size() || imported[i]->value("module", std::string()) != asked[i]) {
      // Not reached (the worker stops at the first module that fails), or never answered (its
      // import did not return: imported false, no time).
      ExtensionImport e;
      e.module = asked[i];
      ojson entry = entry_of(e, nullptr);
      if (!failure && unanswered.empty()) {
        unanswered = asked[i];
        entry["imported"] = false;
      }
      extensions.push_back(std::move(entry));
      continue;
    }
    ExtensionImport e = extension_import_of(*imported[i], torch);
    extensions.push_back(entry_of(e, imported[i]));
    if (!e.distribution.empty()) covered.insert(folded_name(e.distribution));
    if (e.failed) {
      failure = e;
    } else if (e.torch_matches == std::optional<bool>(false)) {
      findings.extension_warnings.push_back(e);
    }
  }
  const nlohmann::json listed = answers.find("extensions_listed")->value("distributions",
                                                                          nlohmann::json::array());
  for (const nlohmann::json& distribution : listed.is_array() ? listed : nlohmann::json::array()) {
    ExtensionImport e = extension_import_of(distribution, torch);
    if (e.distribution.empty() || !covered.insert(folded_name(e.distribution)).second) continue;
    extensions.push_back(entry_of(e, nullptr));
    if (e.torch_matches == std::optional<bool>(false)) findings.extension_warnings.push_back(e);
  }
  return extensions;
}

// error.message of a module that failed: the exception and its words, a missing function
// demangled.
std::string extension_words(const ExtensionImport& failure) {
  std::string words = failure.words;
  const std::string& symbol = failure.undefined_symbol;
  if (!symbol.empty() && words.find(symbol) != std::string::npos) {
    words.replace(words.find(symbol), symbol.size(), demangled(symbol));
  }
  return (failure.exception.empty() ? "" : failure.exception + ": ") + words;
}

// application.memory: null without weights asked or where not measured.
ojson memory_entry_of(const std::optional<WeightsMemory>& measured) {
  if (!measured) return nullptr;
  const WeightsMemory& m = *measured;
  return {{"weights_bytes", m.weights_bytes},
          {"available_bytes", m.available_bytes ? ojson(*m.available_bytes) : ojson(nullptr)},
          {"limited_by", text_or_null(m.limited_by)},
          {"fits", m.available_bytes ? ojson(m.fits) : ojson(nullptr)}};
}

}  // namespace

namespace {

// What the application stage found wrong, each the first of its kind: the module asked that
// failed, or the one or the file the probe gave no answer for; weights that do not fit; the
// weights file that could not be used; the precision the computation failed in (`wrong`: its
// numbers' mismatch, where it gave numbers).
struct Found {
  std::optional<ExtensionImport> extension;
  std::string unanswered, unopened;
  std::optional<WeightsMemory> memory;
  std::optional<WeightsFile> weights;
  std::optional<PrecisionRun> precision;
  std::string wrong;
};

// The stage's facts (the report's application block) through `sink`, and what was wrong.
Found walk_application(const PythonAnswers& answers, const ApplicationAsked& asked,
                       WorkerFindings& findings, FindingsSink& sink) {
  Found found;
  const ojson extensions =
      extensions_of(answers, asked.imports, findings, found.extension, found.unanswered);
  // Weights that do not fit are not opened.
  std::optional<WeightsMemory> measured;
  if (const nlohmann::json* answer = answers.find("weights_memory")) {
    measured = weights_memory_of(*answer);
  }
  if (measured && !measured->fits) found.memory = measured;
  const bool reached = !found.extension && found.unanswered.empty() && !found.memory;
  const ojson weights =
      weights_of(answers, asked.weights, reached, found.weights, found.unopened);
  std::vector<PrecisionRun> runs;
  for (const nlohmann::json* answer : answers_to(answers, "precision")) {
    runs.push_back(precision_run_of(*answer));
  }
  const ojson precisions = precision_entries(runs, found.precision, found.wrong);
  sink.facts("application", {{"extensions", extensions},
                             {"weights", weights},
                             {"precisions", precisions},
                             {"memory", memory_entry_of(measured)}});
  return found;
}

// The outcome of the cause `id`, its error.message `words`.
bool finish_with(CauseId id, const std::string& words, FindingsSink& sink) {
  const CauseInfo& row = cause_info(id);
  sink.outcome(row.outcome, Stage::Application, ErrorInfo{std::string(row.type), words});
  return false;
}

}  // namespace

bool application_stage(const PythonAnswers& answers, const ApplicationAsked& asked,
                       WorkerFindings& findings, FindingsSink& sink) {
  sink.stage(Stage::Application);
  if (answers.find("extensions_listed") == nullptr) {
    return probe_gave_no("the distributions that require torch", sink);
  }
  Found found = walk_application(answers, asked, findings, sink);
  if (!found.unanswered.empty()) return probe_gave_no(("the module " + found.unanswered).c_str(), sink);
  if (!found.unopened.empty()) return probe_gave_no(("the weights file " + found.unopened).c_str(), sink);
  if (found.extension) {
    findings.extension_failure = found.extension;
    return finish_with(recognise_extension(*found.extension), extension_words(*found.extension),
                       sink);
  }
  if (found.memory) {
    findings.weights_memory = found.memory;
    return finish_with(recognise_weights_memory(*found.memory), memory_words(*found.memory), sink);
  }
  if (found.weights) {
    findings.weights_failure = found.weights;
    return finish_with(recognise_weights(*found.weights), weights_words(*found.weights), sink);
  }
  if (!found.precision) return true;
  findings.precision_failure = found.precision;
  return precision_failed(*found.precision, found.wrong, sink);
}

std::string application_step(const PythonAnswers& answers) {
  std::string step;
  for (const nlohmann::json& a : answers.answers) {
    const std::string call = a.value("call", std::string());
    if (call == "importing") step = "importing " + a.value("module", std::string());
    if (call == "opening") step = "opening " + a.value("file", std::string());
    if (call == "computing_in") step = "computing in " + a.value("dtype", std::string());
    if (call == "extension" || call == "weights" || call == "precision") step.clear();
  }
  return step;
}

}  // namespace kd
