#include "junit_inputs.hpp"

#include "junit_text.hpp"
#include "junit_xml.hpp"

#include <nlohmann/json.hpp>

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
  using nlohmann::json;
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw InputError("ctest --show-only=json-v1 output is not JSON");
  if (!doc.is_object() || !doc.contains("tests") || !doc["tests"].is_array())
    throw InputError("ctest --show-only=json-v1 output has no \"tests\" array");
  // The array `key` of a test, or none.
  const auto array_at = [](const json& test, const char* key) {
    const auto it = test.find(key);
    return it != test.end() && it->is_array() ? *it : json::array();
  };
  std::map<std::string, TestInfo> infos;
  for (const json& test : doc["tests"]) {
    if (!test.is_object() || !test.contains("name") || !test["name"].is_string()) continue;
    TestInfo info;
    for (const json& arg : array_at(test, "command")) {
      const std::string a = arg.is_string() ? arg.get<std::string>() : "";
      if (a.rfind("--gtest_output=", 0) == 0) info.gtest = true;
      if (a.rfind("--gtest_filter=", 0) != 0) continue;
      info.gtest = true;
      // Only a filter naming exactly one test is a name; GoogleTest names never hold these.
      if (a.find_first_of("*?:-", 15) == std::string::npos) info.gtest_name = a.substr(15);
    }
    // CTest writes TIMEOUT as a number of seconds (0: no limit) and WILL_FAIL as a boolean.
    for (const json& property : array_at(test, "properties")) {
      if (!property.is_object()) continue;
      const json name = property.value("name", json()), value = property.value("value", json());
      if (name == "TIMEOUT" && value.is_number() && value.get<double>() > 0)
        info.timeout = value.get<double>();
      if (name == "WILL_FAIL" && value.is_boolean()) info.will_fail = value.get<bool>();
    }
    infos[test["name"].get<std::string>()] = std::move(info);
  }
  return infos;
}

}  // namespace kd::junit
