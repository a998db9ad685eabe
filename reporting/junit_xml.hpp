// Reading JUnit XML with tinyxml2: the few helpers the converter, the certificate and the
// HTML page share.
#pragma once

#include <tinyxml2.h>

#include <string>

namespace kd::junit {

// The attribute's value, or "" when the element or the attribute is absent.
std::string attr(const tinyxml2::XMLElement* element, const char* name);

// All the element's text: GoogleTest splits a "]]>" inside a message into several CDATA
// sections, so the text of an element is the concatenation of all its text children, not just
// the first. "" for a null element.
std::string all_text(const tinyxml2::XMLElement* element);

// Parses a report this tool wrote into `doc` and returns its <testsuites> root; throws
// InputError when the text is not well-formed or has another root.
const tinyxml2::XMLElement* parse_report_xml(tinyxml2::XMLDocument& doc, const std::string& xml);

// The build variant a <testsuite> names in its property kernodeck.variant, or "".
std::string suite_variant(const tinyxml2::XMLElement* suite);

}  // namespace kd::junit
