#include "summary.hpp"

#include <optional>
#include <vector>

#include "certificate.hpp"
#include "junit_text.hpp"
#include "util/text.hpp"

namespace kd::junit {
namespace {

// One line (one_line), its '|' escaped: safe for one cell of a Markdown table.
std::string markdown_cell(std::string_view text) {
  std::string out;
  for (const char c : one_line(text)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
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

// `text` as one cell; "-" for none.
std::string cell_or_dash(const std::string& text) {
  const std::string out = markdown_cell(text);
  return out.empty() ? "-" : out;
}

// One row per warning of the case's report: the case with its own verdict (a warning changes
// none), where the check noticed it, which, and what it said.
std::string warning_rows(const CaseReports& case_json, const std::string& variant,
                         const ReportCase& c) {
  const CheckReport* report = report_of_case(case_json, variant, c.classname, c.name);
  if (report == nullptr) return "";
  std::string rows;
  for (const ReportWarning& w : report->warnings) {
    rows += "| " + cell_or_dash(variant) + " | `" + kClassPrefix + c.classname + "." + c.name +
            "` | " + verdict_word(c.verdict) + " | " + cell_or_dash(w.stage) + " | " +
            (w.type.empty() ? "-" : "`" + markdown_cell(w.type) + "`") + " | " +
            cell_or_dash(w.message) + " |\n";
  }
  return rows;
}

// The section of the warnings: what the check noticed without failing.
std::string warnings_section(const std::string& rows) {
  std::string out = "\n## Warnings\n\n";
  if (rows.empty()) return out + "None: no case's report has a warning.\n";
  return out + "What the check noticed without failing for it, from each case's report; a "
               "warning never changes a verdict or the check's exit code.\n\n"
               "| variant | case | verdict | stage | warning | message |\n"
               "|---|---|---|---|---|---|\n" +
         rows;
}

// A table of the report's view under its heading, or what it says without rows.
std::string view_table(const ViewTable& t) {
  std::string out = "\n## " + t.title + "\n\n";
  if (t.rows.empty()) return out + t.none + "\n";
  std::string rule;
  for (const std::string& header : t.headers) {
    out += "| " + markdown_cell(header) + " ";
    rule += "|---";
  }
  out += "|\n" + rule + "|\n";
  for (const ViewRow& row : t.rows) {
    for (const ViewCell& cell : row.cells) out += "| " + cell_or_dash(cell.text) + " ";
    out += "|\n";
  }
  return out;
}

}  // namespace

std::string certificate_words(const ReportCase& c) {
  if (c.verdict == Verdict::Passed) return c.system_out;
  const std::size_t eol = c.body.find('\n');
  return eol == std::string::npos ? c.body : c.body.substr(eol + 1);
}

std::string summary_markdown(const Report& report, const CaseReports& case_json,
                             const Causes& causes) {
  std::string certificates, rows, warnings;
  for (const ReportSuite& s : report.suites) {
    for (const ReportCase& c : s.cases) {
      if (c.classname == kCertificateLayer) {
        certificates += "## " + suite_name(s.name, s.variant) + "\n\n";
        const std::string words = certificate_words(c);
        for (std::string_view line : split_lines(words)) certificates += std::string(line) + "  \n";
        certificates += "\n";
        continue;
      }
      warnings += warning_rows(case_json, s.variant, c);
      if (c.verdict == Verdict::Passed) continue;
      const std::string cause = c.verdict == Verdict::Skipped
                                    ? "-"
                                    : cause_cell(case_json, causes, s.variant, c);
      rows += "| " + reason_cell(s.variant.empty() ? "-" : s.variant) + " | `" + kClassPrefix +
              c.classname + "." + c.name + "` | " + verdict_word(c.verdict) + " | " +
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
  out += warnings_section(warnings);
  if (report.view)
    for (const ViewTable& t : report.view->tables) out += view_table(t);
  return out;
}

}  // namespace kd::junit
