// What a run certified: the facts learned from the check's own reports of its cases, and the
// certificate in plain words as the report's first case.
//
//   report.certificate = read_case_reports("reports/debian/cases", notes);
//   add_certificate_case(report);
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "junit_report.hpp"

namespace kd::junit {

// Reads every *.json of `dir` (not recursive). Unreadable or foreign files are reported through
// `warnings` and otherwise ignored. A missing folder is an InputError.
Certificate read_case_reports(const std::filesystem::path& dir, std::vector<std::string>& warnings);

// The certificate's facts as (name, value) pairs, in the order dashboards show them.
std::vector<std::pair<std::string, std::string>> certificate_properties(const Certificate& c,
                                                                        const std::string& variant);

// The certificate in plain words, a few lines; `counts` are those of the layers' cases.
std::string certificate_text(const Report& report, const Counts& counts);

// The layer, and case id, of the certificate's own case.
inline constexpr const char* kCertificateLayer = "certificate";

// Adds the certificate's suite (see Report::certificate); call last, after localize.
void add_certificate_case(Report& report);

}  // namespace kd::junit
