// What a run certified: the facts learned from the check's own reports of its cases, and the
// certificate in plain words as the report's first case.
//
//   report.certificate = certificate_of(read_check_reports("reports/debian/cases", scrub), notes);
//   seal(report);  // adds the certificate's case
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "check_report.hpp"
#include "junit_report.hpp"

namespace kd::junit {

// The facts the check's reports of a run tell (read_check_reports). Unreadable or foreign files
// are reported through `warnings` and otherwise ignored.
Certificate certificate_of(const std::map<std::string, CheckReport>& reports,
                           std::vector<std::string>& warnings);

// The layer, and case id, of the certificate's own case, which seal() adds first (see
// Report::certificate): the certificate in plain words.
inline constexpr const char* kCertificateLayer = "certificate";

}  // namespace kd::junit
