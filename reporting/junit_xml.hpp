// JUnit XML: the report model (junit_report.hpp) written as junit.xml, valid against
// junit-10.xsd, and such a report read back into the model (what merging does); with the
// libxml2 helpers the readers of CTest's JUnit and of a written report share.
//
//   std::string xml = write_junit(report);
//   Report again = read_junit(xml, "reports/debian/junit.xml");
#pragma once

#include <libxml/tree.h>

#include <memory>
#include <string>
#include <vector>

#include "junit_report.hpp"

namespace kd::junit {

// The report as junit.xml: four spaces of indentation, attributes on one line, text safe for
// XML 1.0 (call seal() first), the suite's time its cases' unless read from a report.
std::string write_junit(const Report& report);

// A report write_junit wrote, as the model: each suite's variant and properties, each case's
// promise, declaration and warnings from its <system-out>. An InputError naming `source` when it is not
// such a report (not well-formed, another root, or not valid against junit-10.xsd).
Report read_junit(const std::string& xml, const std::string& source);

// Reports read_junit read, one per variant, merged into one: their suites in the order given,
// unchanged, their times summed, counted anew. A suite name two of them share (a dashboard may
// show their cases as one) is warned about, naming the two `sources`.
Report merge_reports(std::vector<Report> reports, const std::vector<std::string>& sources,
                     const std::string& title, std::vector<std::string>& warnings);

// ---- libxml2 ---------------------------------------------------------------------------------

struct FreeXmlDoc {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
using XmlDoc = std::unique_ptr<xmlDoc, FreeXmlDoc>;

// Parsed without the network; an InputError "<what>: not well-formed XML: line 3: ..." otherwise
// (without "<what>: " for an empty `what`).
XmlDoc parse_xml(const std::string& xml, const std::string& what);

// The root element; nullptr for none.
const xmlNode* root_of(const XmlDoc& doc);

// Whether `node` is the element `name`.
bool is_element(const xmlNode* node, const char* name);

// The child elements named `name` (every child element for nullptr), in order.
std::vector<const xmlNode*> children(const xmlNode* parent, const char* name = nullptr);

// The first child element named `name`, or nullptr.
const xmlNode* child(const xmlNode* parent, const char* name);

// The attribute's value, or "" when the element or the attribute is absent.
std::string attr(const xmlNode* element, const char* name);

// All the element's text and CDATA children joined (GoogleTest splits a "]]>" inside a message
// into several CDATA sections); "" for a null element.
std::string all_text(const xmlNode* element);

}  // namespace kd::junit
