// Writing the report as JUnit XML that junit-10.xsd accepts, every text made safe for XML 1.0.
#pragma once

#include <string>

#include "junit_report.hpp"

namespace kd::junit {

std::string write_junit(const Report& report);

}  // namespace kd::junit
