#include "junit_xml.hpp"

#include <libxml/parser.h>

#include <climits>
#include <map>
#include <optional>
#include <utility>

#include "junit_checks.hpp"
#include "junit_text.hpp"

namespace kd::junit {
namespace {

// ---- writing ---------------------------------------------------------------------------------

using Attributes = std::vector<std::pair<const char*, std::string>>;

// One element per line, four spaces deeper per level; one that holds text holds it inline. Text
// is made safe for XML 1.0 (seal() did so already: nothing unsafe is ever written) and escaped;
// an attribute on one line, its quotes escaped too.
class Writer {
 public:
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

  void open(const char* name, const Attributes& attributes) {
    start(name, attributes);
    out += ">\n";
    ++depth_;
  }
  void close(const char* name) {
    --depth_;
    indent();
    out += std::string("</") + name + ">\n";
  }
  // An element holding `text`, or empty.
  void leaf(const char* name, const Attributes& attributes, const std::string& text = "") {
    start(name, attributes);
    if (text.empty()) {
      out += "/>\n";
      return;
    }
    out += ">" + escape_markup(xml_safe(text), false) + "</" + name + ">\n";
  }

 private:
  void indent() { out.append(static_cast<std::size_t>(depth_) * 4, ' '); }
  void start(const char* name, const Attributes& attributes) {
    indent();
    out += std::string("<") + name;
    for (const auto& [key, value] : attributes)
      out += std::string(" ") + key + "=\"" + escape_markup(xml_safe(one_line(value))) + "\"";
  }
  int depth_ = 0;
};

// The element of each verdict but a pass.
constexpr std::pair<const char*, Verdict> kVerdictTags[] = {
    {"failure", Verdict::Failure}, {"error", Verdict::Error}, {"skipped", Verdict::Skipped}};

const char* verdict_tag(Verdict verdict) {
  for (const auto& [tag, v] : kVerdictTags)
    if (v == verdict) return tag;
  return nullptr;
}

void write_case(Writer& w, const ReportCase& c) {
  const Attributes attributes{{"name", c.name},
                              {"classname", kClassPrefix + c.classname},
                              {"time", format_seconds(c.time)}};
  // The promise and where the case is declared first, whatever the verdict, so that a
  // dashboard can show and annotate every case, and the warnings of its report, which a pass
  // keeps too; then a failure's or an error's output. A pass shows no output, except the
  // certificate's, which is its text.
  std::string shown = c.verdict == Verdict::Skipped ? std::string() : c.system_out;
  std::string head;
  if (!c.promise.empty()) head += kPromisePrefix + c.promise + "\n";
  if (!c.declared.empty()) head += kDeclaredPrefix + c.declared + "\n";
  for (const std::string& warning : c.warnings) head += kWarningPrefix + warning + "\n";
  if (!head.empty()) shown = head + (shown.empty() ? "" : "\n" + shown);
  const char* tag = verdict_tag(c.verdict);
  if (tag == nullptr && shown.empty()) {
    w.leaf("testcase", attributes);
    return;
  }
  w.open("testcase", attributes);
  if (tag != nullptr) {
    Attributes verdict{{"message", c.message}};
    if (!c.type.empty()) verdict.emplace_back("type", c.type);
    w.leaf(tag, verdict, c.body);
  }
  if (!shown.empty()) w.leaf("system-out", {}, shown);
  w.close("testcase");
}

void write_suite(Writer& w, const ReportSuite& suite) {
  Counts counts;
  double time = 0;
  for (const ReportCase& c : suite.cases) {
    counts.add(c.verdict);
    time += c.time;
  }
  const Attributes attributes{{"name", suite_name(suite.name, suite.variant)},
                              {"tests", std::to_string(counts.tests)},
                              {"failures", std::to_string(counts.failures)},
                              {"errors", std::to_string(counts.errors)},
                              {"skipped", std::to_string(counts.skipped)},
                              {"time", format_seconds(suite.time.value_or(time))}};
  if (suite.properties.empty() && suite.cases.empty()) {
    w.leaf("testsuite", attributes);
    return;
  }
  w.open("testsuite", attributes);
  if (!suite.properties.empty()) {
    w.open("properties", {});
    for (const auto& [name, value] : suite.properties)
      w.leaf("property", {{"name", name}, {"value", value}});
    w.close("properties");
  }
  for (const ReportCase& c : suite.cases) write_case(w, c);
  w.close("testsuite");
}

// ---- reading ---------------------------------------------------------------------------------

// What follows `prefix` on the first line of `text`, which is consumed with it; nullopt when
// the text does not start with it.
std::optional<std::string> take_line(std::string& text, const char* prefix) {
  const std::string p = prefix;
  if (text.compare(0, p.size(), p) != 0) return std::nullopt;
  const std::size_t eol = text.find('\n');
  std::string line = text.substr(p.size(), eol == std::string::npos ? std::string::npos
                                                                     : eol - p.size());
  text.erase(0, eol == std::string::npos ? text.size() : eol + 1);
  return line;
}

ReportCase read_case(const xmlNode* tc) {
  ReportCase c;
  c.name = attr(tc, "name");
  c.classname = attr(tc, "classname");
  if (c.classname.rfind(kClassPrefix, 0) == 0)
    c.classname = c.classname.substr(std::string(kClassPrefix).size());
  c.time = parse_double(attr(tc, "time"));
  for (const auto& [tag, verdict] : kVerdictTags) {
    if (const xmlNode* e = child(tc, tag)) {
      c.verdict = verdict;
      c.type = attr(e, "type");
      c.message = attr(e, "message");
      c.body = all_text(e);
    }
  }
  std::string out = all_text(child(tc, "system-out"));
  const std::optional<std::string> promise = take_line(out, kPromisePrefix);
  const std::optional<std::string> declared = take_line(out, kDeclaredPrefix);
  // The warnings end the head, which a blank line parts from the output: lines of the output
  // that only look alike stay in it.
  std::string rest = out;
  std::vector<std::string> warnings;
  while (std::optional<std::string> warning = take_line(rest, kWarningPrefix))
    warnings.push_back(std::move(*warning));
  if (!warnings.empty() && (rest.empty() || rest.front() == '\n')) {
    out = std::move(rest);
    c.warnings = std::move(warnings);
  }
  if ((promise || declared || !c.warnings.empty()) && out.rfind('\n', 0) == 0) out.erase(0, 1);
  c.promise = promise.value_or("");
  c.declared = declared.value_or("");
  c.system_out = out;
  return c;
}

ReportSuite read_suite(const xmlNode* s) {
  ReportSuite suite;
  for (const xmlNode* p : children(child(s, "properties"), "property")) {
    suite.properties.emplace_back(attr(p, "name"), attr(p, "value"));
    if (suite.properties.back().first == kVariantProperty)
      suite.variant = suite.properties.back().second;
  }
  suite.name = attr(s, "name");
  const std::string tail = " [" + suite.variant + "]";
  if (!suite.variant.empty() && suite.name.size() > tail.size() &&
      suite.name.compare(suite.name.size() - tail.size(), tail.size(), tail) == 0)
    suite.name.erase(suite.name.size() - tail.size());
  suite.time = parse_double(attr(s, "time"));
  for (const xmlNode* tc : children(s, "testcase")) suite.cases.push_back(read_case(tc));
  return suite;
}

}  // namespace

std::string write_junit(const Report& report) {
  Writer w;
  const Counts all = report.counts();
  w.open("testsuites", {{"name", report.title},
                        {"tests", std::to_string(all.tests)},
                        {"failures", std::to_string(all.failures)},
                        {"errors", std::to_string(all.errors)},
                        {"time", format_seconds(report.time)}});
  for (const ReportSuite& suite : report.suites) write_suite(w, suite);
  w.close("testsuites");
  return w.out;
}

Report read_junit(const std::string& xml, const std::string& source) {
  const std::string refused = source + " is not a report kernodeck-junit wrote: ";
  const XmlDoc doc = parse_xml(xml, source);
  const xmlNode* root = root_of(doc);
  if (!is_element(root, "testsuites"))
    throw InputError(refused + "its root is not <testsuites>");
  if (const std::vector<std::string> errors = schema_errors(xml); !errors.empty())
    throw InputError(refused + "it does not validate against junit-10.xsd: " + errors.front());
  Report report;
  report.title = attr(root, "name");
  report.time = parse_double(attr(root, "time"));
  for (const xmlNode* s : children(root, "testsuite")) report.suites.push_back(read_suite(s));
  return report;
}

Report merge_reports(std::vector<Report> reports, const std::vector<std::string>& sources,
                     const std::string& title, std::vector<std::string>& warnings) {
  Report merged;
  merged.title = xml_safe(one_line(title));
  std::map<std::string, std::string> suite_source;  // which input a suite name came from
  for (std::size_t i = 0; i < reports.size(); ++i) {
    merged.time += reports[i].time;
    for (ReportSuite& suite : reports[i].suites) {
      const auto [it, first] =
          suite_source.emplace(suite_name(suite.name, suite.variant), sources.at(i));
      if (!first)
        warnings.push_back("suite \"" + it->first + "\" is in both " + it->second + " and " +
                           sources.at(i) +
                           ": a dashboard may show their cases as one; convert each build with "
                           "its own --variant");
      merged.suites.push_back(std::move(suite));
    }
  }
  return merged;
}

// ---- libxml2 ---------------------------------------------------------------------------------

XmlDoc parse_xml(const std::string& xml, const std::string& what) {
  const std::string named = what.empty() ? "" : what + ": ";
  if (xml.size() > static_cast<std::size_t>(INT_MAX)) throw InputError(named + "too large");
  XmlDoc doc(xmlReadMemory(xml.data(), static_cast<int>(xml.size()), nullptr, nullptr,
                           XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                               XML_PARSE_HUGE));
  if (!doc) {
    const xmlError* error = xmlGetLastError();
    std::string why = error != nullptr && error->message != nullptr ? error->message : "";
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    if (error != nullptr && error->line > 0)
      why = "line " + std::to_string(error->line) + ": " + why;
    throw InputError(named + "not well-formed XML: " + (why.empty() ? "no reason given" : why));
  }
  return doc;
}

const xmlNode* root_of(const XmlDoc& doc) { return xmlDocGetRootElement(doc.get()); }

bool is_element(const xmlNode* node, const char* name) {
  return node != nullptr && node->type == XML_ELEMENT_NODE &&
         std::string(reinterpret_cast<const char*>(node->name)) == name;
}

std::vector<const xmlNode*> children(const xmlNode* parent, const char* name) {
  std::vector<const xmlNode*> out;
  if (parent == nullptr) return out;
  for (const xmlNode* n = parent->children; n != nullptr; n = n->next) {
    if (n->type == XML_ELEMENT_NODE && (name == nullptr || is_element(n, name))) out.push_back(n);
  }
  return out;
}

const xmlNode* child(const xmlNode* parent, const char* name) {
  if (parent == nullptr) return nullptr;
  for (const xmlNode* n = parent->children; n != nullptr; n = n->next)
    if (is_element(n, name)) return n;
  return nullptr;
}

std::string attr(const xmlNode* element, const char* name) {
  if (element == nullptr) return "";
  xmlChar* value = xmlGetProp(element, reinterpret_cast<const xmlChar*>(name));
  if (value == nullptr) return "";
  std::string out(reinterpret_cast<const char*>(value));
  xmlFree(value);
  return out;
}

std::string all_text(const xmlNode* element) {
  std::string text;
  if (element == nullptr) return text;
  for (const xmlNode* n = element->children; n != nullptr; n = n->next) {
    if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) && n->content != nullptr)
      text += reinterpret_cast<const char*>(n->content);
  }
  return text;
}

}  // namespace kd::junit
