#include "junit_report.hpp"

namespace kd::junit {

const char* verdict_word(Verdict verdict) {
  switch (verdict) {
    case Verdict::Failure: return "failed";
    case Verdict::Error: return "error";
    case Verdict::Skipped: return "skipped";
    case Verdict::Passed: break;
  }
  return "passed";
}

void Counts::add(Verdict verdict) {
  ++tests;
  switch (verdict) {
    case Verdict::Passed: ++passed; break;
    case Verdict::Failure: ++failures; break;
    case Verdict::Error: ++errors; break;
    case Verdict::Skipped: ++skipped; break;
  }
}

Counts Report::counts() const {
  Counts counts;
  for (const auto& suite : suites)
    for (const auto& c : suite.cases) counts.add(c.verdict);
  return counts;
}

std::string summary_line(const Counts& c) {
  return "tests=" + std::to_string(c.tests) + " passed=" + std::to_string(c.passed) +
         " failures=" + std::to_string(c.failures) + " errors=" + std::to_string(c.errors) +
         " skipped=" + std::to_string(c.skipped);
}

std::string suite_name(const std::string& layer, const std::string& variant) {
  return variant.empty() ? layer : layer + " [" + variant + "]";
}

}  // namespace kd::junit
