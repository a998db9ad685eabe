// The Markdown summary of a report, for a pipeline's job summary: the certificate of each run,
// a table of the failures, errors and skips with their reasons (a failure or error whose case's
// report names a cause of the check's catalogue names that cause and its next action), a table
// of the warnings of the cases' reports, whatever their verdict, and the tables of its view (a
// fleet's nodes by outcome and where each layer fails): every table through one renderer.
#pragma once

#include <string>

#include "cause_coverage.hpp"
#include "junit_report.hpp"

namespace kd::junit {

// Of a sealed or read report. `case_json` (report_of_case) and `causes` give the "cause and
// next action" column: "-" where a row's case has no report naming a cause of `causes`; and
// `case_json` the section "Warnings": a row per warning of each case's report, with the case's
// own verdict, the stage, the warning's type and message ("None: ..." without one).
std::string summary_markdown(const Report& report, const CaseReports& case_json,
                             const Causes& causes);

// A certificate case's plain words: its output, or a failed one's body without the message
// that opens it.
std::string certificate_words(const ReportCase& c);

}  // namespace kd::junit
