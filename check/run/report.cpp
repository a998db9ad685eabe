#include "run/report.hpp"

#include "stages/application/application.hpp"
#include "run/python_probe.hpp"

#include <sys/utsname.h>

#include <cmath>

#include "run/version.hpp"

namespace kd {
namespace {

ojson null_or(const std::optional<std::string>& s) {
  return s ? ojson(*s) : ojson(nullptr);
}

// Versions come from the library and the driver: keep them only as tokens.
void clean_tokens(ojson& object, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    auto& v = object[key];
    if (v.is_string()) {
      std::string t = Sanitizer::token(v.get<std::string>());
      v = t.empty() ? ojson(nullptr) : ojson(t);
    }
  }
}

ojson timeout_value(double seconds) {
  if (std::floor(seconds) == seconds) return static_cast<long long>(seconds);
  return seconds;
}

std::string compiler_name() {
#if defined(__clang__)
  return "Clang " + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) +
         "." + std::to_string(__clang_patchlevel__);
#elif defined(__GNUC__)
  return "GCC " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
         std::to_string(__GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

ojson null_or_text(const std::string& text) { return text.empty() ? ojson(nullptr) : ojson(text); }

ojson runtime_section(const ReportInput& in) {
  utsname u{};
  ojson os_family = nullptr, arch = nullptr;
  if (uname(&u) == 0) {
    os_family = u.sysname;  // "Linux"; the release and node name stay out
    arch = u.machine;
  }
  return {{"os_family", os_family},
          {"arch", arch},
          {"check_build",
           {{"compiler", compiler_name()},
            {"cxx_standard", "C++" + std::to_string(__cplusplus / 100 % 100)},
            {"build_type", KERNODECK_BUILD_TYPE}}},
          {"torch_source", null_or_text(in.torch_source)},
          {"python_environment", null_or_text(!in.findings.python_environment.empty()
                                                  ? in.findings.python_environment
                                                  : in.python_environment)},
          {"python_version", null_or_text(Sanitizer::token(in.findings.python_version))}};
}

}  // namespace

std::string compose_message(const ReportInput& in) {
  const OutcomeInfo& row = info(in.outcome);
  std::string_view next_action = row.next_action;
  std::string what;
  switch (in.outcome) {
    case Outcome::GpuCheckPassed: {
      std::string device = in.findings.execution["device"].is_string()
                               ? in.findings.execution["device"].get<std::string>()
                               : "the GPU";
      what = "Product and gradient were verified on " + device + ".";
      break;
    }
    case Outcome::Timeout:
      what = "The check was stopped by its " + seconds_text(in.options.timeout_s) +
             " s time limit during the " + std::string(stage_name(in.stage)) + " stage" +
             (in.findings.application_step.empty() || in.stage != Stage::Application
                  ? std::string()
                  : ", " + in.findings.application_step) +
             ".";
      break;
    case Outcome::WorkerFailed:
      what = "The worker process died or left no usable report during the " +
             std::string(stage_name(in.stage)) + " stage.";
      break;
    default:
      what = std::string(row.meaning);
      break;
  }
  std::string message = what + " " + std::string(next_action);
  if (in.cause) message = in.cause->what + " " + in.cause->next_action;
  if (in.probe_override) {
    message = "[fault-injection probe, not a real check] " + message;
  }
  return message;
}

namespace {

// `host`: null without --host-check; else what nvidia-smi said, its driver
// version kept only as a version-like token.
ojson host_section(const ReportInput& in) {
  if (!in.options.host_check) return nullptr;
  HostCheckResult h = in.host.value_or(HostCheckResult{"failed", {}, {}});
  std::optional<std::string> driver;
  if (h.driver_version) {
    std::string t = Sanitizer::token(*h.driver_version);
    if (!t.empty()) driver = t;
  }
  return {{"tool", "nvidia-smi"},
          {"status", h.status},
          {"driver_version", null_or(driver)},
          {"memory_total_mib", h.memory_total_mib ? ojson(*h.memory_total_mib) : ojson(nullptr)}};
}

// `error`: null, or its type and message as safe, short text, and what was
// seen after the failure (evidence.hpp: fixed words and tokens only).
ojson error_section(const ReportInput& in, const Sanitizer& sanitizer) {
  if (!in.error) return nullptr;
  std::string type = sanitizer.message(in.error->type);
  if (type.size() > 64) type.resize(64);
  return {{"type", type},
          {"message", sanitizer.message(in.error->message)},
          {"evidence", in.error->evidence ? evidence_json(*in.error->evidence) : ojson(nullptr)}};
}

// `application`: null where the stage was not reached; else the extensions, each string a
// token (names and versions) or a specifier, as any outside text.
ojson application_section(const ReportInput& in, const Sanitizer& sanitizer) {
  const ojson& found = in.findings.application;
  if (!found.is_object() || !found.contains("extensions") || in.probe_override) return nullptr;
  ojson extensions = ojson::array();
  for (ojson entry : found["extensions"]) {
    for (const char* key : {"module", "distribution", "version"}) {
      if (!entry[key].is_string()) continue;
      const std::string clean = sanitizer.message(Sanitizer::token(entry[key].get<std::string>()));
      entry[key] = clean.empty() ? ojson(nullptr) : ojson(clean);
    }
    if (entry["requires_torch"].is_string()) {
      const std::string spec = entry["requires_torch"].get<std::string>();
      const std::string clean = Sanitizer::specifier(spec);
      // A requirement without a version ("") stays as written; one that is no specifier, null.
      entry["requires_torch"] = clean.empty() && !spec.empty() ? ojson(nullptr) : ojson(clean);
    }
    extensions.push_back(std::move(entry));
  }
  ojson weights = ojson::array();
  for (ojson entry : found.value("weights", ojson::array())) {
    // A file by its base name only, as any outside text; its format and dtypes, tokens.
    entry["file"] = sanitizer.message(entry["file"].is_string() ? entry["file"].get<std::string>() : "");
    if (entry["format"].is_string()) {
      const std::string format = Sanitizer::token(entry["format"].get<std::string>());
      entry["format"] = format.empty() ? ojson(nullptr) : ojson(format);
    }
    ojson dtypes = ojson::array();
    for (const ojson& d : entry["dtypes"]) {
      if (d.is_string() && !Sanitizer::token(d.get<std::string>()).empty()) dtypes.push_back(d);
    }
    entry["dtypes"] = dtypes;
    weights.push_back(std::move(entry));
  }
  ojson precisions = ojson::array();
  for (ojson entry : found.value("precisions", ojson::array())) {
    // A dtype and a device by their names, as tokens.
    for (const char* key : {"dtype", "device"}) {
      const std::string clean =
          Sanitizer::token(entry[key].is_string() ? entry[key].get<std::string>() : "");
      entry[key] = clean.empty() ? ojson(nullptr) : ojson(clean);
    }
    precisions.push_back(std::move(entry));
  }
  ojson memory = found.value("memory", ojson());
  if (memory.is_object() && memory["limited_by"].is_string() &&
      Sanitizer::token(memory["limited_by"].get<std::string>()).empty()) {
    memory["limited_by"] = nullptr;
  }
  return {{"extensions", std::move(extensions)},
          {"weights", std::move(weights)},
          {"precisions", std::move(precisions)},
          {"memory", std::move(memory)}};
}

// `requested`: what was asked, as given; the weights files by their base names, never a path.
ojson requested_section(const ReportInput& in, const Sanitizer& sanitizer) {
  ojson imports = ojson::array();
  for (const std::string& module : in.options.imports) imports.push_back(module);
  ojson weights = ojson::array();
  for (const WeightsAsked& file : in.options.weights) weights.push_back(sanitizer.message(file.name));
  return {{"device", device_name(in.options.device)},
          {"device_index", in.options.device_index},
          {"timeout_s", timeout_value(in.options.timeout_s)},
          {"host_check", in.options.host_check},
          {"imports", imports},
          {"weights", weights},
          {"compile", in.options.compile},
          {"dtypes", in.options.dtypes}};
}

// `warnings`: their words come from the catalogue, filled with facts already sanitized.
ojson warnings_section(const ReportInput& in) {
  ojson warnings = ojson::array();
  for (const ReportInput::Warning& w : in.warnings) {
    warnings.push_back({{"stage", stage_name(w.stage)},
                        {"type", w.type},
                        {"message", w.message}});
  }
  return warnings;
}

}  // namespace

ojson build_report(const ReportInput& in, const Sanitizer& sanitizer) {
  const OutcomeInfo& row = info(in.outcome);
  ojson pytorch = in.findings.pytorch;
  clean_tokens(pytorch, {"version", "cuda", "hip"});
  // The warnings the interpreter's import of torch printed (the python probe), first lines,
  // treated as any outside text; null where no interpreter imported torch.
  pytorch["import_warnings"] = nullptr;
  if (in.probe_kind == kProbeKindPython && !in.probe_override &&
      in.findings.python_import == std::nullopt && !in.findings.python_version.empty()) {
    ojson warnings = ojson::array();
    for (const std::string& line : in.findings.import_warnings) {
      std::string clean = sanitizer.message(line);
      if (!clean.empty()) warnings.push_back(clean);
    }
    pytorch["import_warnings"] = warnings;
  }
  ojson execution = in.findings.execution;
  // The GPU's model name comes from the driver: treated as any outside text.
  if (execution["device_name"].is_string()) {
    std::string name = sanitizer.message(execution["device_name"].get<std::string>());
    execution["device_name"] = name.empty() ? ojson(nullptr) : ojson(name);
  }
  clean_tokens(execution, {"capability"});
  if (in.options.device == Device::Cpu) {
    // CPU mode asks nothing of the GPU driver: these stay "not asked".
    pytorch["gpu_available"] = nullptr;
    pytorch["visible_device_count"] = nullptr;
  }
  const ojson host = host_section(in);
  const ojson error = error_section(in, sanitizer);
  return {
      {"schema_version", 1},
      {"tool",
       {{"name", kToolName},
        {"version", kToolVersion},
        {"probe", in.probe_override ? std::string("override") : in.probe_kind}}},
      {"status", is_pass(in.outcome) ? "passed" : "failed"},
      {"code", row.code.view()},
      {"exit_code", row.exit_code},
      {"stage", stage_name(in.stage)},
      {"message", compose_message(in)},
      {"requested", requested_section(in, sanitizer)},
      {"runtime", runtime_section(in)},
      {"pytorch", pytorch},
      {"execution", execution},
      {"application", application_section(in, sanitizer)},
      {"memory_by_stage", in.probe_override ? ojson(memory_by_stage_skeleton())
                                            : ojson(in.findings.memory_by_stage)},
      {"host", host},
      {"output", {{"requested", in.options.output.has_value()}, {"written", in.output_written}}},
      {"error", error},
      {"warnings", warnings_section(in)},
  };
}

std::string render_report(const ojson& report) {
  return report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string verdict_line(const ojson& report) {
  return std::string(kToolName) + ": " + report["code"].get<std::string>() + " (exit " +
         std::to_string(report["exit_code"].get<int>()) + ", stage " +
         report["stage"].get<std::string>() + "): " + report["message"].get<std::string>();
}

}  // namespace kd
