// Reading CTest's and GoogleTest's XML, deciding each case's verdict, writing the report.
#include "junit_convert.hpp"
#include "junit_xml.hpp"

#include <nlohmann/json.hpp>
#include <tinyxml2.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <set>
#include <locale>
#include <sstream>
#include <system_error>
#include <utility>

#include "util/text.hpp"

namespace kd::junit {
namespace {

// ---- small text helpers ----------------------------------------------------------------------

double parse_double(const std::string& text) {
  if (text.empty()) return 0;
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  double value = 0;
  in >> value;
  return in.fail() || value < 0 ? 0 : value;
}

std::string format_seconds(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds < 0 ? 0.0 : seconds);
  return buffer;
}

// Whole seconds print without a fraction so that "TIMEOUT of 2 s" reads as the user wrote it.
std::string format_limit(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", seconds);
  return buffer;
}

// GoogleTest opens each assertion with where it is ("path:42" in XML, "path:42: Failure" on
// the console); that says nothing about why, so summaries skip it.
bool is_location_line(std::string_view line) {
  for (std::string_view suffix : {": Failure", ": Skipped"}) {
    if (line.size() > suffix.size() &&
        line.substr(line.size() - suffix.size()) == suffix) {
      line.remove_suffix(suffix.size());
      break;
    }
  }
  std::size_t colon = line.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == line.size()) return false;
  if (line.find(' ') != std::string_view::npos) return false;
  return std::all_of(line.begin() + static_cast<std::ptrdiff_t>(colon) + 1, line.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::string last_nonempty_line(std::string_view text) {
  auto lines = split_lines(text);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    std::string_view line = trim(*it);
    if (!line.empty()) return std::string(line);
  }
  return "";
}

// Cut at a character boundary so that the result stays valid UTF-8.
std::string cut(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "...";
}

// A skip's reason without GoogleTest's location line, on one line.
std::string skip_reason(std::string_view text) {
  std::string reason;
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line.empty() || is_location_line(line)) continue;
    if (!reason.empty()) reason += ' ';
    reason += line;
  }
  return reason;
}

std::string one_line(std::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return line;
}

// ---- timestamps ------------------------------------------------------------------------------

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's civil calendar
// algorithm); both timestamps compared are local time of the same machine, so no time zone
// is involved, only their difference.
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

std::optional<long long> parse_timestamp(const std::string& text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &year, &month, &day, &hour, &minute,
                  &second) != 6)
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
  return days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) *
             86400 +
         hour * 3600 + minute * 60 + second;
}

// A file written before this CTest run began belongs to an earlier run; using it would show
// an old verdict for a test that crashed this time. One second of slack covers CTest's
// whole-second timestamp.
bool is_stale(const GtestCase& g, const CtestRun& run) {
  auto run_start = parse_timestamp(run.timestamp);
  auto written = parse_timestamp(g.timestamp);
  return run_start && written && *written + 1 < *run_start;
}

// ---- verdicts --------------------------------------------------------------------------------

bool is_skip_reason(const std::string& reason) {
  return reason.rfind("SKIP_RETURN_CODE=", 0) == 0 || reason == "SKIP_REGULAR_EXPRESSION_MATCHED";
}

// Without --ctest-tests, GoogleTest's banner in the captured output is the evidence left by a
// gtest program that died before writing its XML.
bool output_looks_like_gtest(const std::string& output) {
  return output.find("Note: Google Test filter = ") != std::string::npos ||
         output.find("[ RUN      ] ") != std::string::npos ||
         output.find("[==========] Running ") != std::string::npos;
}

std::string output_section(const std::string& output) {
  if (trim(output).empty()) return "The test printed nothing.";
  return "Last lines of its output:\n" + tail_lines(output, kTailLines);
}

struct Draft {
  ReportCase report;
  std::string long_name;  // the whole GoogleTest test name, used when case ids collide
};

Draft decide(const CtestCase& c, const GtestIndex& gtest, const TestInfo* info,
             const CtestRun& run) {
  const std::string gtest_name = info && !info->gtest_name.empty() ? info->gtest_name : c.name;
  const GtestCase* g = gtest.find(gtest_name);
  std::string stale_note;
  if (g && is_stale(*g, run)) {
    stale_note = "An older GoogleTest XML for this case (" + g->source + ", " + g->timestamp +
                 ") was ignored: it predates this CTest run.\n";
    g = nullptr;
  }
  const bool is_gtest = info ? info->gtest || g : g || !stale_note.empty() ||
                                                      output_looks_like_gtest(c.output);

  Draft draft;
  ReportCase& r = draft.report;
  r.time = c.time;
  const std::string& full = is_gtest ? gtest_name : c.name;
  const std::size_t dot = full.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == full.size()) {
    r.classname = "ctest";
    r.name = full;
  } else {
    r.classname = full.substr(0, dot);
    r.name = full.substr(dot + 1);
  }
  draft.long_name = r.name;
  if (g) r.promise = g->promise;
  // A value-parameterized case is "<TEST_P name>/<param name>"; the param name is the case id.
  // Also without evidence of GoogleTest: a test CTest could not start has no XML and may have
  // no command either, yet must keep the name its layer's other cases have.
  {
    const std::size_t slash = r.name.rfind('/');
    if (slash != std::string::npos && slash + 1 < r.name.size()) r.name = r.name.substr(slash + 1);
  }

  const std::optional<double> limit = info ? info->timeout : std::nullopt;
  // CTest kills at the limit and measures a little more; a few hundredths of slack.
  const bool timed_out = c.status == CtestStatus::Failed && limit && *limit > 0 &&
                         c.time + 0.05 >= *limit;
  const std::string limit_text = limit ? "CTest's TIMEOUT of " + format_limit(*limit) + " s" : "";
  const std::string ctest_note = c.reason.empty() ? "" : "CTest: " + c.reason + "\n";
  std::string extra_note;

  // The skip GoogleTest recorded, with its reason.
  auto skip_as_recorded = [&]() {
    r.verdict = Verdict::Skipped;
    r.message = skip_reason(g->skip_text);
    if (r.message.empty()) r.message = "skipped by the test (no reason given)";
    // The reason first, then where GoogleTest recorded the skip.
    r.body = r.message;
    for (std::string_view line : split_lines(g->skip_text)) {
      line = trim(line);
      if (is_location_line(line)) r.body += "\nSkipped at " + std::string(line);
    }
  };

  auto fail_with_assertions = [&](const std::string& extra) {
    r.verdict = Verdict::Failure;
    r.type = "assertion";
    r.message = headline(g->failures.front());
    std::string body;
    for (const std::string& text : g->failures) {
      if (!body.empty()) body += "\n\n";
      body += text;
    }
    r.body = body + (extra.empty() ? "" : "\n\n" + extra);
  };

  switch (c.status) {
    case CtestStatus::Started:
      if (g && !g->failures.empty()) {
        fail_with_assertions("");
        break;
      }
      if (g) {
        if (g->skipped) skip_as_recorded();
        return draft;
      }
      r.verdict = Verdict::Error;
      r.type = "crash";
      r.message = "the case started but GoogleTest recorded no verdict: the test program "
                  "crashed, was killed or was stopped by a timeout";
      r.body = r.message + "\n" + stale_note +
               "No CTest output exists for it in this report; rerun the case with "
               "`ctest --output-on-failure -R` to see it.";
      break;

    case CtestStatus::Disabled:
      r.verdict = Verdict::Skipped;
      r.message = "disabled in CTest (DISABLED property)";
      return draft;

    case CtestStatus::NotRun:
      // A failed assertion is never shown as a skip, whatever CTest's skip regex matched.
      if (g && !g->failures.empty()) {
        fail_with_assertions("CTest reported the test as not run (" + c.reason +
                             ") although GoogleTest recorded failed assertions.");
        break;
      }
      if (is_skip_reason(c.reason)) {
        if (g && g->skipped) {
          skip_as_recorded();
        } else {
          r.verdict = Verdict::Skipped;
          const std::string last = last_nonempty_line(c.output);
          r.message = c.reason + (last.empty() ? "" : ": " + last);
        }
        return draft;
      }
      r.verdict = Verdict::Error;
      r.type = "not-run";
      r.message =
          "CTest did not run the test: " + (c.reason.empty() ? "no reason given" : c.reason);
      r.body = r.message + "\n" + stale_note + output_section(c.output);
      break;

    case CtestStatus::Passed:
      if (g && !g->failures.empty() && !(info && info->will_fail)) {
        fail_with_assertions("CTest reported the test as passed although GoogleTest recorded "
                             "failed assertions; the program's exit status hides them.");
        break;
      }
      if (g && g->skipped) {
        // No SKIP_REGULAR_EXPRESSION on this test: CTest saw exit status 0.
        skip_as_recorded();
      }
      return draft;

    case CtestStatus::Failed:
      if (g && !g->failures.empty()) {
        fail_with_assertions(timed_out ? "Afterwards the program was stopped by " + limit_text +
                                             " after " + format_seconds(c.time) + " s."
                                       : "");
        break;
      }
      r.verdict = Verdict::Error;
      if (g) {
        const std::string recorded =
            g->skipped
                ? "GoogleTest recorded the case as skipped (" + skip_reason(g->skip_text) + ")"
                : "GoogleTest recorded the case as passed";
        if (timed_out) {
          r.type = "timeout";
          r.message = recorded + ", but the program was then stopped by " + limit_text +
                      ": it hung after its assertions";
        } else {
          r.type = "abnormal-exit";
          r.message = recorded +
                      ", but CTest reports the test as failed: the program exited abnormally "
                      "after its assertions (non-zero exit status, crash at exit or killed)";
        }
      } else if (is_gtest) {
        if (timed_out) {
          r.type = "timeout";
          r.message = "stopped by " + limit_text + " after " + format_seconds(c.time) +
                      " s, before GoogleTest recorded a verdict";
        } else {
          r.type = "crash";
          if (!info) {
            r.message = "the test program did not finish: it crashed, was killed or was stopped "
                        "by a CTest timeout before GoogleTest recorded a verdict";
          } else {
            r.message = "the test program crashed or was killed after " +
                        format_seconds(c.time) + " s, before GoogleTest recorded a verdict";
            if (!limit) {
              extra_note = "The test has no TIMEOUT property: a CTest-wide timeout (ctest "
                           "--timeout) may also have stopped it.\n";
            }
          }
        }
      } else if (timed_out) {
        r.type = "timeout";
        r.message = "stopped by " + limit_text + " after " + format_seconds(c.time) + " s";
      } else {
        r.verdict = Verdict::Failure;
        r.type = "exit-status";
        const std::string last = last_nonempty_line(c.output);
        r.message = "failed (CTest)" + (last.empty() ? std::string() : ": " + cut(last, 200));
      }
      r.body = r.message + "\n" + ctest_note + extra_note + stale_note + output_section(c.output);
      break;
  }
  r.system_out = tail_lines(c.output, kTailLines);
  return draft;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read " + path.string());
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw InputError("cannot read " + path.string());
  return content.str();
}

}  // namespace

// ---- CTest's JUnit ---------------------------------------------------------------------------

CtestRun parse_ctest_junit(const std::string& xml) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS)
    throw InputError(std::string("CTest JUnit is not well-formed XML: ") + doc.ErrorStr());
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (!root) throw InputError("CTest JUnit has no root element");

  // CTest writes one <testsuite>; a <testsuites> wrapper is accepted for other versions.
  std::vector<const tinyxml2::XMLElement*> suites;
  if (std::string(root->Name()) == "testsuite") {
    suites.push_back(root);
  } else if (std::string(root->Name()) == "testsuites") {
    for (auto* s = root->FirstChildElement("testsuite"); s; s = s->NextSiblingElement("testsuite"))
      suites.push_back(s);
  } else {
    throw InputError(std::string("CTest JUnit has root <") + root->Name() +
                     ">, expected <testsuite>");
  }

  CtestRun run;
  run.timestamp = attr(suites.empty() ? root : suites.front(), "timestamp");
  run.time = parse_double(attr(root, "time"));
  for (const auto* suite : suites) {
    for (auto* tc = suite->FirstChildElement("testcase"); tc;
         tc = tc->NextSiblingElement("testcase")) {
      CtestCase c;
      c.name = attr(tc, "name");
      if (c.name.empty()) throw InputError("CTest JUnit has a testcase without a name");
      c.time = parse_double(attr(tc, "time"));
      const auto* failure = tc->FirstChildElement("failure");
      const auto* error = tc->FirstChildElement("error");
      const auto* skipped = tc->FirstChildElement("skipped");
      if (const auto* out = tc->FirstChildElement("system-out")) c.output = all_text(out);
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
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS)
    throw InputError(source + ": not well-formed XML: " + doc.ErrorStr());
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (!root || std::string(root->Name()) != "testsuites") return {};

  std::vector<GtestCase> cases;
  for (auto* suite = root->FirstChildElement("testsuite"); suite;
       suite = suite->NextSiblingElement("testsuite")) {
    for (auto* tc = suite->FirstChildElement("testcase"); tc;
         tc = tc->NextSiblingElement("testcase")) {
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
      const std::string param = attr(tc, "value_param");
      if (const std::size_t at = param.find(" guards: "); at != std::string::npos)
        c.promise = param.substr(at + 9);
      if (c.timestamp.empty()) c.timestamp = attr(suite, "timestamp");
      if (c.timestamp.empty()) c.timestamp = attr(root, "timestamp");
      for (auto* f = tc->FirstChildElement("failure"); f; f = f->NextSiblingElement("failure")) {
        std::string text = all_text(f);
        if (trim(text).empty()) text = attr(f, "message");
        if (trim(text).empty()) text = "(GoogleTest recorded a failure without text)";
        c.failures.push_back(std::move(text));
      }
      const auto* skip = tc->FirstChildElement("skipped");
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

const GtestCase* GtestIndex::find(const std::string& full_name) const {
  auto it = cases_.find(full_name);
  return it == cases_.end() ? nullptr : &it->second;
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
    if (path.extension() != ".xml" || !it->is_regular_file(ec)) continue;
    try {
      for (GtestCase& c : parse_gtest_xml(read_file(path), path.string())) index.add(std::move(c));
    } catch (const InputError& e) {
      warnings.push_back(std::string("ignored ") + e.what());
    }
  }
  return index;
}

// ---- A run without CTest's JUnit ------------------------------------------------------------

CtestRun run_from_started(const std::filesystem::path& dir, const GtestIndex& gtest,
                          std::vector<std::string>& warnings) {
  namespace fs = std::filesystem;
  std::set<std::string> names;
  for (const auto& [name, c] : gtest.cases()) names.insert(name);
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) throw InputError("cannot list " + dir.string() + ": " + ec.message());
    const std::string suffix = kStartedSuffix;
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) throw InputError("cannot list " + dir.string() + ": " + ec.message());
      const std::string file = it->path().filename().string();
      if (file.size() <= suffix.size() ||
          file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0 ||
          !it->is_regular_file(ec))
        continue;
      std::string text;
      try {
        text = read_file(it->path());
      } catch (const InputError& e) {
        warnings.push_back(std::string("ignored ") + e.what());
        continue;
      }
      for (std::string_view line : split_lines(text)) {
        line = trim(line);
        if (!line.empty()) names.emplace(line);
      }
    }
  }
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

// ---- conversion ------------------------------------------------------------------------------

void Counts::add(Verdict verdict) {
  ++tests;
  switch (verdict) {
    case Verdict::Passed: ++passed; break;
    case Verdict::Failure: ++failures; break;
    case Verdict::Error: ++errors; break;
    case Verdict::Skipped: ++skipped; break;
  }
}

Counts Report::counts() const {
  Counts counts;
  for (const auto& suite : suites)
    for (const auto& c : suite.cases) counts.add(c.verdict);
  return counts;
}

Report convert(const CtestRun& run, const GtestIndex& gtest,
               const std::map<std::string, TestInfo>& infos, const std::string& title) {
  std::vector<Draft> drafts;
  drafts.reserve(run.cases.size());
  for (const CtestCase& c : run.cases) {
    auto it = infos.find(c.name);
    drafts.push_back(decide(c, gtest, it == infos.end() ? nullptr : &it->second, run));
  }

  // Two TEST_Ps of one layer may share a param name; their cases keep the whole test name.
  std::map<std::pair<std::string, std::string>, int> uses;
  for (const Draft& d : drafts) ++uses[{d.report.classname, d.report.name}];
  for (Draft& d : drafts) {
    if (uses[{d.report.classname, d.report.name}] > 1) d.report.name = d.long_name;
  }

  Report report;
  report.title = title;
  std::map<std::string, std::size_t> suite_of;
  double total = 0;
  for (Draft& d : drafts) {
    total += d.report.time;
    auto [it, inserted] = suite_of.emplace(d.report.classname, report.suites.size());
    if (inserted) report.suites.push_back(ReportSuite{d.report.classname, {}});
    report.suites[it->second].cases.push_back(std::move(d.report));
  }
  report.time = run.time > 0 ? run.time : total;
  return report;
}

// ---- output ----------------------------------------------------------------------------------

std::string write_junit(const Report& report) {
  tinyxml2::XMLDocument doc;
  doc.InsertEndChild(doc.NewDeclaration());
  auto set = [](tinyxml2::XMLElement* e, const char* name, const std::string& value) {
    e->SetAttribute(name, xml_safe(one_line(value)).c_str());
  };
  auto text = [&doc](tinyxml2::XMLElement* e, const std::string& value) {
    if (!value.empty()) e->InsertEndChild(doc.NewText(xml_safe(value).c_str()));
  };

  const Counts all = report.counts();
  tinyxml2::XMLElement* root = doc.NewElement("testsuites");
  doc.InsertEndChild(root);
  set(root, "name", report.title);
  set(root, "tests", std::to_string(all.tests));
  set(root, "failures", std::to_string(all.failures));
  set(root, "errors", std::to_string(all.errors));
  set(root, "time", format_seconds(report.time));

  for (const ReportSuite& suite : report.suites) {
    Counts counts;
    double time = 0;
    for (const ReportCase& c : suite.cases) {
      counts.add(c.verdict);
      time += c.time;
    }
    tinyxml2::XMLElement* s = doc.NewElement("testsuite");
    root->InsertEndChild(s);
    set(s, "name", suite_name(suite.name, report.variant));
    set(s, "tests", std::to_string(counts.tests));
    set(s, "failures", std::to_string(counts.failures));
    set(s, "errors", std::to_string(counts.errors));
    set(s, "skipped", std::to_string(counts.skipped));
    set(s, "time", format_seconds(time));
    std::vector<std::pair<std::string, std::string>> facts;
    if (report.certificate) {
      facts = certificate_properties(*report.certificate, report.variant);
    } else if (!report.variant.empty()) {
      facts.emplace_back(kVariantProperty, report.variant);
    }
    if (!facts.empty()) {
      tinyxml2::XMLElement* properties = doc.NewElement("properties");
      s->InsertEndChild(properties);
      for (const auto& [name, value] : facts) {
        tinyxml2::XMLElement* property = doc.NewElement("property");
        properties->InsertEndChild(property);
        set(property, "name", name);
        set(property, "value", value);
      }
    }

    for (const ReportCase& c : suite.cases) {
      tinyxml2::XMLElement* tc = doc.NewElement("testcase");
      s->InsertEndChild(tc);
      set(tc, "name", c.name);
      set(tc, "classname", kClassPrefix + c.classname);
      set(tc, "time", format_seconds(c.time));
      const char* tag = c.verdict == Verdict::Failure ? "failure"
                        : c.verdict == Verdict::Error ? "error"
                        : c.verdict == Verdict::Skipped ? "skipped"
                                                        : nullptr;
      // The promise first; then a failure's or an error's output. A pass shows no output,
      // except the certificate's, which is its text.
      std::string shown = c.verdict == Verdict::Skipped ? std::string() : c.system_out;
      if (!c.promise.empty())
        shown = kPromisePrefix + c.promise + (shown.empty() ? "\n" : "\n\n" + shown);
      if (tag) {
        tinyxml2::XMLElement* v = doc.NewElement(tag);
        tc->InsertEndChild(v);
        set(v, "message", c.message);
        if (!c.type.empty()) set(v, "type", c.type);
        text(v, c.body);
      }
      if (!shown.empty()) {
        tinyxml2::XMLElement* out = doc.NewElement("system-out");
        tc->InsertEndChild(out);
        text(out, shown);
      }
    }
  }

  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return std::string(printer.CStr(), static_cast<std::size_t>(printer.CStrSize() - 1));
}

std::string suite_name(const std::string& layer, const std::string& variant) {
  return variant.empty() ? layer : layer + " [" + variant + "]";
}

std::string summary_line(const Counts& c) {
  return "tests=" + std::to_string(c.tests) + " passed=" + std::to_string(c.passed) +
         " failures=" + std::to_string(c.failures) + " errors=" + std::to_string(c.errors) +
         " skipped=" + std::to_string(c.skipped);
}

// ---- merging ---------------------------------------------------------------------------------

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

// ---- text helpers ----------------------------------------------------------------------------

std::string xml_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto escape_byte = [&out](unsigned char byte) {
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "\\x%02X", byte);
    out += buffer;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if (byte == '\r') {
        // Parsers turn CR into LF anyway; doing it here keeps the file as readers see it.
        out += '\n';
        i += (i + 1 < text.size() && text[i + 1] == '\n') ? 2 : 1;
        continue;
      }
      if (byte < 0x20 && byte != '\t' && byte != '\n') {
        escape_byte(byte);
      } else if (byte == 0x7F) {
        escape_byte(byte);  // allowed by XML, but invisible and useless in a report
      } else {
        out += static_cast<char>(byte);
      }
      ++i;
      continue;
    }
    std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0;
    std::uint32_t cp = length == 4 ? byte & 0x07u : length == 3 ? byte & 0x0Fu : byte & 0x1Fu;
    bool valid = length != 0 && byte <= 0xF4 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) valid = false;
      cp = (cp << 6) | (next & 0x3Fu);
    }
    // Overlong forms, surrogates, and the two non-characters XML 1.0 forbids.
    if (valid) {
      const std::uint32_t minimum = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
      valid = cp >= minimum && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF) &&
              cp != 0xFFFE && cp != 0xFFFF;
    }
    if (!valid) {
      escape_byte(byte);
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

std::string tail_lines(std::string_view text, std::size_t lines) {
  return kd::tail_lines(text, lines);
}

std::string headline(std::string_view text) {
  std::string_view first_nonempty;
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line.empty()) continue;
    if (first_nonempty.empty()) first_nonempty = line;
    if (is_location_line(line) || line == "Failed") continue;
    return cut(line, 200);
  }
  return cut(first_nonempty, 200);
}

}  // namespace kd::junit
