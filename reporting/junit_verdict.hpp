// Each case's verdict: CTest's status weighed with GoogleTest's record of the case. A GoogleTest
// program that wrote no verdict crashed, was killed or timed out (an error), a plain program
// that failed simply failed; a failed assertion is never hidden as a pass or a skip.
//
//   Report report = convert(parse_ctest_junit(xml), load_gtest_dir(dir, warnings), infos, title);
#pragma once

#include <map>
#include <string>

#include "junit_inputs.hpp"
#include "junit_report.hpp"

namespace kd::junit {

// `infos` may be empty (no --ctest-tests): gtest tests are then recognised by their XML or by
// GoogleTest's banner in the captured output, and a timeout cannot be told from a crash.
Report convert(const CtestRun& run, const GtestIndex& gtest,
               const std::map<std::string, TestInfo>& infos, const std::string& title);

}  // namespace kd::junit
