// The record one conformance case leaves where it runs, the one thing the report writer reads of
// a case beside CTest's word on its process: a JSON file the harness writes when the case starts
// (its name, where it is declared, its promise) and writes again, whole, when it ends (its
// verdict, each failed assertion, its skip). A record that never ended belongs to a case whose
// program crashed, was killed or was stopped by a timeout. The harness writes it
// (harness/case_main.cpp), kernodeck-junit reads it (reporting/junit_inputs.hpp).
//
//   {"name": "cli.run/usage", "file": "suites/cli_cases.cpp", "line": 95,
//    "promise": "...", "started": "2026-12-07T07:10:00", "ended": true,
//    "skipped": false, "failures": ["suites/cli_cases.cpp:97\nexpected ..."], "skip": "",
//    "time": 0.25}
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kdh {

struct CaseRecord {
  std::string name;     // GoogleTest's full name, "<layer>.<TEST_P>/<case id>"
  std::string file;     // where GoogleTest says the case is declared, or "" (and line 0)
  int line = 0;
  std::string promise;  // what the case guards (its value parameter's "guards: ..."), or ""
  std::string started;  // when it started, local time, "YYYY-MM-DDTHH:MM:SS"
  bool ended = false;   // it recorded its verdict; false: its program never came back to it
  bool skipped = false;
  // Each failed assertion as GoogleTest words it: "<file>:<line>", a newline, its message.
  std::vector<std::string> failures;
  std::string skip;  // the skip, in the same form: "<file>:<line>", a newline, its reason
  double time = 0;   // seconds, as GoogleTest measured the case

  // "<file>:<line>", or "" without a place.
  std::string declared() const;
};

// The name of a case's record within the records folder: its full name and ".json" (a
// value-parameterized case's '/' makes a subfolder, "cli.run/usage.json").
std::string record_file(const std::string& name);

std::string record_text(const CaseRecord& record);

// The promise within GoogleTest's value parameter of a case, which the harness prints as
// "<layer>.<id> guards: <promise>" (harness/case.cpp, PrintTo); "" without one.
std::string promise_of(const std::string& value_param);

// The record of `text`; nullopt when it is not one (not JSON, no name).
std::optional<CaseRecord> parse_record(const std::string& text);

}  // namespace kdh
