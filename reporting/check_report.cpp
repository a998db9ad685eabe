#include "check_report.hpp"

#include <nlohmann/json.hpp>

#include "junit_report.hpp"
#include "junit_text.hpp"
#include "contract/report_rules.hpp"
#include "util/files.hpp"

namespace kd::junit {
namespace {

using nlohmann::json;

const json* field_at(const json& doc, const char* pointer) {
  const json::json_pointer p(pointer);
  return doc.contains(p) ? &doc.at(p) : nullptr;
}

std::string text_at(const json& doc, const char* pointer) {
  const json* v = field_at(doc, pointer);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

std::optional<long long> integer_at(const json& doc, const char* pointer) {
  const json* v = field_at(doc, pointer);
  if (v == nullptr || !v->is_number_integer()) return std::nullopt;
  return v->get<long long>();
}

bool is_object_at(const json& doc, const char* pointer) {
  const json* v = field_at(doc, pointer);
  return v != nullptr && v->is_object();
}

// Each object of `warnings`; anything else in the list is left out, as a field that is not text
// is read as empty.
std::vector<ReportWarning> warnings_at(const json& doc) {
  std::vector<ReportWarning> out;
  const json* list = field_at(doc, "/warnings");
  if (list == nullptr || !list->is_array()) return out;
  for (const json& w : *list) {
    if (!w.is_object()) continue;
    // The views quote them on one line, in XML, Markdown and HTML alike.
    auto text = [&w](const char* pointer) { return xml_safe(one_line(text_at(w, pointer))); };
    out.push_back({text("/stage"), text("/type"), text("/message")});
  }
  return out;
}

}  // namespace

CheckReport parse_check_report(const std::string& text) {
  CheckReport r;
  r.read = true;
  r.text = text;
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return r;
  r.object = true;
  r.pretty = doc.dump(2);
  r.ours = text_at(doc, "/tool/name") == "kernodeck-diagnostic";
  for (auto [pointer, field] :
       {std::pair{"/tool/version", &r.tool_version}, {"/tool/probe", &r.probe},
        {"/status", &r.status}, {"/code", &r.code}, {"/stage", &r.stage},
        {"/message", &r.message}, {"/requested/device", &r.device},
        {"/error/type", &r.error_type}, {"/error/message", &r.error_message},
        {"/pytorch/version", &r.torch_version}, {"/pytorch/backend", &r.backend},
        {"/pytorch/cuda", &r.cuda}, {"/pytorch/hip", &r.hip},
        {"/execution/gradient_source", &r.gradient_source},
        {"/execution/device_name", &r.device_name}, {"/execution/capability", &r.capability},
        {"/host/status", &r.host_status}, {"/host/driver_version", &r.driver_version}})
    *field = text_at(doc, pointer);
  r.exit_code = integer_at(doc, "/exit_code");
  r.visible_devices = integer_at(doc, "/pytorch/visible_device_count");
  r.has_error = is_object_at(doc, "/error");
  r.has_host = is_object_at(doc, "/host");
  const json* verified = field_at(doc, "/execution/gradient_verified");
  r.gradient_verified = verified != nullptr && *verified == true;
  if (const json* timings = field_at(doc, "/execution/timings_ms");
      timings && timings->is_object()) {
    for (const auto& [name, ms] : timings->items())
      if (ms.is_number()) r.seconds += ms.get<double>() / 1000.0;
  }
  r.warnings = warnings_at(doc);
  return r;
}

std::vector<std::string> contract_problems(const CheckReport& report) {
  if (!report.object) return {"the report is not a JSON object"};
  return kdh::report_problems(json::parse(report.pretty));
}

std::map<std::string, CheckReport> read_check_reports(const std::filesystem::path& dir,
                                                      const kd::Sanitizer& rule,
                                                      bool missing_ok) {
  std::map<std::string, CheckReport> out;
  for (const std::filesystem::path& file : json_files(dir, missing_ok, /*recursive=*/false)) {
    const std::optional<std::string> text = kd::read_file(file.string(), kd::kWholeFile);
    // Read as shown: what the page and the summary quote of it names nothing of this machine.
    CheckReport r = parse_check_report(rule.redact(text.value_or("")));
    r.read = text.has_value();
    out[file.stem().string()] = std::move(r);
  }
  return out;
}

const CheckReport* report_of_case(const CaseReports& reports, const std::string& variant,
                                  const std::string& layer, const std::string& id) {
  auto found = reports.find(variant + "/" + layer + "." + id);
  if (found == reports.end()) found = reports.find(layer + "." + id);
  return found == reports.end() ? nullptr : &found->second;
}

void add_report_warnings(Report& report, const CaseReports& reports) {
  for (ReportSuite& suite : report.suites) {
    for (ReportCase& c : suite.cases) {
      const CheckReport* r = report_of_case(reports, report.variant, c.classname, c.name);
      if (r == nullptr) continue;
      for (const ReportWarning& w : r->warnings)
        c.warnings.push_back(w.type + " (" + w.stage + "): " + w.message);
    }
  }
}

}  // namespace kd::junit
