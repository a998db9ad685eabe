// The Markdown summary of a report, for a pipeline's job summary: the certificate of each run
// and a table of the failures, errors and skips with their reasons.
#pragma once

#include <string>

namespace kd::junit {

// Of a report write_junit or merge_reports wrote; an InputError for anything else.
std::string summary_markdown(const std::string& junit_xml);

}  // namespace kd::junit
