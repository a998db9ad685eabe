// What a report must hold before it is published: it validates against junit-10.xsd (checked
// in-process by libxml2's XML Schema validator, against the schema built into the program, so no
// machine can skip it for want of a tool), and every skip says why.
//
//   for (const std::string& e : schema_errors(xml)) std::cerr << "junit.xml: " << e << '\n';
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "junit_report.hpp"

namespace kd::junit {

// reporting/junit-10.xsd as it was when the program was built.
std::string_view junit_xsd();

// Why `xml` does not validate against junit-10.xsd, one line per error with its line number
// ("line 3: Element 'bogus': This element is not expected."); empty when it validates. Text that
// is not well-formed XML gives the parser's first error.
std::vector<std::string> schema_errors(const std::string& xml);

// The cases ("kernodeck.unit.SkipsQuietly") that a report shows as skipped with nothing but
// CTest's words (SKIP_REGULAR_EXPRESSION_MATCHED...) or the converter's "no reason given": a
// GTEST_SKIP() that gave no reason.
std::vector<std::string> reasonless_skips(const Report& report);

}  // namespace kd::junit
