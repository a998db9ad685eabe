// The check's cause catalogue as the report writer reads it: data, the JSON that
// `kernodeck-causes --json` prints (the build writes it once, build-*/causes.json, and every
// caller of the pipeline passes it with --causes), never the check's code. A case's JSON report
// names its cause in error.type; the page and the summary show that cause's title and next
// action from this one table.
//
//   Causes causes = read_causes("build-debian/causes.json");
//   if (auto met = cause_met(causes, check_report)) show(met->row->title, met->row->next_action);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "check_report.hpp"

namespace kd::junit {

// One cause, as kernodeck-causes --json gives it (the fields the pages show).
struct CauseRow {
  std::string key;          // stable, lower case: "driver_mismatch"
  std::string title;        // the cause, for people
  std::string stage;        // the layer it is met in: "device"
  std::string code;         // the report's code: "GPU_UNAVAILABLE"
  int exit_code = 0;
  std::string error_type;   // the report's error.type: "DriverMismatch"
  std::string next_action;  // {fact} placeholders as the catalogue has them
};

struct Causes {
  std::vector<CauseRow> rows;  // in the catalogue's order; none when no catalogue was given
  // The row whose error_type is `type`; nullptr for none.
  const CauseRow* by_type(const std::string& type) const;
};

// The catalogue from its JSON text; an InputError naming `source` when it is not an array of
// causes, each with its key, title, stage, code, exit_code, error_type and next_action, or when
// two rows share an error_type.
Causes parse_causes(const std::string& json_text, const std::string& source);

// The catalogue of that file; none for an empty path; an InputError when it cannot be read.
Causes read_causes(const std::string& path);

// What a check's JSON report says of its cause: the catalogue's row its error.type names, and
// the report's own message (that cause's sentences with the facts of its run).
struct MetCause {
  const CauseRow* row = nullptr;
  std::string message;
};

// nullopt when the report is not JSON, has no error.type, or names none of the catalogue's.
std::optional<MetCause> cause_met(const Causes& causes, const CheckReport& report);

}  // namespace kd::junit
