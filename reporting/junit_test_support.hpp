// What the converter's unit tests share: sample reports, a scratch folder, XML helpers.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cause_coverage.hpp"
#include "junit_report.hpp"
#include "junit_xml.hpp"

namespace kd::junit::testing {

namespace fs = std::filesystem;

// What CTest 3.25 writes, trimmed to the parts the converter reads.
inline const char* const kCtestJunit = R"xml(<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3" failures="1" disabled="1" skipped="1" hostname=""
  time="4" timestamp="2026-03-01T10:00:00">
  <testcase name="cli.run/usage_ok" classname="cli.run/usage_ok" time="0.5" status="run">
    <system-out>ok</system-out>
  </testcase>
  <testcase name="cli.run/bad" classname="cli.run/bad" time="1.25" status="fail">
    <failure message=""/>
    <system-out>[ RUN      ] cli.run/bad
line[NON-XML-CHAR-0x1]</system-out>
  </testcase>
  <testcase name="sh.missing" classname="sh.missing" time="0" status="notrun">
    <skipped message="Unable to find executable"/>
    <system-out>Unable to find executable: /nope</system-out>
  </testcase>
  <testcase name="sh.off" classname="sh.off" time="0" status="disabled">
    <system-out>Disabled</system-out>
  </testcase>
</testsuite>
)xml";

// Two layers, one case of each verdict: what write_junit is given in the tests below.
inline Report small_report(const std::string& variant = "", double time = 3) {
  Report report;
  report.title = "kd";
  report.time = time;
  report.variant = variant;
  ReportCase pass{"cli", "ok", 0.25, Verdict::Passed, "", "", "", ""};
  ReportCase fail{"cli", "bad", 1, Verdict::Failure, "assertion", "x < y", "line 1\nline 2 <&>",
                  "tail\n"};
  ReportCase skip{"cli", "gpu", 0, Verdict::Skipped, "", "no GPU", "", ""};
  ReportCase error{"probe", "crash", 0.5, Verdict::Error, "crash", "crashed", "crashed\n...", "t"};
  report.suites = {{"cli", {pass, fail, skip}}, {"probe", {error}}};
  return report;
}

inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The next sibling element named `name` (any for nullptr), or nullptr.
inline const xmlNode* next_element(const xmlNode* node, const char* name = nullptr) {
  for (node = node != nullptr ? node->next : nullptr; node != nullptr; node = node->next)
    if (node->type == XML_ELEMENT_NODE && (name == nullptr || is_element(node, name))) return node;
  return nullptr;
}

// The first child element named `name` (any for nullptr), or nullptr.
inline const xmlNode* first_element(const xmlNode* parent, const char* name = nullptr) {
  const std::vector<const xmlNode*> all = children(parent, name);
  return all.empty() ? nullptr : all.front();
}

// The attribute's value, valid while its document lives; nullptr when it is absent.
inline const char* attribute(const xmlNode* element, const char* name) {
  if (element == nullptr) return nullptr;
  const xmlAttr* a = xmlHasProp(element, reinterpret_cast<const xmlChar*>(name));
  if (a == nullptr) return nullptr;
  return a->children != nullptr ? reinterpret_cast<const char*>(a->children->content) : "";
}

// The element's first child's text, or nullptr when it holds none.
inline const char* text_of(const xmlNode* element) {
  const xmlNode* first = element != nullptr ? element->children : nullptr;
  if (first == nullptr || (first->type != XML_TEXT_NODE && first->type != XML_CDATA_SECTION_NODE))
    return nullptr;
  return reinterpret_cast<const char*>(first->content);
}

inline const char* name_of(const xmlNode* element) {
  return reinterpret_cast<const char*>(element->name);
}

// The root's element name and attributes as a dashboard reads them: "testsuites tests=4
// failures=1 errors=1 skipped=(none) time=3.000" (junit-10.xsd allows no skipped there).
inline std::string root_counts(const xmlNode* root) {
  std::string out = name_of(root);
  for (const char* name : {"tests", "failures", "errors", "skipped", "time"}) {
    const char* value = attribute(root, name);
    out += std::string(" ") + name + "=" + (value != nullptr ? value : "(none)");
  }
  return out;
}

inline std::vector<std::string> attribute_of_each(const xmlNode* parent, const char* child_name,
                                                  const char* name) {
  std::vector<std::string> values;
  for (const xmlNode* e : children(parent, child_name))
    values.emplace_back(attribute(e, name) ? attribute(e, name) : "(none)");
  return values;
}

// A folder of its own for one test, removed at the end.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name)
      : dir(fs::temp_directory_path() /
            ("kd-junit-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  void write(const fs::path& relative, const std::string& text) const {
    fs::create_directories((dir / relative).parent_path());
    std::ofstream(dir / relative) << text;
  }
};

// A certified report: a pass and a skip in cli, and with `failing` a failure in probe.
inline Report certified_report(bool failing) {
  Report report;
  report.title = "kd";
  report.variant = "pypi";
  ReportCase pass{"cli", "ok", 0.25, Verdict::Passed, "", "", "", ""};
  ReportCase skip{"cli", "gpu", 0, Verdict::Skipped, "", "no GPU", "", ""};
  ReportCase fail{"probe", "bad", 1, Verdict::Failure, "assertion", "wrong product",
                  "/src/x.cpp:3\nwrong product\ndetails", "tail"};
  report.suites = {{"cli", {pass, skip}}};
  if (failing) report.suites.push_back({"probe", {fail}});
  Certificate c;
  c.check_version = "1.0.0";
  c.commit = "abc";
  c.libtorch_version = "2.15.0";
  c.gpu_model = "NVIDIA H200";
  c.gpu_count = "1";
  c.gpu_declared = "yes";
  report.certificate = c;
  return report;
}

// A cause catalogue as kernodeck-causes --json prints it, trimmed to three rows; the second's
// words carry markup.
inline const char* const kSampleCauses = R"json([
  {"key": "no_device_nodes", "title": "no GPU device node in the container", "stage": "device",
   "code": "GPU_UNAVAILABLE", "exit_code": 6, "error_type": "NoDeviceNodes",
   "runtime_errors": [100, 999], "recognised": "runtime error 100 and no /dev/nvidiaN",
   "message": "No usable GPU in this process: no {vendor} device node.",
   "next_action": "Start the container with its GPUs exposed (--gpus or the device plugin)."},
  {"key": "loader_error", "title": "libtorch <not> loaded", "stage": "import",
   "code": "TORCH_IMPORT_FAILED", "exit_code": 4, "error_type": "LoaderError",
   "runtime_errors": [], "recognised": "any other words of the loader",
   "message": "libtorch was found but failed to load.",
   "next_action": "Check the libtorch package & its <b>dependencies</b> | all of them."},
  {"key": "gpu_fault", "title": "a GPU fault", "stage": "compute", "code": "RUNTIME_ERROR",
   "exit_code": 9, "error_type": "GpuFault", "runtime_errors": [700, 719],
   "recognised": "runtime error 700 or 719", "message": "The computation failed with a GPU fault.",
   "next_action": "Check dmesg for Xid errors and drain the node."}
])json";

inline Causes sample_causes() { return parse_causes(kSampleCauses, "sample"); }

// The check's report of this text.
inline CheckReport check(const std::string& text) { return parse_check_report(text); }

// The check's report of a case that failed with `type` in its error.
inline CheckReport check_naming(const std::string& type, const std::string& message);

// The report as it is rendered: its certificate's case added, its suites' properties set.
inline Report sealed(Report report) {
  seal(report);
  return report;
}

// The check's JSON report of a case that failed with `type` in its error.
inline std::string report_naming(const std::string& type, const std::string& message) {
  return "{\"tool\": {\"name\": \"kernodeck-diagnostic\"}, \"status\": \"failed\", "
         "\"message\": \"" + message + "\", \"error\": {\"type\": \"" + type +
         "\", \"message\": \"runtime error\"}}";
}

inline CheckReport check_naming(const std::string& type, const std::string& message) {
  return check(report_naming(type, message));
}

// The warning a torchvision made for another torch gives, as the check words it, with markup, a
// pipe and a newline in its words so that every view shows them escaped, on one line.
inline const char* const kSampleWarningMessage =
    "torchvision (torchvision 0.24.1) is made for torch==2.9.1, and this environment's torch is "
    "2.15.0+cu132 (CUDA 13.2). Let pip choose the torchvision release made for this torch: "
    "python -m pip install --upgrade \\\"torch==2.15.0\\\" torchvision <b>|</b>\\nwith this "
    "environment's python.";

// kSampleWarningMessage as a view shows it: the JSON escapes read, the newline a space.
inline const char* const kSampleWarningWords =
    "torchvision (torchvision 0.24.1) is made for torch==2.9.1, and this environment's torch is "
    "2.15.0+cu132 (CUDA 13.2). Let pip choose the torchvision release made for this torch: "
    "python -m pip install --upgrade \"torch==2.15.0\" torchvision <b>|</b> with this "
    "environment's python.";

// The check's JSON report with `status` ("passed" or "failed", with `error_type` in its error)
// whose warnings hold one ExtensionForOtherTorch of the application stage.
inline std::string report_warning(const std::string& status,
                                  const std::string& error_type = "") {
  const std::string error =
      error_type.empty() ? "null"
                         : "{\"type\": \"" + error_type + "\", \"message\": \"import failed\"}";
  return "{\"tool\": {\"name\": \"kernodeck-diagnostic\"}, \"status\": \"" + status +
         "\", \"stage\": \"" + (status == "passed" ? "complete" : "application") +
         "\", \"message\": \"the check said so.\", \"error\": " + error +
         ", \"warnings\": [{\"stage\": \"application\", \"type\": \"ExtensionForOtherTorch\", "
         "\"message\": \"" + kSampleWarningMessage + "\"}]}";
}

// The cause catalogue's rows of the application layer that the warning's and an extension's
// failed import name, as kernodeck-causes --json prints them.
inline const char* const kApplicationCauses = R"json([
  {"key": "extension_for_other_torch", "title": "an extension made for another torch",
   "stage": "application", "code": "EXTENSION_IMPORT_FAILED", "exit_code": 13,
   "error_type": "ExtensionForOtherTorch", "runtime_errors": [],
   "recognised": "its Requires-Dist on torch is not satisfied; listed without --import, a warning",
   "message": "{ext_module} is made for torch{ext_requirement}.",
   "next_action": "Let pip choose the {ext_name} release made for this torch."},
  {"key": "extension_import_error", "title": "an extension's import failed, cause not recognised",
   "stage": "application", "code": "EXTENSION_IMPORT_FAILED", "exit_code": 13,
   "error_type": "ExtensionImportError", "runtime_errors": [],
   "recognised": "any other exception raised by its import",
   "message": "{ext_module} failed to import with torch {torch_version}.",
   "next_action": "Run python -c \"import {ext_module}\" with that interpreter to see the whole error."}
])json";

inline Causes application_causes() { return parse_causes(kApplicationCauses, "application"); }

}  // namespace kd::junit::testing
