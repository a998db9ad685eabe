// The Markdown summary of a report, for a pipeline's job summary: the certificate of each run
// and a table of the failures, errors and skips with their reasons; a failure or error whose
// case's report names a cause of the check's catalogue names that cause and its next action.
#pragma once

#include <string>

#include "junit_causes.hpp"

namespace kd::junit {

// Of a report write_junit or merge_reports wrote; an InputError for anything else. `case_json`
// (report_of_case) and `causes` give the "cause and next action" column: "-" where a row's case
// has no report naming a cause of `causes`.
std::string summary_markdown(const std::string& junit_xml, const CaseReports& case_json,
                             const Causes& causes);

}  // namespace kd::junit
