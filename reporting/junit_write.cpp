#include "junit_write.hpp"

#include <tinyxml2.h>

#include <utility>
#include <vector>

#include "junit_certificate.hpp"
#include "junit_text.hpp"

namespace kd::junit {
namespace {

// A JUnit document under construction: attributes on one line, text made
// safe for XML 1.0.
class JunitWriter {
 public:
  std::string write(const Report& report) {
    doc_.InsertEndChild(doc_.NewDeclaration());
    const Counts all = report.counts();
    tinyxml2::XMLElement* root = add(&doc_, "testsuites");
    set(root, "name", report.title);
    set(root, "tests", std::to_string(all.tests));
    set(root, "failures", std::to_string(all.failures));
    set(root, "errors", std::to_string(all.errors));
    set(root, "time", format_seconds(report.time));
    for (const ReportSuite& suite : report.suites) write_suite(root, suite, report);
    tinyxml2::XMLPrinter printer;
    doc_.Print(&printer);
    return std::string(printer.CStr(), static_cast<std::size_t>(printer.CStrSize() - 1));
  }

 private:
  tinyxml2::XMLElement* add(tinyxml2::XMLNode* parent, const char* name) {
    tinyxml2::XMLElement* e = doc_.NewElement(name);
    parent->InsertEndChild(e);
    return e;
  }
  static void set(tinyxml2::XMLElement* e, const char* name, const std::string& value) {
    e->SetAttribute(name, xml_safe(one_line(value)).c_str());
  }
  void text(tinyxml2::XMLElement* e, const std::string& value) {
    if (!value.empty()) e->InsertEndChild(doc_.NewText(xml_safe(value).c_str()));
  }

  void write_suite(tinyxml2::XMLElement* root, const ReportSuite& suite, const Report& report) {
    Counts counts;
    double time = 0;
    for (const ReportCase& c : suite.cases) {
      counts.add(c.verdict);
      time += c.time;
    }
    tinyxml2::XMLElement* s = add(root, "testsuite");
    set(s, "name", suite_name(suite.name, report.variant));
    set(s, "tests", std::to_string(counts.tests));
    set(s, "failures", std::to_string(counts.failures));
    set(s, "errors", std::to_string(counts.errors));
    set(s, "skipped", std::to_string(counts.skipped));
    set(s, "time", format_seconds(time));
    write_properties(s, report);
    for (const ReportCase& c : suite.cases) write_case(s, c);
  }

  // The certificate's facts, or the variant alone, on every suite.
  void write_properties(tinyxml2::XMLElement* s, const Report& report) {
    std::vector<std::pair<std::string, std::string>> facts;
    if (report.certificate) {
      facts = certificate_properties(*report.certificate, report.variant);
    } else if (!report.variant.empty()) {
      facts.emplace_back(kVariantProperty, report.variant);
    }
    if (facts.empty()) return;
    tinyxml2::XMLElement* properties = add(s, "properties");
    for (const auto& [name, value] : facts) {
      tinyxml2::XMLElement* property = add(properties, "property");
      set(property, "name", name);
      set(property, "value", value);
    }
  }

  void write_case(tinyxml2::XMLElement* s, const ReportCase& c) {
    tinyxml2::XMLElement* tc = add(s, "testcase");
    set(tc, "name", c.name);
    set(tc, "classname", kClassPrefix + c.classname);
    set(tc, "time", format_seconds(c.time));
    const char* tag = c.verdict == Verdict::Failure ? "failure"
                      : c.verdict == Verdict::Error ? "error"
                      : c.verdict == Verdict::Skipped ? "skipped"
                                                      : nullptr;
    // The promise and where the case is declared first, whatever the verdict, so that a
    // dashboard can show and annotate every case; then a failure's or an error's output. A
    // pass shows no output, except the certificate's, which is its text.
    std::string shown = c.verdict == Verdict::Skipped ? std::string() : c.system_out;
    std::string head;
    if (!c.promise.empty()) head += kPromisePrefix + c.promise + "\n";
    if (!c.declared.empty()) head += kDeclaredPrefix + c.declared + "\n";
    if (!head.empty()) shown = head + (shown.empty() ? "" : "\n" + shown);
    if (tag) {
      tinyxml2::XMLElement* v = add(tc, tag);
      set(v, "message", c.message);
      if (!c.type.empty()) set(v, "type", c.type);
      text(v, c.body);
    }
    if (!shown.empty()) text(add(tc, "system-out"), shown);
  }

  tinyxml2::XMLDocument doc_;
};

}  // namespace

std::string write_junit(const Report& report) { return JunitWriter().write(report); }

}  // namespace kd::junit
