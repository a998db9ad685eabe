// kernodeck-requirements: the suite's runner requirements (requirements.hpp), as the docs show
// them (--markdown), or probed on this runner: each one met, or the reason a case that needs it
// is skipped (or failed, on a runner that declared a GPU).
//
//   kernodeck-requirements [--markdown | --json]
//
// --json: what this runner meets, as data ([{"name", "met", "fatal", "reason"}]), for the scripts
// that judge a run by its skip and failure reasons (ci/gpu_proof_report.py).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "requirements.hpp"

int main(int argc, char** argv) {
  CLI::App app{"The conformance suite's runner requirements, or what this runner meets"};
  bool markdown = false;
  bool json = false;
  app.add_flag("--markdown", markdown, "print the registry as a Markdown table (docs)");
  app.add_flag("--json", json, "print what this runner meets as JSON")->excludes("--markdown");
  CLI11_PARSE(app, argc, argv);

  if (markdown) {
    std::printf("| requirement | what the runner must offer |\n|---|---|\n");
    for (const auto& r : kdh::all_requirements()) {
      std::printf("| `%s` | %s |\n", r.name, r.asks);
    }
    return 0;
  }
  if (json) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& r : kdh::all_requirements()) {
      auto unmet = kdh::unmet(r.requirement);
      rows.push_back({{"name", r.name}, {"met", !unmet}, {"fatal", unmet && unmet->fatal},
                      {"reason", unmet ? unmet->reason : std::string()}});
    }
    std::cout << rows.dump(2) << "\n";
    return 0;
  }
  for (const auto& r : kdh::all_requirements()) {
    auto unmet = kdh::unmet(r.requirement);
    std::printf("%-34s %s%s\n", r.name,
                !unmet ? "met" : unmet->fatal ? "unmet, a failure here: " : "unmet, skipped: ",
                unmet ? unmet->reason.c_str() : "");
  }
  return 0;
}
