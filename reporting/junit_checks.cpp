#include "junit_checks.hpp"

#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlversion.h>

#include <memory>
#include <stdexcept>

#include "junit_xml.hpp"
#include "util/text.hpp"

namespace kd::junit {
namespace {

// libxml2 2.12 made the error it hands to a handler const.
#if LIBXML_VERSION >= 21200
using ErrorPointer = const xmlError*;
#else
using ErrorPointer = xmlError*;
#endif

// "line 3: Element 'bogus': This element is not expected."
std::string describe(ErrorPointer error) {
  const std::string message(trim(error->message != nullptr ? error->message : "unknown error"));
  return error->line > 0 ? "line " + std::to_string(error->line) + ": " + message : message;
}

void collect(void* errors, ErrorPointer error) {
  if (error != nullptr) static_cast<std::vector<std::string>*>(errors)->push_back(describe(error));
}

struct FreeSchema {
  void operator()(xmlSchemaParserCtxt* p) const { xmlSchemaFreeParserCtxt(p); }
  void operator()(xmlSchema* s) const { xmlSchemaFree(s); }
  void operator()(xmlSchemaValidCtxt* v) const { xmlSchemaFreeValidCtxt(v); }
};
template <typename T>
using Owned = std::unique_ptr<T, FreeSchema>;

// The built-in schema, parsed once. A schema that does not parse is a defect of the build.
xmlSchema* schema() {
  static const Owned<xmlSchema> parsed = [] {
    xmlInitParser();
    const std::string_view xsd = junit_xsd();
    Owned<xmlSchemaParserCtxt> context(
        xmlSchemaNewMemParserCtxt(xsd.data(), static_cast<int>(xsd.size())));
    std::vector<std::string> errors;
    if (context) xmlSchemaSetParserStructuredErrors(context.get(), collect, &errors);
    Owned<xmlSchema> s(context ? xmlSchemaParse(context.get()) : nullptr);
    if (!s) {
      throw std::logic_error("the built-in junit-10.xsd does not parse: " +
                             (errors.empty() ? std::string("no reason given") : errors.front()));
    }
    return s;
  }();
  return parsed.get();
}

bool without_reason(const std::string& message) {
  return message.rfind("SKIP_REGULAR_EXPRESSION_MATCHED", 0) == 0 ||
         message == "skipped by the test (no reason given)";
}

}  // namespace

std::vector<std::string> schema_errors(const std::string& xml) {
  xmlSchema* s = schema();
  XmlDoc doc;
  try {
    doc = parse_xml(xml, "");
  } catch (const InputError& e) {
    return {e.what()};
  }
  std::vector<std::string> errors;
  Owned<xmlSchemaValidCtxt> context(xmlSchemaNewValidCtxt(s));
  if (!context) throw std::bad_alloc();
  xmlSchemaSetValidStructuredErrors(context.get(), collect, &errors);
  const int result = xmlSchemaValidateDoc(context.get(), doc.get());
  if (result != 0 && errors.empty()) {
    errors.push_back(result < 0 ? "libxml2 could not validate the report (internal error " +
                                      std::to_string(result) + ")"
                                : "does not validate (libxml2 gave no reason)");
  }
  return errors;
}

std::vector<std::string> reasonless_skips(const Report& report) {
  std::vector<std::string> cases;
  for (const ReportSuite& suite : report.suites) {
    for (const ReportCase& c : suite.cases) {
      if (c.verdict == Verdict::Skipped && without_reason(c.message))
        cases.push_back(kClassPrefix + c.classname + "." + c.name);
    }
  }
  return cases;
}

}  // namespace kd::junit
