// Each case's verdict: CTest's status weighed with the case's own record of it. A GoogleTest
// program whose case recorded no verdict crashed, was killed or timed out (an error), a plain
// program that failed simply failed; a failed assertion is never hidden as a pass or a skip.
//
//   Report report = convert(parse_ctest_junit(xml), load_records(dir, warnings), infos, title);
#pragma once

#include <map>
#include <string>

#include "junit_inputs.hpp"
#include "junit_report.hpp"

namespace kd::junit {

// Which tests are GoogleTest tests matters only when a test failed and no recorded verdict
// exists: a GoogleTest program that recorded no verdict crashed, was killed or timed out (an
// error), while a plain program that failed simply failed (a failure). A test is a GoogleTest
// test when it left a record or, in `infos` (publish --ctest-tests, which CTest's JUnit needs),
// its command holds --gtest_filter= or --gtest_output= (what gtest_discover_tests and
// gtest_add_tests generate); its TIMEOUT tells a timeout (elapsed time reached it) from a crash,
// and the --gtest_filter value gives the GoogleTest name even under a TEST_PREFIX. Each skip's,
// failure's and error's body opens with its reason, then where it was found, and ends with
// "Case declared at <file>:<line>" when its record says where the case is declared.
Report convert(const CtestRun& run, const CaseRecords& records,
               const std::map<std::string, TestInfo>& infos, const std::string& title);

// One line for a message attribute: the first line of an assertion that says something (not
// GoogleTest's "file:line" or "Failed"), cut to a readable length.
std::string headline(std::string_view text);

}  // namespace kd::junit
