#include "cause_coverage.hpp"

#include <nlohmann/json.hpp>

#include <set>
#include <utility>

#include "junit_report.hpp"
#include "junit_text.hpp"

namespace kd::junit {
namespace {

using json = nlohmann::json;

// The text of `field` of one row; an InputError when it is missing or empty.
std::string required_text(const json& row, const char* field, const std::string& where) {
  const auto it = row.find(field);
  if (it == row.end() || !it->is_string() || it->get<std::string>().empty())
    throw InputError(where + " has no " + field);
  return it->get<std::string>();
}

CauseRow read_row(const json& row, const std::string& where) {
  if (!row.is_object()) throw InputError(where + " is not an object");
  CauseRow c;
  for (auto [field, text] : {std::pair{"key", &c.key}, {"title", &c.title}, {"stage", &c.stage},
                             {"code", &c.code}, {"error_type", &c.error_type},
                             {"next_action", &c.next_action}})
    *text = required_text(row, field, where);
  const auto exit_code = row.find("exit_code");
  if (exit_code == row.end() || !exit_code->is_number_integer())
    throw InputError(where + " has no exit_code");
  c.exit_code = exit_code->get<int>();
  return c;
}

}  // namespace

const CauseRow* Causes::by_type(const std::string& type) const {
  for (const CauseRow& row : rows)
    if (row.error_type == type) return &row;
  return nullptr;
}

Causes parse_causes(const std::string& json_text, const std::string& source) {
  const json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_array())
    throw InputError("cause catalogue " + source +
                     " is not a JSON array (what kernodeck-causes --json prints)");
  Causes causes;
  std::set<std::string> types;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const std::string where = "cause catalogue " + source + ", row " + std::to_string(i + 1);
    CauseRow row = read_row(doc[i], where);
    if (!types.insert(row.error_type).second)
      throw InputError(where + " repeats the error_type " + row.error_type);
    causes.rows.push_back(std::move(row));
  }
  return causes;
}

Causes read_causes(const std::string& path) {
  if (path.empty()) return {};
  return parse_causes(read_input(path, "cause catalogue"), path);
}

std::optional<MetCause> cause_met(const Causes& causes, const CheckReport& report) {
  if (!report.object || report.error_type.empty()) return std::nullopt;
  const CauseRow* row = causes.by_type(report.error_type);
  if (row == nullptr) return std::nullopt;
  return MetCause{row, report.message};
}

}  // namespace kd::junit
