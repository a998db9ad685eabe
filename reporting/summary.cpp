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

// `text` as one cell; "-" for none.
std::string cell_or_dash(const std::string& text) {
  const std::string out = markdown_cell(text);
  return out.empty() ? "-" : out;
}

// The first line of `text`; "(no reason given)" for none.
std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "(no reason given)" : line;
}

// A table under its heading (its intro first), or what it says without rows.
std::string view_table(const ViewTable& t) {
  std::string out = "\n## " + t.title + "\n\n";
  if (t.rows.empty()) return out + t.none + "\n";
  if (!t.intro.empty()) out += t.intro + "\n\n";
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
  const Counts counts = report.counts();
  std::string out = "# " + report.title + ": certificate\n\ntests " +
                    std::to_string(counts.tests) + ", failures " +
                    std::to_string(counts.failures) + ", errors " +
                    std::to_string(counts.errors) + ".\n";
  ViewTable failures{"", "Failures, errors and skips",
                     {"variant", "case", "verdict", "reason", "cause and next action"}, {},
                     "None."};
  ViewTable warnings{"", "Warnings", {"variant", "case", "verdict", "stage", "warning", "message"},
                     {}, "None: no case's report has a warning."};
  warnings.intro = "What the check noticed without failing for it, from each case's report; a "
                   "warning never changes a verdict or the check's exit code.";
  bool certificate = false;
  for (const ReportSuite& s : report.suites) {
    for (const ReportCase& c : s.cases) {
      if (c.classname == kCertificateLayer) {
        certificate = true;
        out += "\n## " + suite_name(s.name, s.variant) + "\n\n";
        const std::string words = certificate_words(c);
        for (std::string_view line : split_lines(words)) out += std::string(line) + "  \n";
        continue;
      }
      const std::string id = std::string("`") + kClassPrefix + c.classname + "." + c.name + "`";
      const CheckReport* json = report_of_case(case_json, s.variant, c.classname, c.name);
      if (json != nullptr)
        for (const ReportWarning& w : json->warnings)
          warnings.rows.push_back({{}, {{s.variant}, {id}, {verdict_word(c.verdict)}, {w.stage},
                                        {w.type.empty() ? "" : "`" + w.type + "`"}, {w.message}}});
      if (c.verdict == Verdict::Passed) continue;
      // The cause the case's report names, with its next action.
      const std::optional<MetCause> met = c.verdict != Verdict::Skipped && json != nullptr
                                              ? cause_met(causes, *json)
                                              : std::nullopt;
      const std::string cause = met ? first_line(met->row->title + " (`" + met->row->error_type +
                                                 "`): " + met->row->next_action)
                                    : "";
      failures.rows.push_back({{}, {{s.variant}, {id}, {verdict_word(c.verdict)},
                                    {first_line(c.message)}, {cause}}});
    }
  }
  if (!certificate) out += "\nNo certificate in this report (kernodeck-junit without --cases).\n";
  out += view_table(failures) + view_table(warnings);
  if (report.view)
    for (const ViewTable& t : report.view->tables) out += view_table(t);
  return out;
}

}  // namespace kd::junit
