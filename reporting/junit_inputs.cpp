#include "junit_inputs.hpp"

#include "junit_text.hpp"
#include "junit_xml.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <system_error>
#include <utility>

namespace kd::junit {

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
      static const std::map<std::string, CtestStatus> kStatus{
          {"run", CtestStatus::Passed},
          {"fail", CtestStatus::Failed},
          {"notrun", CtestStatus::NotRun},
          {"disabled", CtestStatus::Disabled}};
      const auto status = kStatus.find(attr(tc, "status"));
      c.status = status != kStatus.end() ? status->second
                 : failure || error      ? CtestStatus::Failed
                 : skipped               ? CtestStatus::NotRun
                                         : CtestStatus::Passed;
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

// ---- The cases' records -----------------------------------------------------------------------

void CaseRecords::add(CaseRecord record, std::string source) {
  const auto it = entries_.find(record.name);
  if (it != entries_.end() && record.started < it->second.record.started) return;
  std::string key = record.name;
  entries_[std::move(key)] = Entry{std::move(record), std::move(source)};
}

const CaseRecords::Entry* CaseRecords::find(const std::string& name) const {
  const auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

CaseRecords load_records(const std::filesystem::path& dir, std::vector<std::string>& warnings) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError("case records folder " + dir.string() + " does not exist");
  CaseRecords records;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw InputError("cannot list " + dir.string() + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw InputError("cannot list " + dir.string() + ": " + ec.message());
    const fs::path& path = it->path();
    if (path.extension() != ".json" || !it->is_regular_file(ec)) continue;
    try {
      std::optional<CaseRecord> record =
          kdh::parse_record(read_input(path.string(), "case record"));
      if (record) {
        records.add(std::move(*record), path.string());
      } else {
        warnings.push_back("ignored " + path.string() + ": not a case record");
      }
    } catch (const InputError& e) {
      warnings.push_back(std::string("ignored ") + e.what());
    }
  }
  return records;
}

// ---- A run without CTest's JUnit ------------------------------------------------------------

CtestRun run_from_records(const CaseRecords& records) {
  CtestRun run;
  for (const auto& [name, entry] : records.entries()) {
    CtestCase c;
    c.name = name;
    c.status = CtestStatus::Started;
    c.time = entry.record.time;
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
