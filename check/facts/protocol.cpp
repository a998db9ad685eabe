#include "facts/protocol.hpp"

#include <cmath>

namespace kd {
namespace {

using nlohmann::json;

bool is_nonneg_number(const json& v) { return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0; }
bool is_count(const json& v) { return v.is_number_integer() && v.get<long long>() >= 0; }

// One allowed key: its type check.
struct Field {
  const char* name;
  bool (*valid)(const json&);
};

bool is_string(const json& v) { return v.is_string(); }
bool is_bool(const json& v) { return v.is_boolean(); }
bool is_number(const json& v) { return v.is_number(); }
bool is_backend(const json& v) {
  return v.is_string() && (v == "cuda" || v == "rocm" || v == "none");
}
bool is_gradient_source(const json& v) {
  return v.is_string() && (v == "autograd" || v == "explicit");
}
bool is_device(const json& v) {
  if (!v.is_string()) return false;
  const auto& s = v.get_ref<const std::string&>();
  if (s == "cpu") return true;
  if (s.rfind("cuda:", 0) != 0 || s.size() == 5 || s.size() > 24) return false;
  for (size_t i = 5; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// A library of the backend (backend_libraries.hpp, library_json): an object of strings, a
// bool for whether torch accepts it, nulls.
bool is_library(const json& v) {
  if (!v.is_object()) return false;
  for (const auto& [key, value] : v.items()) {
    const bool ok = value.is_null() || value.is_string() || (key == "accepted" && value.is_boolean());
    if (!ok) return false;
  }
  return true;
}

constexpr Field kPytorchFields[] = {
    {"version", is_string},          {"cuda", is_string},
    {"hip", is_string},              {"backend", is_backend},
    {"gpu_available", is_bool},      {"visible_device_count", is_count},
    {"cudnn", is_library},           {"nccl", is_library},
    {"miopen", is_library},          {"rccl", is_library},
};
// execution.compile: {backend, seconds, verified} (compile_stage.hpp).
bool is_compile(const json& v) {
  return v.is_object() && v.size() == 3 && v.contains("backend") && v["backend"].is_string() &&
         v.contains("seconds") && (v["seconds"].is_null() || v["seconds"].is_number()) &&
         v.contains("verified") && v["verified"].is_boolean();
}

constexpr Field kExecutionFields[] = {
    {"device", is_device},       {"device_name", is_string},    {"capability", is_string},
    {"product_verified", is_bool}, {"gradient_verified", is_bool},
    {"loss", is_number},         {"synchronized", is_bool},  {"gradient_source", is_gradient_source},
    {"compile", is_compile},
};
constexpr Field kTimingFields[] = {
    {"load", is_nonneg_number}, {"device_init", is_nonneg_number}, {"compute", is_nonneg_number}};
constexpr Field kMemoryFields[] = {{"allocated_bytes", is_count}, {"reserved_bytes", is_count}};

template <size_t N>
bool merge_fields(ojson& target, const json& source, const Field (&fields)[N],
                  std::string& problem) {
  if (!source.is_object()) {
    problem = "a facts section is not an object";
    return false;
  }
  for (const auto& [key, value] : source.items()) {
    bool known = false;
    for (const auto& f : fields) {
      if (key != f.name) continue;
      known = true;
      if (!value.is_null() && !f.valid(value)) {
        problem = "fact '" + key + "' has the wrong type";
        return false;
      }
      target[f.name] = value;
    }
    if (!known) {
      problem = "unknown fact '" + key + "'";
      return false;
    }
  }
  return true;
}

void merge_execution(WorkerFindings& f, const json& source) {
  if (!source.is_object()) {
    f.protocol_problem = "execution facts are not an object";
    return;
  }
  for (const auto& [key, value] : source.items()) {
    if (key == "timings_ms") {
      merge_fields(f.execution["timings_ms"], value, kTimingFields, f.protocol_problem);
    } else if (key == "memory") {
      if (value.is_null()) {
        f.execution["memory"] = nullptr;
      } else {
        ojson memory = {{"allocated_bytes", nullptr}, {"reserved_bytes", nullptr}};
        if (merge_fields(memory, value, kMemoryFields, f.protocol_problem)) {
          f.execution["memory"] = memory;
        }
      }
    } else {
      merge_fields(f.execution, json{{key, value}}, kExecutionFields, f.protocol_problem);
    }
    if (!f.protocol_problem.empty()) return;
  }
}

bool is_nullable_string(const json& v) { return v.is_null() || v.is_string(); }
bool is_nullable_bool(const json& v) { return v.is_null() || v.is_boolean(); }
bool is_nullable_seconds(const json& v) { return v.is_null() || is_nonneg_number(v); }

// application.extensions' entries: every key, of its type (null allowed), and no other.
constexpr Field kExtensionFields[] = {
    {"module", is_nullable_string},        {"distribution", is_nullable_string},
    {"version", is_nullable_string},       {"requires_torch", is_nullable_string},
    {"torch_matches", is_nullable_bool},   {"imported", is_nullable_bool},
    {"seconds", is_nullable_seconds}};

bool is_count_or_null(const json& v) { return v.is_null() || is_count(v); }
bool is_strings(const json& v) {
  if (!v.is_array()) return false;
  for (const json& item : v) {
    if (!item.is_string()) return false;
  }
  return true;
}

// application.weights' entries.
constexpr Field kWeightsFields[] = {
    {"file", is_string},        {"format", is_nullable_string}, {"tensors", is_count_or_null},
    {"bytes", is_count_or_null}, {"dtypes", is_strings},          {"verified", is_nullable_bool},
    {"seconds", is_nullable_seconds}};

// A list of entries, each with every key of `fields`, of its type, and no other.
template <size_t N>
bool merge_entries(const json& source, const Field (&fields)[N], ojson& out, std::string& problem) {
  for (const json& entry : source) {
    ojson kept;
    for (const Field& field : fields) kept[field.name] = nullptr;
    if (!entry.is_object() || entry.size() != N || !merge_fields(kept, entry, fields, problem)) {
      if (problem.empty()) problem = "an application entry's facts are incomplete";
      return false;
    }
    out.push_back(std::move(kept));
  }
  return true;
}

// application.precisions' entries.
constexpr Field kPrecisionFields[] = {{"dtype", is_string},
                                      {"device", is_string},
                                      {"verified", is_nullable_bool},
                                      {"seconds", is_nullable_seconds}};

// application.memory: null, or each of its keys of its type.
constexpr Field kApplicationMemoryFields[] = {{"weights_bytes", is_count},
                                              {"available_bytes", is_count_or_null},
                                              {"limited_by", is_nullable_string},
                                              {"fits", is_nullable_bool}};

void merge_application(WorkerFindings& f, const json& source) {
  const auto is_list = [&source](const char* key) {
    return source.contains(key) && source[key].is_array();
  };
  if (!source.is_object() || source.size() != 4 || !is_list("extensions") || !is_list("weights") ||
      !is_list("precisions") || !source.contains("memory")) {
    f.protocol_problem = "application facts are not {\"extensions\": [...], \"weights\": [...], "
                         "\"precisions\": [...], \"memory\": ...}";
    return;
  }
  ojson extensions = ojson::array(), weights = ojson::array(), precisions = ojson::array();
  if (!merge_entries(source["extensions"], kExtensionFields, extensions, f.protocol_problem) ||
      !merge_entries(source["weights"], kWeightsFields, weights, f.protocol_problem) ||
      !merge_entries(source["precisions"], kPrecisionFields, precisions, f.protocol_problem)) {
    return;
  }
  ojson memory = nullptr;
  if (!source["memory"].is_null()) {
    ojson entries = ojson::array();
    if (!merge_entries(json::array({source["memory"]}), kApplicationMemoryFields, entries,
                       f.protocol_problem)) {
      return;
    }
    memory = entries[0];
  }
  f.application = {{"extensions", std::move(extensions)},
                   {"weights", std::move(weights)},
                   {"precisions", std::move(precisions)},
                   {"memory", std::move(memory)}};
}

// memory_by_stage: each stage's entry null, or {rss_bytes, allocated_bytes, reserved_bytes},
// each a count or null.
constexpr Field kStageMemoryFields[] = {{"rss_bytes", is_count_or_null},
                                        {"allocated_bytes", is_count_or_null},
                                        {"reserved_bytes", is_count_or_null}};

void merge_memory_by_stage(WorkerFindings& f, const json& source) {
  if (!source.is_object()) {
    f.protocol_problem = "memory_by_stage facts are not an object";
    return;
  }
  for (const auto& [stage, value] : source.items()) {
    if (!f.memory_by_stage.contains(stage)) {
      f.protocol_problem = "memory_by_stage names no stage '" + stage + "'";
      return;
    }
    ojson entries = ojson::array();
    if (!merge_entries(json::array({value}), kStageMemoryFields, entries, f.protocol_problem)) {
      return;
    }
    f.memory_by_stage[stage] = entries[0];
  }
}

}  // namespace

ojson memory_by_stage_skeleton() {
  return {{"import", nullptr}, {"compute", nullptr}, {"application", nullptr}};
}

ojson pytorch_skeleton() {
  return {{"version", nullptr},       {"cuda", nullptr},          {"hip", nullptr},
          {"backend", nullptr},       {"gpu_available", nullptr}, {"visible_device_count", nullptr},
          {"cudnn", nullptr},         {"nccl", nullptr},          {"miopen", nullptr},
          {"rccl", nullptr}};
}

ojson execution_skeleton() {
  return {{"device", nullptr},
          {"device_name", nullptr},
          {"capability", nullptr},
          {"product_verified", nullptr},
          {"gradient_verified", nullptr},
          {"loss", nullptr},
          {"synchronized", nullptr},
          {"gradient_source", nullptr},
          {"timings_ms", {{"load", nullptr}, {"device_init", nullptr}, {"compute", nullptr}}},
          {"memory", nullptr},
          {"compile", nullptr}};
}

namespace {

// Keeps the first problem of the worker's report: the one to explain.
void note(WorkerFindings& f, const std::string& problem) {
  if (f.protocol_problem.empty()) f.protocol_problem = problem;
}

// Nothing may follow the outcome: true, and noted, where something does.
bool after_outcome(WorkerFindings& f) {
  if (!f.outcome) return false;
  note(f, "an event came after the outcome");
  return true;
}

void fold_stage(WorkerFindings& f, std::optional<Stage> stage) {
  if (!stage || *stage < f.stage || *stage > kLastWorkerStage) {
    note(f, "a stage event names no worker stage in order");
    return;
  }
  f.stage = *stage;
}

void fold_facts(WorkerFindings& f, std::string_view section, const json& value) {
  std::string problem;
  if (section == "pytorch") {
    merge_fields(f.pytorch, value, kPytorchFields, problem);
    if (!problem.empty()) note(f, problem);
  } else if (section == "execution") {
    merge_execution(f, value);
  } else if (section == "application") {
    merge_application(f, value);
  } else if (section == "memory_by_stage") {
    merge_memory_by_stage(f, value);
  } else {
    note(f, "unknown facts section '" + std::string(section) + "'");
  }
}

// Whether a worker may give this outcome at this stage; noted where it may not.
bool outcome_allowed(WorkerFindings& f, std::optional<Outcome> outcome, std::optional<Stage> stage) {
  // The parent alone decides these three.
  if (!outcome || *outcome == Outcome::Timeout || *outcome == Outcome::WorkerFailed ||
      *outcome == Outcome::OutputWriteFailed) {
    note(f, "the outcome event names no outcome a worker may give");
    return false;
  }
  if ((!stage || *stage > Stage::Application) && !is_pass(*outcome)) {
    note(f, "the outcome event names no stage");
    return false;
  }
  return true;
}

void keep_outcome(WorkerFindings& f, Outcome outcome, std::optional<Stage> stage,
                  std::optional<ErrorInfo> error) {
  f.outcome = outcome;
  f.outcome_stage = stage;
  f.error = std::move(error);
}

// A line's stage, where it names one.
std::optional<Stage> stage_of(const json& event) {
  return event.contains("stage") && event["stage"].is_string()
             ? stage_from_name(event["stage"].get<std::string>())
             : std::nullopt;
}

// A line's error, read into `error`; a malformed one is noted, and false.
bool error_of(WorkerFindings& f, const json& event, std::optional<ErrorInfo>& error) {
  if (!event.contains("error") || event["error"].is_null()) return true;
  const json& e = event["error"];
  if (!e.is_object()) {
    note(f, "the outcome's error is malformed");
    return false;
  }
  // json::value() throws when a key holds another type: refused like any malformed line.
  for (const char* key : {"type", "message"}) {
    if (e.contains(key) && !e.at(key).is_string()) {
      note(f, "the outcome's error is malformed");
      return false;
    }
  }
  error = ErrorInfo{e.value("type", std::string("error")), e.value("message", std::string()),
                    std::nullopt};
  if (e.contains("evidence") && !e["evidence"].is_null()) {
    std::string problem;
    error->evidence = evidence_from_json(e["evidence"], problem);
    if (!error->evidence) {
      note(f, problem);
      return false;
    }
  }
  return true;
}

void apply_outcome(WorkerFindings& f, const json& event) {
  const std::optional<Outcome> outcome = event.contains("code") && event["code"].is_string()
                                             ? outcome_from_code(event["code"].get<std::string>())
                                             : std::nullopt;
  const std::optional<Stage> stage = stage_of(event);
  if (!outcome_allowed(f, outcome, stage)) return;
  std::optional<ErrorInfo> error;
  if (!error_of(f, event, error)) return;
  keep_outcome(f, *outcome, stage, std::move(error));
}

}  // namespace

void apply_event(WorkerFindings& f, std::string_view line) {
  json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!event.is_object() || !event.contains("event") || !event["event"].is_string()) {
    note(f, "an event line is not a JSON event");
    return;
  }
  if (after_outcome(f)) return;
  const std::string kind = event["event"];
  if (kind == "stage") {
    fold_stage(f, stage_of(event));
  } else if (kind == "facts") {
    for (const auto& [key, value] : event.items()) {
      if (key != "event") fold_facts(f, key, value);
    }
  } else if (kind == "outcome") {
    apply_outcome(f, event);
  } else {
    note(f, "unknown event '" + kind + "'");
  }
}

void FindingsFold::stage(Stage stage) {
  if (after_outcome(findings_)) return;
  fold_stage(findings_, stage);
}

void FindingsFold::facts(std::string_view section, const ojson& values) {
  if (after_outcome(findings_)) return;
  fold_facts(findings_, section, json(values));
}

void FindingsFold::outcome(Outcome outcome, Stage stage, const std::optional<ErrorInfo>& error) {
  if (after_outcome(findings_)) return;
  if (outcome_allowed(findings_, outcome, stage)) keep_outcome(findings_, outcome, stage, error);
}

std::string stage_event(Stage stage) {
  return json{{"event", "stage"}, {"stage", stage_name(stage)}}.dump();
}

std::string facts_event(std::string_view section, const ojson& values) {
  ojson event{{"event", "facts"}};
  event[std::string(section)] = values;
  return event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string outcome_event(Outcome outcome, Stage stage, const std::optional<ErrorInfo>& error) {
  ojson event{{"event", "outcome"}, {"code", code_of(outcome)}, {"stage", stage_name(stage)}};
  if (error) {
    event["error"] = {{"type", error->type},
                      {"message", error->message},
                      {"evidence", error->evidence ? evidence_json(*error->evidence) : ojson(nullptr)}};
  } else {
    event["error"] = nullptr;
  }
  // Invalid UTF-8 from a library message must not abort the worker.
  return event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace kd
