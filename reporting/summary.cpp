// The Markdown summary of a report.
#include "summary.hpp"

#include <optional>
#include <sstream>
#include <vector>

#include "certificate.hpp"
#include "junit_text.hpp"

namespace kd::junit {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The first line of `text` as one cell; "(no reason given)" for none.
std::string reason_cell(const std::string& text) {
  const std::string out = markdown_cell(text.substr(0, text.find('\n')));
  return out.empty() ? "(no reason given)" : out;
}

// "title (`Type`): next action" of the cause the case's report names, or "-".
std::string cause_cell(const CaseReports& case_json, const Causes& causes,
                       const std::string& variant, const ReportCase& c) {
  const CheckReport* report = report_of_case(case_json, variant, c.classname, c.name);
  const std::optional<MetCause> met = report ? cause_met(causes, *report) : std::nullopt;
  if (!met) return "-";
  return reason_cell(met->row->title + " (`" + met->row->error_type +
                     "`): " + met->row->next_action);
}

const char* shown_verdict(Verdict v) {
  return v == Verdict::Failure ? "failed" : v == Verdict::Error ? "error" : "skipped";
}

}  // namespace

std::string certificate_words(const ReportCase& c) {
  if (c.verdict == Verdict::Passed) return c.system_out;
  const std::size_t eol = c.body.find('\n');
  return eol == std::string::npos ? c.body : c.body.substr(eol + 1);
}

std::string summary_markdown(const Report& report, const CaseReports& case_json,
                             const Causes& causes) {
  std::string certificates, rows;
  for (const ReportSuite& s : report.suites) {
    for (const ReportCase& c : s.cases) {
      if (c.classname == kCertificateLayer) {
        certificates += "## " + suite_name(s.name, s.variant) + "\n\n";
        for (const std::string& line : lines_of(certificate_words(c)))
          certificates += line + "  \n";
        certificates += "\n";
        continue;
      }
      if (c.verdict == Verdict::Passed) continue;
      const std::string cause = c.verdict == Verdict::Skipped
                                    ? "-"
                                    : cause_cell(case_json, causes, s.variant, c);
      rows += "| " + reason_cell(s.variant.empty() ? "-" : s.variant) + " | `" + kClassPrefix +
              c.classname + "." + c.name + "` | " + shown_verdict(c.verdict) + " | " +
              reason_cell(c.message) + " | " + cause + " |\n";
    }
  }
  const Counts counts = report.counts();
  std::string out = "# " + report.title + ": certificate\n\n";
  out += "tests " + std::to_string(counts.tests) + ", failures " +
         std::to_string(counts.failures) + ", errors " + std::to_string(counts.errors) + ".\n\n";
  out += certificates.empty()
             ? "No certificate in this report (kernodeck-junit without --cases).\n\n"
             : certificates;
  out += "## Failures, errors and skips\n\n";
  if (rows.empty()) {
    out += "None.\n";
  } else {
    out += "| variant | case | verdict | reason | cause and next action |\n"
           "|---|---|---|---|---|\n" +
           rows;
  }
  return out;
}

}  // namespace kd::junit
