// kernodeck-causes: the cause catalogue (causes.hpp) as the docs and
// dashboards read it, so that nothing copies it by hand.
//
//   kernodeck-causes --contract   the contract's causes table (Markdown)
//   kernodeck-causes --readme     the README's compact table (Markdown)
//   kernodeck-causes --json       every row as JSON, for dashboards and the certificate
//   kernodeck-causes --outcomes   the outcome table (outcome.hpp) as JSON, with the usage
//                                 error's exit status, for the scripts that act on the check's
//                                 exit codes (ci/templates_check.py), so that none writes the
//                                 numbers again: {"usage_exit_code", "outcomes": [{"code",
//                                 "exit_code", "passed"}...]}
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

#include "causes/causes.hpp"
#include "facts/outcome.hpp"

namespace {

// Table cells keep their words: pipes and backticks are escaped.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '`') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string code_cell(std::string_view text) { return "`" + std::string(text) + "`"; }

void contract_table() {
  std::cout << "| `error.type` | stage | code | cause | recognised by | message | next action |\n"
               "|---|---|---|---|---|---|---|\n";
  for (kd::CauseId id : kd::all_causes()) {
    const kd::CauseInfo& c = kd::cause_info(id);
    std::cout << "| " << code_cell(c.type) << " | " << kd::stage_text(id) << " | "
              << code_cell(kd::code_of(c.outcome)) << " (" << kd::exit_code_of(c.outcome) << ") | "
              << cell(c.title) << " | " << cell(c.recognised) << " | " << cell(c.what) << " | "
              << cell(c.next_action) << " |\n";
  }
}

void readme_table() {
  std::cout << "| cause | `error.type` | next action |\n|---|---|---|\n";
  for (kd::CauseId id : kd::all_causes()) {
    const kd::CauseInfo& c = kd::cause_info(id);
    std::cout << "| " << cell(c.title) << " | " << code_cell(c.type) << " | "
              << cell(c.next_action) << " |\n";
  }
}

void json_rows() {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (kd::CauseId id : kd::all_causes()) {
    const kd::CauseInfo& c = kd::cause_info(id);
    // The GPU runtime's error numbers, or the system's by name.
    nlohmann::ordered_json numbers = nlohmann::ordered_json::array();
    nlohmann::ordered_json errnos = nlohmann::ordered_json::array();
    for (int n : c.how.numbers) {
      if (n != 0 && c.how.api == kd::Api::System) errnos.push_back(kd::errno_name(n));
      if (n != 0 && c.how.api != kd::Api::System) numbers.push_back(n);
    }
    rows.push_back({{"key", c.key.view()},
                    {"title", c.title},
                    {"stage", kd::stage_text(id)},
                    {"code", kd::code_of(c.outcome)},
                    {"exit_code", kd::exit_code_of(c.outcome)},
                    {"error_type", c.type},
                    {"runtime_errors", numbers},
                    {"errno", errnos},
                    {"recognised", c.recognised},
                    {"message", c.what},
                    {"next_action", c.next_action}});
  }
  std::cout << rows.dump(2) << "\n";
}

void outcome_table() {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (kd::Outcome outcome : kd::all_outcomes()) {
    rows.push_back({{"code", std::string(kd::code_of(outcome))},
                    {"exit_code", kd::exit_code_of(outcome)},
                    {"passed", kd::is_pass(outcome)}});
  }
  const nlohmann::ordered_json table = {{"usage_exit_code", kd::kUsageExitCode},
                                        {"outcomes", rows}};
  std::cout << table.dump(2) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The check's cause catalogue, as the docs and dashboards read it. {fact} in a "
               "message is filled in with the run's facts.",
               "kernodeck-causes"};
  std::string format;
  auto* group = app.add_option_group("format", "what to print");
  group->add_flag_callback("--contract", [&] { format = "contract"; },
                           "the contract's causes table (Markdown)");
  group->add_flag_callback("--readme", [&] { format = "readme"; },
                           "the README's compact table (Markdown)");
  group->add_flag_callback("--json", [&] { format = "json"; }, "every row as JSON");
  group->add_flag_callback("--outcomes", [&] { format = "outcomes"; },
                           "the outcome table, with the usage error's exit status, as JSON");
  group->require_option(1);
  CLI11_PARSE(app, argc, argv);
  if (format == "contract") contract_table();
  if (format == "readme") readme_table();
  if (format == "json") json_rows();
  if (format == "outcomes") outcome_table();
  return 0;
}
