#include "junit_xml.hpp"

#include "junit_report.hpp"

namespace kd::junit {

std::string attr(const tinyxml2::XMLElement* element, const char* name) {
  const char* value = element != nullptr ? element->Attribute(name) : nullptr;
  return value ? value : "";
}

std::string all_text(const tinyxml2::XMLElement* element) {
  std::string text;
  if (element == nullptr) return text;
  for (const tinyxml2::XMLNode* node = element->FirstChild(); node; node = node->NextSibling()) {
    if (const tinyxml2::XMLText* piece = node->ToText()) text += piece->Value();
  }
  return text;
}

const tinyxml2::XMLElement* parse_report_xml(tinyxml2::XMLDocument& doc, const std::string& xml) {
  if (doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS)
    throw InputError(std::string("the report is not well-formed XML: ") + doc.ErrorStr());
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (!root || std::string(root->Name()) != "testsuites")
    throw InputError("the report's root is not <testsuites>");
  return root;
}

std::string suite_variant(const tinyxml2::XMLElement* suite) {
  const auto* props = suite != nullptr ? suite->FirstChildElement("properties") : nullptr;
  for (const auto* p = props ? props->FirstChildElement("property") : nullptr; p;
       p = p->NextSiblingElement("property")) {
    if (attr(p, "name") == kVariantProperty) return attr(p, "value");
  }
  return "";
}

}  // namespace kd::junit
