#include "fleet.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>

#include "html_page.hpp"
#include "junit_text.hpp"
#include "summary.hpp"
#include "util/files.hpp"

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
  u.json = r.pretty;
  u.report = r;
  u.report.text = r.pretty;
  if (!r.ours) {
    u.message = "not a report of kernodeck-diagnostic (tool.name is not kernodeck-diagnostic)";
    return;
  }
  u.code = r.code;
  u.stage = r.stage;
  u.device = r.device;
  u.exit_code = static_cast<int>(r.exit_code.value_or(-1));
  if (r.has_error) u.error = r.error_type + ": " + r.error_message;
  u.seconds = r.seconds;
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

struct NodeRow {
  std::string node, outcome, layers;
  std::size_t gpus = 0, passed = 0, failed = 0, missing = 0;
};

std::vector<NodeRow> node_rows(const Fleet& fleet) {
  std::vector<NodeRow> rows;
  for (const auto& [node, units] : by_node(fleet)) {
    NodeRow r;
    r.node = node;
    std::set<std::string> layers;
    for (const FleetUnit* u : units) {
      ++r.gpus;
      if (u->state == UnitState::Passed) {
        ++r.passed;
      } else if (u->state == UnitState::Failed) {
        ++r.failed;
        layers.insert(u->verdict_words());
      } else {
        ++r.missing;
        layers.insert(u->state == UnitState::Missing ? "no report" : "unreadable report");
      }
    }
    r.outcome = r.failed + r.missing == 0 ? "healthy"
                : r.passed == 0           ? "failing"
                                          : "partly failing";
    for (const std::string& l : layers) r.layers += (r.layers.empty() ? "" : ", ") + l;
    if (r.layers.empty()) r.layers = "-";
    rows.push_back(std::move(r));
  }
  // Failing nodes first: they are why anyone reads this.
  std::stable_sort(rows.begin(), rows.end(), [](const NodeRow& a, const NodeRow& b) {
    return (a.failed + a.missing > 0) > (b.failed + b.missing > 0);
  });
  return rows;
}

// Layer (or "no report") -> the units that stopped there: the layers in their order, then
// any other stage a failed report names (output, complete, one unknown), then "no report".
std::vector<std::pair<std::string, std::vector<const FleetUnit*>>> failures_by_layer(
    const Fleet& fleet) {
  std::vector<std::pair<std::string, std::vector<const FleetUnit*>>> out;
  auto add = [&out](const std::string& layer, const FleetUnit* u) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == layer; });
    if (it == out.end()) it = out.insert(out.end(), {layer, {}});
    it->second.push_back(u);
  };
  for (const char* layer : kLayers)
    for (const FleetUnit& u : fleet.units)
      if (u.state == UnitState::Failed && u.stage == layer) add(layer, &u);
  const int past_layers = static_cast<int>(kLayerCount);
  for (const FleetUnit& u : fleet.units) {
    const int rank = stage_rank(u.stage);
    if (u.state == UnitState::Failed && (rank < 0 || rank == past_layers)) add(u.stage, &u);
  }
  for (const FleetUnit& u : fleet.units)
    if (u.state == UnitState::Missing || u.state == UnitState::Unreadable) add("no report", &u);
  return out;
}

struct LadderStep {
  std::size_t passed = 0, failed = 0, not_reached = 0;
};

// The ladder of the layers, counting GPUs: a GPU passed every layer below the one it stopped
// at.
std::string fleet_ladder(const Fleet& fleet) {
  std::array<LadderStep, kLayerCount> steps{};
  std::size_t without = 0;
  for (const FleetUnit& u : fleet.units) {
    if (u.state != UnitState::Passed && u.state != UnitState::Failed) {
      ++without;
      continue;
    }
    const int reached = u.state == UnitState::Passed ? static_cast<int>(kLayerCount)
                                                     : stage_rank(u.stage);
    for (std::size_t i = 0; i < kLayerCount; ++i) {
      const int layer = static_cast<int>(i);
      if (reached < 0 || layer == reached) ++steps[i].failed;  // an unknown stage fails them all
      else if (layer < reached) ++steps[i].passed;
      else ++steps[i].not_reached;
    }
  }
  std::ostringstream ladder;
  ladder << "<ol class=\"ladder\" id=\"ladder\" data-counts=\"gpus\">\n";
  for (std::size_t i = 0; i < kLayerCount; ++i) {
    const LadderStep& s = steps[i];
    const std::string state = s.failed > 0 ? "failed" : s.passed > 0 ? "passed" : "not reached";
    ladder << "<li class=\"" << (state == "not reached" ? "skipped" : state) << "\" data-layer=\""
           << kLayers[i] << "\" data-state=\"" << state << "\"><strong>" << kLayers[i]
           << "</strong>: " << state << " (GPUs: " << s.passed << " passed, " << s.failed
           << " failed here, " << s.not_reached << " never reached it, " << without
           << " without a report)</li>\n";
  }
  ladder << "</ol>\n";
  return ladder.str();
}

// Nodes by outcome and which layer fails where, as a <section id="fleet">.
std::string fleet_view(const Fleet& fleet) {
  std::ostringstream view;
  view << "<section id=\"fleet\">\n<h2>The fleet: nodes by outcome</h2>\n<table id=\"nodes\">\n"
       << "<tr><th>node</th><th>outcome</th><th>GPUs</th><th>passed</th><th>failed</th>"
       << "<th>no report</th><th>where it fails</th></tr>\n";
  for (const NodeRow& r : node_rows(fleet)) {
    view << "<tr data-node=\"" << html_escape(r.node) << "\" data-outcome=\"" << r.outcome
         << "\"><td>" << html_escape(r.node) << "</td><td class=\""
         << (r.outcome == "healthy" ? "passed" : "failed") << "\">" << r.outcome << "</td><td>"
         << r.gpus << "</td><td>" << r.passed << "</td><td>" << r.failed << "</td><td>"
         << r.missing << "</td><td>" << html_escape(r.layers) << "</td></tr>\n";
  }
  view << "</table>\n<h2>Which layer fails where</h2>\n";
  const auto layers = failures_by_layer(fleet);
  if (layers.empty()) {
    view << "<p id=\"where\">Nowhere: every GPU passed.</p>\n";
  } else {
    view << "<table id=\"where\">\n<tr><th>layer</th><th>GPUs</th><th>where</th></tr>\n";
    for (const auto& [layer, units] : layers) {
      view << "<tr data-layer=\"" << html_escape(layer) << "\"><td>" << html_escape(layer)
           << "</td><td>" << units.size() << "</td><td>";
      for (std::size_t i = 0; i < units.size(); ++i)
        view << (i ? ", " : "") << html_escape(units[i]->id())
             << (units[i]->state == UnitState::Failed ? " " + html_escape(units[i]->verdict_words())
                                                     : std::string());
      view << "</td></tr>\n";
    }
    view << "</table>\n";
  }
  view << "</section>\n";
  return view.str();
}

}  // namespace

std::string FleetUnit::verdict_words() const {
  return code + "(" + std::to_string(exit_code) + ") " + stage;
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
  std::map<std::string, CheckReport> reports;
  for (const std::filesystem::path& file : json_files(dir, /*missing_ok=*/false)) {
    const std::optional<std::string> text = kd::read_file(file.string(), kd::kWholeFile);
    CheckReport& r = reports[file.stem().string()];
    r = parse_check_report(text.value_or(""));
    r.read = text.has_value();
  }
  std::map<std::string, FleetUnit> units = expected_units(expected, fleet.warnings);
  judge_units(reports, units, fleet.warnings);
  for (auto& [name, u] : units) fleet.units.push_back(std::move(u));

  std::vector<std::string> notes;
  fleet.facts = certificate_of(reports, notes);  // its warnings repeat the ones above
  std::size_t gpu_reports = 0;
  for (const FleetUnit& u : fleet.units)
    if (u.device == "cuda") ++gpu_reports;
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
      c.time = u->seconds;
      report.time += u->seconds;
      const std::string file = u->id() + ".json";
      switch (u->state) {
        case UnitState::Passed:
          c.verdict = Verdict::Passed;
          c.system_out = u->verdict_words() + ": " + u->message;
          break;
        case UnitState::Failed:
          c.verdict = Verdict::Failure;
          c.type = u->code;
          c.message = u->verdict_words() + ": " + u->message;
          c.body = c.message + "\n" + (u->error.empty() ? "" : "error: " + u->error + "\n") +
                   "The first layer that fails on " + node + " (" + u->unit + ") is " + u->stage +
                   ". The report, " + file + ":\n" + u->json;
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
          c.body = c.message + (u->json.empty() ? "" : "\n" + u->json);
          break;
      }
      suite.cases.push_back(std::move(c));
    }
    report.suites.push_back(std::move(suite));
  }
  report.certificate = fleet.facts;
  seal(report);
  return report;
}

namespace {

// Each unit's report, keyed "<node>.<unit>" as its case is.
CaseReports unit_reports(const Fleet& fleet) {
  CaseReports reports;
  for (const FleetUnit& u : fleet.units)
    if (!u.json.empty()) reports[u.id()] = u.report;
  return reports;
}

}  // namespace

std::string fleet_markdown(const Fleet& fleet, const Report& report, const Causes& causes) {
  std::string out = summary_markdown(report, unit_reports(fleet), causes);
  out += "\n## The fleet: nodes by outcome\n\n| node | outcome | GPUs | passed | failed | no "
         "report | where it fails |\n|---|---|---|---|---|---|---|\n";
  for (const NodeRow& r : node_rows(fleet)) {
    out += "| " + markdown_cell(r.node) + " | " + r.outcome + " | " + std::to_string(r.gpus) + " | " +
           std::to_string(r.passed) + " | " + std::to_string(r.failed) + " | " +
           std::to_string(r.missing) + " | " + markdown_cell(r.layers) + " |\n";
  }
  out += "\n## Which layer fails where\n\n";
  const auto layers = failures_by_layer(fleet);
  if (layers.empty()) {
    out += "Nowhere: every GPU passed.\n";
    return out;
  }
  out += "| layer | GPUs | where |\n|---|---|---|\n";
  for (const auto& [layer, units] : layers) {
    std::string where;
    for (const FleetUnit* u : units) {
      where += (where.empty() ? "" : ", ") + u->id();
      if (u->state == UnitState::Failed)
        where += " " + u->code + "(" + std::to_string(u->exit_code) + ")";
    }
    out += "| " + markdown_cell(layer) + " | " + std::to_string(units.size()) + " | " + markdown_cell(where) +
           " |\n";
  }
  return out;
}

std::string fleet_html(const Fleet& fleet, const Report& report, const Causes& causes) {
  // The fleet right after the counts, above the environment: it is what this page is about.
  return certificate_html(report, unit_reports(fleet), causes,
                          PageParts{fleet_view(fleet), fleet_ladder(fleet)});
}

}  // namespace kd::junit
