#include "application.hpp"

#include <set>

#include "causes.hpp"

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
  ojson seconds = nullptr;
  if (answer != nullptr) {
    auto s = answer->find("seconds");
    if (s != answer->end() && s->is_number() && s->get<double>() >= 0) seconds = s->get<double>();
  }
  return {{"module", text_or_null(e.module)},
          {"distribution", text_or_null(e.distribution)},
          {"version", text_or_null(e.version)},
          {"requires_torch", e.requires_torch ? ojson(*e.requires_torch) : ojson(nullptr)},
          {"torch_matches", e.torch_matches ? ojson(*e.torch_matches) : ojson(nullptr)},
          {"imported", answer != nullptr ? ojson(!e.failed) : ojson(nullptr)},
          {"seconds", seconds}};
}

std::string folded(std::string name) {
  for (char& c : name) {
    c = (c == '_' || c == '.') ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
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
bool probe_gave_no(const char* what, const EventSink& sink) {
  sink(outcome_event(Outcome::InternalError, Stage::Application,
                     ErrorInfo{failure_type(Failure::WorkerException),
                               std::string("the python probe gave no answer for ") + what}));
  return false;
}

}  // namespace

bool application_stage(const PythonAnswers& answers, const std::vector<std::string>& asked,
                       WorkerFindings& findings, const EventSink& sink) {
  sink(stage_event(Stage::Application));
  const nlohmann::json* listed = answers.find("extensions_listed");
  if (listed == nullptr) return probe_gave_no("the distributions that require torch", sink);
  const TorchFacts torch = torch_of(answers);
  ojson extensions = ojson::array();
  std::set<std::string> covered;
  std::optional<ExtensionImport> failure;
  std::string unanswered;  // the first module asked the probe gave no answer for
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
    if (!e.distribution.empty()) covered.insert(folded(e.distribution));
    if (e.failed) {
      failure = e;
    } else if (e.torch_matches == std::optional<bool>(false)) {
      findings.extension_warnings.push_back(e);
    }
  }
  if (auto d = listed->find("distributions"); d != listed->end() && d->is_array()) {
    for (const nlohmann::json& distribution : *d) {
      ExtensionImport e = extension_import_of(distribution, torch);
      if (e.distribution.empty() || !covered.insert(folded(e.distribution)).second) continue;
      extensions.push_back(entry_of(e, nullptr));
      if (e.torch_matches == std::optional<bool>(false)) findings.extension_warnings.push_back(e);
    }
  }
  sink(facts_event("application", {{"extensions", extensions}}));
  if (!unanswered.empty()) return probe_gave_no(("the module " + unanswered).c_str(), sink);
  if (!failure) return true;
  findings.extension_failure = failure;
  const CauseInfo& row = cause_info(recognise_extension(*failure));
  std::string words = failure->words;
  const std::string& symbol = failure->undefined_symbol;
  if (!symbol.empty() && words.find(symbol) != std::string::npos) {
    words.replace(words.find(symbol), symbol.size(), demangled(symbol));
  }
  sink(outcome_event(row.outcome, Stage::Application,
                     ErrorInfo{std::string(row.type),
                               (failure->exception.empty() ? "" : failure->exception + ": ") + words}));
  return false;
}

std::string module_being_imported(const PythonAnswers& answers) {
  std::string module;
  for (const nlohmann::json& a : answers.answers) {
    const std::string call = a.value("call", std::string());
    if (call == "importing") module = a.value("module", std::string());
    if (call == "extension") module.clear();
  }
  return module;
}

}  // namespace kd
