#include "fleet.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>

#include "junit_text.hpp"

namespace kd::junit {
namespace {

constexpr std::size_t kLayerCount = std::size(kLayers);

// Where `stage` lies on the walk: its index among the layers (import to application), their
// count past them (output, complete), -1 unknown.
int stage_rank(const std::string& stage) {
  for (std::size_t i = 0; i < kLayerCount; ++i)
    if (stage == kLayers[i]) return static_cast<int>(i);
  if (stage == "output" || stage == "complete") return static_cast<int>(kLayerCount);
  return -1;
}

bool valid_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// Splits "<node>.<unit>" at its last '.'; nullopt when either part is empty or a character is
// not allowed.
std::optional<std::pair<std::string, std::string>> split_name(const std::string& name) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) return std::nullopt;
  if (!std::all_of(name.begin(), name.end(), valid_name_char)) return std::nullopt;
  return std::make_pair(name.substr(0, dot), name.substr(dot + 1));
}

// Fills `u` from its report; on anything short of a whole, consistent report of
// kernodeck-diagnostic, `u` is Unreadable with the reason in its message.
void judge(FleetUnit& u, const CheckReport& r) {
  u.state = UnitState::Unreadable;
  if (!r.object) {
    u.message = r.text.empty() ? "the report is empty (the task died while writing it?)"
                               : "the report is not a JSON object (cut short or not a report)";
    return;
  }
  u.report = r;
  u.report.text = r.pretty;
  if (!r.ours) {
    u.message = "not a report of kernodeck-diagnostic (tool.name is not kernodeck-diagnostic)";
    return;
  }
  if (const std::vector<std::string> problems = contract_problems(r); !problems.empty()) {
    u.message = "the report does not hold against the contract: " + problems.front();
    for (std::size_t i = 1; i < problems.size(); ++i) u.message += "; " + problems[i];
    return;
  }
  if (!r.real_probe()) {
    u.simulated = true;
    u.message = "made through the fault-injection seam (tool.probe is none of \"libtorch\", "
                "\"stable_abi\" and \"python\"): a simulation, not a check of this GPU";
    return;
  }
  u.message = r.message;
  u.state = r.status == "passed" ? UnitState::Passed : UnitState::Failed;
}

// Per node, in node order: its units.
std::map<std::string, std::vector<const FleetUnit*>> by_node(const Fleet& fleet) {
  std::map<std::string, std::vector<const FleetUnit*>> nodes;
  for (const FleetUnit& u : fleet.units) nodes[u.node].push_back(&u);
  return nodes;
}

// Each node's row: its outcome, its GPUs by state, and how its failing ones failed; failing
// nodes first, since they are why anyone reads this.
ViewTable nodes_table(const Fleet& fleet) {
  ViewTable table{"nodes", "The fleet: nodes by outcome",
                  {"node", "outcome", "GPUs", "passed", "failed", "no report", "where it fails"},
                  {}, ""};
  std::vector<ViewRow> healthy;
  for (const auto& [node, units] : by_node(fleet)) {
    std::size_t passed = 0, failed = 0, missing = 0;
    std::set<std::string> layers;
    for (const FleetUnit* u : units) {
      if (u->state == UnitState::Passed) {
        ++passed;
      } else if (u->state == UnitState::Failed) {
        ++failed;
        layers.insert(u->verdict_words());
      } else {
        ++missing;
        layers.insert(u->state == UnitState::Missing ? "no report" : "unreadable report");
      }
    }
    const std::string outcome = failed + missing == 0 ? "healthy"
                                : passed == 0         ? "failing"
                                                      : "partly failing";
    std::string where;
    for (const std::string& l : layers) where += (where.empty() ? "" : ", ") + l;
    if (where.empty()) where = "-";
    (outcome == "healthy" ? healthy : table.rows)
        .push_back({{{"node", node}, {"outcome", outcome}},
                    {{node},
                     {outcome, outcome == "healthy" ? "passed" : "failed"},
                     {std::to_string(units.size())},
                     {std::to_string(passed)},
                     {std::to_string(failed)},
                     {std::to_string(missing)},
                     {where}}});
  }
  table.rows.insert(table.rows.end(), healthy.begin(), healthy.end());
  return table;
}

// Each layer (or "no report") with the GPUs that stopped there: the layers in their order, then
// any other stage a failed report names (output, complete, one unknown), then "no report".
ViewTable where_table(const Fleet& fleet) {
  ViewTable table{"where", "Which layer fails where", {"layer", "GPUs", "where"}, {},
                  "Nowhere: every GPU passed."};
  std::vector<std::string> layers(std::begin(kLayers), std::end(kLayers));
  for (const FleetUnit& u : fleet.units)
    if (u.state == UnitState::Failed &&
        std::find(layers.begin(), layers.end(), u.report.stage) == layers.end())
      layers.push_back(u.report.stage);
  layers.push_back("no report");
  for (const std::string& layer : layers) {
    std::size_t count = 0;
    std::string where;
    for (const FleetUnit& u : fleet.units) {
      const bool failed = u.state == UnitState::Failed;
      if (failed ? u.report.stage != layer
                 : u.state == UnitState::Passed || layer != "no report")
        continue;
      ++count;
      where += (where.empty() ? "" : ", ") + u.id() + (failed ? " " + u.verdict_words(false) : "");
    }
    if (count > 0)
      table.rows.push_back({{{"layer", layer}}, {{layer}, {std::to_string(count)}, {where}}});
  }
  return table;
}

// The ladder of the layers, counting GPUs: a GPU passed every layer below the one it stopped
// at.
std::vector<LadderStep> fleet_ladder(const Fleet& fleet) {
  struct Count {
    std::size_t passed = 0, failed = 0, not_reached = 0;
  };
  std::array<Count, kLayerCount> counts{};
  std::size_t without = 0;
  for (const FleetUnit& u : fleet.units) {
    if (u.state != UnitState::Passed && u.state != UnitState::Failed) {
      ++without;
      continue;
    }
    const int reached = u.state == UnitState::Passed ? static_cast<int>(kLayerCount)
                                                     : stage_rank(u.report.stage);
    for (std::size_t i = 0; i < kLayerCount; ++i) {
      const int layer = static_cast<int>(i);
      if (reached < 0 || layer == reached) ++counts[i].failed;  // an unknown stage fails them all
      else if (layer < reached) ++counts[i].passed;
      else ++counts[i].not_reached;
    }
  }
  std::vector<LadderStep> steps;
  for (std::size_t i = 0; i < kLayerCount; ++i) {
    const Count& c = counts[i];
    const std::string state = c.failed > 0 ? "failed" : c.passed > 0 ? "passed" : "not reached";
    steps.push_back({kLayers[i], state, state == "not reached" ? "skipped" : state,
                     "GPUs: " + std::to_string(c.passed) + " passed, " + std::to_string(c.failed) +
                         " failed here, " + std::to_string(c.not_reached) +
                         " never reached it, " + std::to_string(without) +
                         " without a report"});
  }
  return steps;
}

}  // namespace

std::string FleetUnit::verdict_words(bool with_stage) const {
  return report.code + "(" + std::to_string(report.exit_code.value_or(-1)) + ")" +
         (with_stage ? " " + report.stage : "");
}

std::string FleetUnit::error() const {
  return report.has_error ? report.error_type + ": " + report.error_message : "";
}

std::vector<std::string> parse_expected(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (const std::size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    if (!split_name(line))
      throw InputError("expected list, line " + std::to_string(number) + ": \"" + line +
                       "\" is not <node>.<unit> (letters, digits, '.', '_', '-')");
    out.push_back(line);
  }
  return out;
}

namespace {

// Every expected unit, each without a report until one is read.
std::map<std::string, FleetUnit> expected_units(const std::vector<std::string>& expected,
                                                std::vector<std::string>& warnings) {
  std::map<std::string, FleetUnit> units;
  for (const std::string& name : expected) {
    const auto parts = split_name(name);
    if (!parts) throw InputError("expected report \"" + name + "\" is not <node>.<unit>");
    FleetUnit u;
    std::tie(u.node, u.unit) = *parts;
    u.expected = true;
    u.message = "no report: the check on " + u.node + " (" + u.unit + ") never wrote " + name +
                ".json (the task did not start, was killed, or the node is down)";
    if (!units.emplace(name, std::move(u)).second)
      warnings.push_back("expected report " + name + " is listed twice");
  }
  return units;
}

// Each <node>.<unit>.json of `dir` judged into its unit; a report nobody expected is shown too.
void judge_units(const std::map<std::string, CheckReport>& reports,
                 std::map<std::string, FleetUnit>& units, std::vector<std::string>& warnings) {
  for (const auto& [stem, report] : reports) {
    const auto parts = split_name(stem);
    if (!parts) {
      warnings.push_back("ignored " + stem + ".json: not named <node>.<unit>.json");
      continue;
    }
    auto [it, inserted] = units.try_emplace(stem);
    FleetUnit& u = it->second;
    if (inserted) {
      std::tie(u.node, u.unit) = *parts;
      warnings.push_back("report " + stem +
                         ".json is not in the expected list; shown all the same");
    }
    if (!report.read) {
      u.state = UnitState::Unreadable;
      u.message = "the report cannot be read";
      continue;
    }
    judge(u, report);
  }
}

}  // namespace

Fleet read_fleet(const std::filesystem::path& dir, const std::vector<std::string>& expected) {
  if (expected.empty())
    throw InputError("no expected reports: without the list of GPUs that should have reported, "
                     "a missing report could not be told");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw InputError("fleet folder " + dir.string() + " does not exist");

  Fleet fleet;
  // Each node's report as it wrote it: the nodes' folders and names are not this machine's.
  const CaseReports reports = read_check_reports(dir, kd::Sanitizer({}), /*missing_ok=*/false);
  std::map<std::string, FleetUnit> units = expected_units(expected, fleet.warnings);
  judge_units(reports, units, fleet.warnings);
  for (auto& [name, u] : units) fleet.units.push_back(std::move(u));

  std::vector<std::string> notes;
  fleet.facts = certificate_of(reports, notes);  // its warnings repeat the ones above
  std::size_t gpu_reports = 0;
  for (const FleetUnit& u : fleet.units)
    if (u.report.ours && u.report.device == "cuda") ++gpu_reports;
  const std::size_t nodes = by_node(fleet).size();
  fleet.facts.gpu_count = std::to_string(gpu_reports) + " checked with --device cuda, of " +
                          plural(fleet.units.size(), "task", "tasks") + " on " +
                          plural(nodes, "node", "nodes");
  return fleet;
}

Report fleet_report(const Fleet& fleet, const std::string& title) {
  Report report;
  report.title = title;
  for (const auto& [node, units] : by_node(fleet)) {
    ReportSuite suite{node, {}};
    for (const FleetUnit* u : units) {
      ReportCase c;
      c.classname = node;
      c.name = u->unit;
      c.time = u->report.ours ? u->report.seconds : 0;
      report.time += c.time;
      const std::string file = u->id() + ".json";
      switch (u->state) {
        case UnitState::Passed:
          c.verdict = Verdict::Passed;
          c.system_out = u->verdict_words() + ": " + u->message;
          break;
        case UnitState::Failed:
          c.verdict = Verdict::Failure;
          c.type = u->report.code;
          c.message = u->verdict_words() + ": " + u->message;
          c.body = c.message + "\n" + (u->error().empty() ? "" : "error: " + u->error() + "\n") +
                   "The first layer that fails on " + node + " (" + u->unit + ") is " +
                   u->report.stage + ". The report, " + file + ":\n" + u->report.text;
          break;
        case UnitState::Missing:
          c.verdict = Verdict::Error;
          c.type = "missing-report";
          c.message = u->message;
          c.body = c.message + "\nLook at the scheduler's log of this task; rerun the check on " +
                   node + " by hand.";
          break;
        case UnitState::Unreadable:
          c.verdict = Verdict::Error;
          c.type = u->simulated ? "fault-injection" : "unreadable-report";
          c.message = file + ": " + u->message;
          c.body = c.message + (u->report.object ? "\n" + u->report.text : "");
          break;
      }
      suite.cases.push_back(std::move(c));
    }
    report.suites.push_back(std::move(suite));
  }
  report.certificate = fleet.facts;
  report.view = ReportView{"fleet", {nodes_table(fleet), where_table(fleet)}, "gpus",
                           fleet_ladder(fleet)};
  seal(report);
  return report;
}

CaseReports fleet_reports(const Fleet& fleet) {
  CaseReports reports;
  for (const FleetUnit& u : fleet.units)
    if (u.report.object) reports[u.id()] = u.report;
  return reports;
}

}  // namespace kd::junit
