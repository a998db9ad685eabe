// kernodeck-evidence: holds committed GPU evidence folders (what `ci/gpu-proof run`
// wrote, committed under docs/evidence/<gpu>-<date>/) against the contract.
//
//   kernodeck-evidence [--allow-none] DIR...
//
// In each DIR: junit.xml, summary.txt and hand/default.json must exist; every
// *.json that is a report (an object with schema_version) must hold every
// invariant the conformance suite asserts of a report, its arguments taken
// from its own `requested` and its exit code from the sibling <name>.exit when
// there is one (the hand runs); every file must be free of details of the
// machine (absolute paths not behind a placeholder such as {out}, GPU UUIDs,
// MAC, IPv4 and e-mail addresses).
//
// Prints one line per problem, "FILE: problem", then a count. Exits 0 when
// everything holds, 1 when anything does not, 2 on a usage error. With no DIR,
// --allow-none says so and exits 0 (no evidence committed yet).
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "evidence.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Holds committed GPU evidence folders (ci/gpu-proof run's OUT) against the "
               "contract: every report, and nothing of the machine in any file.",
               "kernodeck-evidence"};
  std::vector<std::string> folders;
  bool allow_none = false;
  app.add_option("DIR", folders, "evidence folders, e.g. docs/evidence/<gpu>-<date>")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--allow-none", allow_none, "no DIR at all is fine (no evidence committed yet)");
  try {
    app.parse(argc, argv);
    if (folders.empty() && !allow_none) {
      throw CLI::RequiredError("DIR (or --allow-none when there may be none)");
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  if (folders.empty()) {
    std::cout << "kernodeck-evidence: no evidence folder to check" << std::endl;
    return 0;
  }
  size_t count = 0;
  for (const std::string& folder : folders) {
    for (const auto& p : kdh::check_evidence_folder(folder)) {
      std::cout << p.file << ": " << p.problem << '\n';
      ++count;
    }
  }
  std::cout << "kernodeck-evidence: " << count << (count == 1 ? " problem" : " problems")
            << " in " << folders.size() << (folders.size() == 1 ? " folder" : " folders")
            << std::endl;
  return count == 0 ? 0 : 1;
}
