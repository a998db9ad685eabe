// Several reports (one per build variant) merged into one, their suites unchanged: what
// kernodeck-junit --merge and `publish --merge` do.
#pragma once

#include <string>
#include <vector>

#include "junit_report.hpp"

namespace kd::junit {

struct MergeInput {
  std::string source;  // where the report came from, for messages
  std::string xml;     // a report write_junit wrote
};

struct Merged {
  std::string xml;
  Counts counts;
  std::vector<std::string> warnings;  // e.g. a suite name that two inputs share
};

// One report holding the <testsuite> elements of every input, in the order given, unchanged;
// the root's counts and time are the sums of the inputs'. An input that is not such a report
// (not XML, another root, counts that disagree with its cases, elements or attributes
// junit-10.xsd does not allow) is an InputError naming its source.
Merged merge_reports(const std::vector<MergeInput>& inputs, const std::string& title);

}  // namespace kd::junit
