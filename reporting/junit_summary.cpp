// The Markdown summary of a report.
#include "junit_summary.hpp"

#include <tinyxml2.h>

#include <optional>
#include <sstream>
#include <vector>

#include "junit_certificate.hpp"
#include "junit_report.hpp"
#include "junit_xml.hpp"

namespace kd::junit {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : first_line(text)) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\r' || c == '\t') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out.empty() ? "(no reason given)" : out;
}

// What the summary is made of, read from the report.
struct SummaryParts {
  std::string certificates, rows;
  std::size_t listed = 0;
};

// "title (`Type`): next action" of the cause the case's report names, or "-".
std::string cause_cell(const CaseReports& case_json, const Causes& causes,
                       const std::string& variant, const std::string& classname,
                       const std::string& id) {
  std::string layer = classname;
  if (layer.rfind(kClassPrefix, 0) == 0) layer = layer.substr(std::string(kClassPrefix).size());
  const std::string* json = report_of_case(case_json, variant, layer, id);
  const std::optional<MetCause> met = json ? cause_met(causes, *json) : std::nullopt;
  if (!met) return "-";
  return markdown_cell(met->row->title + " (`" + met->row->error_type +
                       "`): " + met->row->next_action);
}

// The certificate's text of `tc`, under the suite's name.
void add_certificate(const tinyxml2::XMLElement* s, const tinyxml2::XMLElement* tc,
                     SummaryParts& parts) {
  const auto* failure = tc->FirstChildElement("failure");
  std::string text = failure ? all_text(failure) : all_text(tc->FirstChildElement("system-out"));
  if (failure) text = text.substr(text.find('\n') + 1);  // the message repeats line one
  parts.certificates += "## " + attr(s, "name") + "\n\n";
  for (const std::string& line : lines_of(text)) parts.certificates += line + "  \n";
  parts.certificates += "\n";
}

SummaryParts read_summary(const tinyxml2::XMLElement* root, const CaseReports& case_json,
                          const Causes& causes) {
  SummaryParts parts;
  for (const auto* s = root->FirstChildElement("testsuite"); s;
       s = s->NextSiblingElement("testsuite")) {
    const std::string variant = suite_variant(s);
    for (const auto* tc = s->FirstChildElement("testcase"); tc;
         tc = tc->NextSiblingElement("testcase")) {
      const std::string classname = attr(tc, "classname");
      if (classname == std::string(kClassPrefix) + kCertificateLayer) {
        add_certificate(s, tc, parts);
        continue;
      }
      for (const char* v : {"failure", "error", "skipped"}) {
        const auto* e = tc->FirstChildElement(v);
        if (!e) continue;
        const std::string shown = std::string(v) == "failure" ? "failed" : v;
        const std::string cause = shown == "skipped" ? "-"
                                  : cause_cell(case_json, causes, variant, classname,
                                               attr(tc, "name"));
        parts.rows += "| " + markdown_cell(variant.empty() ? "-" : variant) + " | `" +
                      classname + "." + attr(tc, "name") + "` | " + shown + " | " +
                      markdown_cell(attr(e, "message")) + " | " + cause + " |\n";
        ++parts.listed;
      }
    }
  }
  return parts;
}

}  // namespace

std::string summary_markdown(const std::string& junit_xml, const CaseReports& case_json,
                             const Causes& causes) {
  tinyxml2::XMLDocument doc;
  const tinyxml2::XMLElement* root = parse_report_xml(doc, junit_xml);
  const SummaryParts parts = read_summary(root, case_json, causes);
  const std::string& certificates = parts.certificates;
  std::string out = "# " + attr(root, "name") + ": certificate\n\n";
  out += "tests " + attr(root, "tests") + ", failures " + attr(root, "failures") + ", errors " +
         attr(root, "errors") + ".\n\n";
  out += certificates.empty() ? "No certificate in this report (kernodeck-junit without --cases).\n\n"
                              : certificates;
  out += "## Failures, errors and skips\n\n";
  if (parts.listed == 0) {
    out += "None.\n";
  } else {
    out += "| variant | case | verdict | reason | cause and next action |\n"
           "|---|---|---|---|---|\n" +
           parts.rows;
  }
  return out;
}

}  // namespace kd::junit
