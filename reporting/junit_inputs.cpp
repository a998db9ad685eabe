#include "junit_inputs.hpp"

#include "junit_text.hpp"
#include "junit_xml.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <set>
#include <system_error>
#include <utility>

#include "util/text.hpp"

namespace kd::junit {
namespace {

bool is_started_mark(const std::filesystem::path& path) {
  const std::string file = path.filename().string();
  const std::string suffix = kStartedSuffix;
  return file.size() > suffix.size() &&
         file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<StartedCase> read_started_mark(const std::filesystem::path& path) {
  const std::string text = read_input(path.string(), "GoogleTest output");
  std::vector<StartedCase> cases;
  for (std::string_view line : split_lines(text)) {
    if (std::optional<StartedCase> c = parse_started_line(trim(line))) cases.push_back(*c);
  }
  return cases;
}

}  // namespace

// ---- CTest's JUnit ---------------------------------------------------------------------------

CtestRun parse_ctest_junit(const std::string& xml) {
  const XmlDoc doc = parse_xml(xml, "CTest JUnit");
  const xmlNode* root = root_of(doc);
  if (!root) throw InputError("CTest JUnit has no root element");

  // CTest writes one <testsuite>; a <testsuites> wrapper is accepted for other versions.
  std::vector<const xmlNode*> suites;
  if (is_element(root, "testsuite")) {
    suites.push_back(root);
  } else if (is_element(root, "testsuites")) {
    suites = children(root, "testsuite");
  } else {
    throw InputError(std::string("CTest JUnit has root <") +
                     reinterpret_cast<const char*>(root->name) + ">, expected <testsuite>");
  }

  CtestRun run;
  run.timestamp = attr(suites.empty() ? root : suites.front(), "timestamp");
  run.time = parse_double(attr(root, "time"));
  for (const auto* suite : suites) {
    for (const xmlNode* tc : children(suite, "testcase")) {
      CtestCase c;
      c.name = attr(tc, "name");
      if (c.name.empty()) throw InputError("CTest JUnit has a testcase without a name");
      c.time = parse_double(attr(tc, "time"));
      const xmlNode* failure = child(tc, "failure");
      const xmlNode* error = child(tc, "error");
      const xmlNode* skipped = child(tc, "skipped");
      c.output = all_text(child(tc, "system-out"));
      const std::string status = attr(tc, "status");
      if (status == "run") {
        c.status = CtestStatus::Passed;
      } else if (status == "fail") {
        c.status = CtestStatus::Failed;
      } else if (status == "notrun") {
        c.status = CtestStatus::NotRun;
      } else if (status == "disabled") {
        c.status = CtestStatus::Disabled;
      } else if (failure || error) {
        c.status = CtestStatus::Failed;
      } else if (skipped) {
        c.status = CtestStatus::NotRun;
      } else {
        c.status = CtestStatus::Passed;
      }
      if (c.status == CtestStatus::NotRun && skipped) c.reason = attr(skipped, "message");
      if (c.status == CtestStatus::Failed) {
        if (failure) c.reason = attr(failure, "message");
        if (error && c.reason.empty()) c.reason = attr(error, "message");
      }
      run.cases.push_back(std::move(c));
    }
  }
  return run;
}

// ---- GoogleTest's XML ------------------------------------------------------------------------

std::vector<GtestCase> parse_gtest_xml(const std::string& xml, const std::string& source) {
  const XmlDoc doc = parse_xml(xml, source);
  const xmlNode* root = root_of(doc);
  if (!is_element(root, "testsuites")) return {};

  std::vector<GtestCase> cases;
  for (const xmlNode* suite : children(root, "testsuite")) {
    for (const xmlNode* tc : children(suite, "testcase")) {
      // A case GoogleTest listed but did not run carries no verdict.
      if (attr(tc, "status") == "notrun" || attr(tc, "result") == "suppressed") continue;
      GtestCase c;
      c.suite = attr(suite, "name");
      if (c.suite.empty()) c.suite = attr(tc, "classname");
      c.name = attr(tc, "name");
      if (c.suite.empty() || c.name.empty()) continue;
      c.source = source;
      c.timestamp = attr(tc, "timestamp");
      c.time = parse_double(attr(tc, "time"));
      c.file = attr(tc, "file");
      c.line = static_cast<int>(std::min(parse_double(attr(tc, "line")), 1e9));
      if (c.file.empty() || c.line <= 0) {
        c.file.clear();
        c.line = 0;
      }
      const std::string param = attr(tc, "value_param");
      if (const std::size_t at = param.find(" guards: "); at != std::string::npos)
        c.promise = param.substr(at + 9);
      if (c.timestamp.empty()) c.timestamp = attr(suite, "timestamp");
      if (c.timestamp.empty()) c.timestamp = attr(root, "timestamp");
      for (const xmlNode* f : children(tc, "failure")) {
        std::string text = all_text(f);
        if (trim(text).empty()) text = attr(f, "message");
        if (trim(text).empty()) text = "(GoogleTest recorded a failure without text)";
        c.failures.push_back(std::move(text));
      }
      const xmlNode* skip = child(tc, "skipped");
      c.skipped = attr(tc, "result") == "skipped" || skip != nullptr;
      if (skip) {
        c.skip_text = all_text(skip);
        if (trim(c.skip_text).empty()) c.skip_text = attr(skip, "message");
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

void GtestIndex::add(GtestCase c) {
  std::string key = c.full_name();
  auto it = cases_.find(key);
  if (it == cases_.end()) {
    cases_.emplace(std::move(key), std::move(c));
  } else if (c.timestamp > it->second.timestamp) {
    it->second = std::move(c);
  }
}

void GtestIndex::add_started(StartedCase c) {
  std::string key = c.name;
  started_[std::move(key)] = std::move(c);
}

const GtestCase* GtestIndex::find(const std::string& full_name) const {
  auto it = cases_.find(full_name);
  return it == cases_.end() ? nullptr : &it->second;
}

std::string GtestIndex::declared(const std::string& full_name) const {
  if (const GtestCase* c = find(full_name); c != nullptr && !c->file.empty())
    return declaration(c->file, c->line);
  const auto mark = started_.find(full_name);
  return mark == started_.end() ? "" : declaration(mark->second.file, mark->second.line);
}

std::string declaration(const std::string& file, int line) {
  return file.empty() || line <= 0 ? "" : file + ":" + std::to_string(line);
}

GtestIndex load_gtest_dir(const std::filesystem::path& dir, std::vector<std::string>& warnings) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError("GoogleTest XML folder " + dir.string() + " does not exist");
  GtestIndex index;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw InputError("cannot list " + dir.string() + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw InputError("cannot list " + dir.string() + ": " + ec.message());
    const fs::path& path = it->path();
    const bool mark = is_started_mark(path);
    if ((path.extension() != ".xml" && !mark) || !it->is_regular_file(ec)) continue;
    try {
      if (mark) {
        for (StartedCase& c : read_started_mark(path)) index.add_started(std::move(c));
      } else {
        const std::string xml = read_input(path.string(), "GoogleTest output");
        for (GtestCase& c : parse_gtest_xml(xml, path.string())) index.add(std::move(c));
      }
    } catch (const InputError& e) {
      warnings.push_back(std::string("ignored ") + e.what());
    }
  }
  return index;
}

// ---- A run without CTest's JUnit ------------------------------------------------------------

CtestRun run_from_started(const GtestIndex& gtest) {
  std::set<std::string> names;
  for (const auto& [name, c] : gtest.cases()) names.insert(name);
  for (const auto& [name, c] : gtest.started()) names.insert(name);
  CtestRun run;
  for (const std::string& name : names) {
    CtestCase c;
    c.name = name;
    c.status = CtestStatus::Started;
    if (const GtestCase* g = gtest.find(name)) c.time = g->time;
    run.cases.push_back(std::move(c));
  }
  return run;
}

// ---- ctest --show-only=json-v1 ---------------------------------------------------------------

std::map<std::string, TestInfo> parse_ctest_tests_json(const std::string& text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("ctest --show-only=json-v1 output is not JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("tests") || !doc["tests"].is_array())
    throw InputError("ctest --show-only=json-v1 output has no \"tests\" array");

  std::map<std::string, TestInfo> infos;
  for (const auto& test : doc["tests"]) {
    if (!test.is_object() || !test.contains("name") || !test["name"].is_string()) continue;
    TestInfo info;
    if (test.contains("command") && test["command"].is_array()) {
      for (const auto& arg : test["command"]) {
        if (!arg.is_string()) continue;
        const std::string a = arg.get<std::string>();
        if (a.rfind("--gtest_filter=", 0) == 0) {
          info.gtest = true;
          const std::string filter = a.substr(15);
          // Only a filter naming exactly one test is a name; GoogleTest names never hold
          // these characters.
          if (filter.find_first_of("*?:-") == std::string::npos) info.gtest_name = filter;
        } else if (a.rfind("--gtest_output=", 0) == 0) {
          info.gtest = true;
        }
      }
    }
    if (test.contains("properties") && test["properties"].is_array()) {
      for (const auto& property : test["properties"]) {
        if (!property.is_object() || !property.contains("name") || !property.contains("value"))
          continue;
        const auto& value = property["value"];
        if (property["name"] == "TIMEOUT") {
          if (value.is_number()) {
            info.timeout = value.get<double>();
          } else if (value.is_string()) {
            info.timeout = parse_double(value.get<std::string>());
          }
        } else if (property["name"] == "WILL_FAIL") {
          if (value.is_boolean()) {
            info.will_fail = value.get<bool>();
          } else if (value.is_string()) {
            std::string v = value.get<std::string>();
            std::transform(v.begin(), v.end(), v.begin(),
                           [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
            info.will_fail = v == "1" || v == "ON" || v == "TRUE" || v == "YES" || v == "Y";
          }
        }
      }
    }
    if (info.timeout && *info.timeout <= 0) info.timeout.reset();  // 0 means "no limit"
    infos[test["name"].get<std::string>()] = std::move(info);
  }
  return infos;
}

}  // namespace kd::junit
