// The Markdown summary of a report.
#include "junit_summary.hpp"

#include <tinyxml2.h>

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

}  // namespace

std::string summary_markdown(const std::string& junit_xml) {
  tinyxml2::XMLDocument doc;
  const tinyxml2::XMLElement* root = parse_report_xml(doc, junit_xml);

  std::string certificates, rows;
  std::size_t listed = 0;
  for (const auto* s = root->FirstChildElement("testsuite"); s;
       s = s->NextSiblingElement("testsuite")) {
    const std::string variant = suite_variant(s);
    for (const auto* tc = s->FirstChildElement("testcase"); tc;
         tc = tc->NextSiblingElement("testcase")) {
      const std::string classname = attr(tc, "classname");
      if (classname == std::string(kClassPrefix) + kCertificateLayer) {
        const auto* failure = tc->FirstChildElement("failure");
        std::string text = failure ? all_text(failure) : all_text(tc->FirstChildElement("system-out"));
        if (failure) text = text.substr(text.find('\n') + 1);  // the message repeats line one
        certificates += "## " + attr(s, "name") + "\n\n";
        for (const std::string& line : lines_of(text)) certificates += line + "  \n";
        certificates += "\n";
        continue;
      }
      const char* verdicts[] = {"failure", "error", "skipped"};
      for (const char* v : verdicts) {
        const auto* e = tc->FirstChildElement(v);
        if (!e) continue;
        const std::string shown = std::string(v) == "failure" ? "failed"
                                  : std::string(v) == "error" ? "error"
                                                              : "skipped";
        rows += "| " + markdown_cell(variant.empty() ? "-" : variant) + " | `" + classname +
                "." + attr(tc, "name") + "` | " + shown + " | " +
                markdown_cell(attr(e, "message")) + " |\n";
        ++listed;
      }
    }
  }
  std::string out = "# " + attr(root, "name") + ": certificate\n\n";
  out += "tests " + attr(root, "tests") + ", failures " + attr(root, "failures") + ", errors " +
         attr(root, "errors") + ".\n\n";
  out += certificates.empty() ? "No certificate in this report (kernodeck-junit without --cases).\n\n"
                              : certificates;
  out += "## Failures, errors and skips\n\n";
  if (listed == 0) {
    out += "None.\n";
  } else {
    out += "| variant | case | verdict | reason |\n|---|---|---|---|\n" + rows;
  }
  return out;
}

}  // namespace kd::junit
