#include "junit_inputs.hpp"

#include "junit_text.hpp"
#include "junit_xml.hpp"

#include <nlohmann/json.hpp>

#include <utility>

namespace kd::junit {

// ---- CTest's JUnit ---------------------------------------------------------------------------

CtestRun parse_ctest_junit(const std::string& xml) {
  const XmlDoc doc = parse_xml(xml, "CTest JUnit");
  const xmlNode* root = root_of(doc);
  if (!root) throw InputError("CTest JUnit has no root element");

  // CTest writes one <testsuite>, and each testcase's status.
  if (!is_element(root, "testsuite"))
    throw InputError(std::string("CTest JUnit has root <") +
                     reinterpret_cast<const char*>(root->name) + ">, expected <testsuite>");
  static const std::map<std::string, CtestStatus> kStatus{{"run", CtestStatus::Passed},
                                                          {"fail", CtestStatus::Failed},
                                                          {"notrun", CtestStatus::NotRun},
                                                          {"disabled", CtestStatus::Disabled}};
  CtestRun run;
  run.time = parse_double(attr(root, "time"));
  for (const xmlNode* tc : children(root, "testcase")) {
    CtestCase c;
    c.name = attr(tc, "name");
    if (c.name.empty()) throw InputError("CTest JUnit has a testcase without a name");
    const auto status = kStatus.find(attr(tc, "status"));
    if (status == kStatus.end())
      throw InputError("CTest JUnit's testcase " + c.name + " has no status run, fail, notrun "
                       "or disabled");
    c.status = status->second;
    c.time = parse_double(attr(tc, "time"));
    c.output = all_text(child(tc, "system-out"));
    // Why it did not run, or why it failed.
    if (c.status == CtestStatus::NotRun) c.reason = attr(child(tc, "skipped"), "message");
    if (c.status == CtestStatus::Failed) c.reason = attr(child(tc, "failure"), "message");
    run.cases.push_back(std::move(c));
  }
  return run;
}

// ---- The cases' records -----------------------------------------------------------------------

void add_record(CaseRecords& records, CaseRecord record) {
  const auto it = records.find(record.name);
  if (it != records.end() && record.started < it->second.started) return;
  std::string name = record.name;
  records[std::move(name)] = std::move(record);
}

CaseRecords load_records(const std::filesystem::path& dir, std::vector<std::string>& warnings) {
  CaseRecords records;
  for (const auto& path : json_files(dir, /*missing_ok=*/false, /*recursive=*/true)) {
    try {
      std::optional<CaseRecord> record =
          kdh::parse_record(read_input(path.string(), "case record"));
      if (record) {
        add_record(records, std::move(*record));
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
  for (const auto& [name, record] : records)
    run.cases.push_back(CtestCase{name, CtestStatus::Started, /*reason=*/"", record.time, ""});
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
