#include "junit_merge.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <initializer_list>
#include <map>
#include <optional>
#include <string_view>

#include "junit_text.hpp"

namespace kd::junit {
namespace {

// What a report of write_junit may hold: the elements and attributes junit-10.xsd allows where
// write_junit puts them, so that the merged report validates as its inputs did.

[[noreturn]] void not_a_report(const std::string& source, const std::string& why) {
  throw InputError(source + " is not a report kernodeck-junit wrote: " + why);
}

std::string describe(const tinyxml2::XMLElement* e) {
  const char* name = e->Attribute("name");
  return std::string("<") + e->Name() + (name ? std::string(" name=\"") + name + "\"" : "") + ">";
}

bool is(const tinyxml2::XMLElement* e, std::string_view name) { return e->Name() == name; }

void allow_only(const std::string& source, const tinyxml2::XMLElement* e,
                std::initializer_list<std::string_view> allowed) {
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
    if (std::find(allowed.begin(), allowed.end(), std::string_view(a->Name())) == allowed.end())
      not_a_report(source, describe(e) + " has the attribute " + a->Name() +
                               ", which junit-10.xsd does not allow there");
  }
}

// An element that holds text only: a verdict, <system-out>, <system-err>.
void text_only(const std::string& source, const tinyxml2::XMLElement* e) {
  if (const tinyxml2::XMLElement* child = e->FirstChildElement())
    not_a_report(source, describe(e) + " holds <" + child->Name() + ">");
}

std::size_t count_attribute(const std::string& source, const tinyxml2::XMLElement* e,
                            const char* name) {
  const char* text = e->Attribute(name);
  if (!text) not_a_report(source, describe(e) + " has no " + name);
  const char* end = text + std::strlen(text);
  std::size_t value = 0;
  const auto [stop, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || stop != end || stop == text)
    not_a_report(source, describe(e) + " " + name + "=\"" + text + "\" is not a count");
  return value;
}

void expect_count(const std::string& source, const tinyxml2::XMLElement* e, const char* name,
                  std::size_t actual) {
  const std::size_t said = count_attribute(source, e, name);
  if (said != actual)
    not_a_report(source, describe(e) + " says " + name + "=" + std::to_string(said) +
                             " but its cases make " + std::to_string(actual));
}

double seconds_attribute(const std::string& source, const tinyxml2::XMLElement* e) {
  const char* text = e->Attribute("time");
  if (!text) not_a_report(source, describe(e) + " has no time");
  const char* end = text + std::strlen(text);
  double value = 0;
  const auto [stop, ec] = std::from_chars(text, end, value, std::chars_format::fixed);
  if (ec != std::errc() || stop != end || stop == text || !(value >= 0))
    not_a_report(source, describe(e) + " time=\"" + text + "\" is not a number of seconds");
  return value;
}

Verdict case_verdict(const std::string& source, const tinyxml2::XMLElement* tc) {
  allow_only(source, tc, {"name", "time", "classname", "group"});
  if (!tc->Attribute("name")) not_a_report(source, "a <testcase> has no name");
  std::optional<Verdict> verdict;
  for (const auto* child = tc->FirstChildElement(); child; child = child->NextSiblingElement()) {
    text_only(source, child);
    if (is(child, "system-out") || is(child, "system-err")) {
      allow_only(source, child, {});
      continue;
    }
    Verdict found = Verdict::Passed;
    if (is(child, "failure")) {
      found = Verdict::Failure;
    } else if (is(child, "error")) {
      found = Verdict::Error;
    } else if (is(child, "skipped")) {
      found = Verdict::Skipped;
    } else {
      not_a_report(source, describe(tc) + " holds <" + child->Name() + ">");
    }
    allow_only(source, child, {"type", "message"});
    if (verdict) not_a_report(source, describe(tc) + " has more than one verdict");
    verdict = found;
  }
  return verdict.value_or(Verdict::Passed);
}

// Checks one <testsuite> against its cases and returns their counts.
Counts suite_counts(const std::string& source, const tinyxml2::XMLElement* suite) {
  allow_only(source, suite,
             {"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp",
              "hostname", "id", "package", "file", "log", "url"});
  if (!suite->Attribute("name")) not_a_report(source, "a <testsuite> has no name");
  if (suite->Attribute("time")) seconds_attribute(source, suite);
  Counts counts;
  for (const auto* child = suite->FirstChildElement(); child;
       child = child->NextSiblingElement()) {
    if (is(child, "testcase")) {
      counts.add(case_verdict(source, child));
    } else if (is(child, "properties")) {
      allow_only(source, child, {});
      for (const auto* p = child->FirstChildElement(); p; p = p->NextSiblingElement()) {
        if (!is(p, "property") || !p->Attribute("name") || !p->Attribute("value"))
          not_a_report(source, describe(suite) + " has a property that is not one");
        allow_only(source, p, {"name", "value"});
        text_only(source, p);
      }
    } else if (is(child, "system-out") || is(child, "system-err")) {
      allow_only(source, child, {});
      text_only(source, child);
    } else {
      not_a_report(source, describe(suite) + " holds <" + child->Name() + ">");
    }
  }
  expect_count(source, suite, "tests", counts.tests);
  expect_count(source, suite, "failures", counts.failures);
  expect_count(source, suite, "errors", counts.errors);
  if (suite->Attribute("skipped")) expect_count(source, suite, "skipped", counts.skipped);
  return counts;
}

void add_all(Counts& into, const Counts& c) {
  into.tests += c.tests;
  into.passed += c.passed;
  into.failures += c.failures;
  into.errors += c.errors;
  into.skipped += c.skipped;
}

}  // namespace

Merged merge_reports(const std::vector<MergeInput>& inputs, const std::string& title) {
  tinyxml2::XMLDocument out;
  out.InsertEndChild(out.NewDeclaration());
  tinyxml2::XMLElement* root = out.NewElement("testsuites");
  out.InsertEndChild(root);

  Merged merged;
  double time = 0;
  std::map<std::string, std::string> suite_source;  // which input a suite name came from
  for (const MergeInput& input : inputs) {
    const std::string& source = input.source;
    tinyxml2::XMLDocument doc;
    if (doc.Parse(input.xml.data(), input.xml.size()) != tinyxml2::XML_SUCCESS)
      not_a_report(source, std::string("not well-formed XML: ") + doc.ErrorStr());
    const tinyxml2::XMLElement* in = doc.RootElement();
    if (!in) not_a_report(source, "no root element");
    if (!is(in, "testsuites"))
      not_a_report(source, std::string("its root is <") + in->Name() + ">, not <testsuites>");
    allow_only(source, in, {"name", "time", "tests", "failures", "errors"});

    Counts counts;
    for (const auto* s = in->FirstChildElement(); s; s = s->NextSiblingElement()) {
      if (!is(s, "testsuite")) not_a_report(source, std::string("<testsuites> holds <") +
                                                         s->Name() + ">");
      add_all(counts, suite_counts(source, s));
    }
    expect_count(source, in, "tests", counts.tests);
    expect_count(source, in, "failures", counts.failures);
    expect_count(source, in, "errors", counts.errors);
    time += seconds_attribute(source, in);
    add_all(merged.counts, counts);

    for (const auto* s = in->FirstChildElement(); s; s = s->NextSiblingElement()) {
      const auto [it, first] = suite_source.emplace(s->Attribute("name"), source);
      if (!first)
        merged.warnings.push_back("suite \"" + it->first + "\" is in both " + it->second +
                                  " and " + source +
                                  ": a dashboard may show their cases as one; convert each "
                                  "build with its own --variant");
      root->InsertEndChild(s->DeepClone(&out));
    }
  }

  auto set = [root](const char* name, const std::string& value) {
    root->SetAttribute(name, xml_safe(one_line(value)).c_str());
  };
  set("name", title);
  set("tests", std::to_string(merged.counts.tests));
  set("failures", std::to_string(merged.counts.failures));
  set("errors", std::to_string(merged.counts.errors));
  set("time", format_seconds(time));

  tinyxml2::XMLPrinter printer;
  out.Print(&printer);
  merged.xml.assign(printer.CStr(), static_cast<std::size_t>(printer.CStrSize() - 1));
  return merged;
}

}  // namespace kd::junit
