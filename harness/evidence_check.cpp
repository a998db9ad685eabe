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
//   kernodeck-evidence --published [--this-machine] [--machine-path PATH]...
//                      [--machine-name NAME]... DIR...
//
// A folder of published reports (reports/, what dashboards and artifacts
// show): every text file, in every subfolder, must be free of the same details
// of the machine, of the folders given with --machine-path (the checkout, the
// build tree) and of the names given with --machine-name (as whole words);
// --this-machine adds this machine's HOME, host name and user name (unless
// root). Binary files (a screenshot) are listed, not read.
//
// Prints one line per problem, "FILE: problem", then a count. Exits 0 when
// everything holds, 1 when anything does not, 2 on a usage error. With no DIR,
// --allow-none says so and exits 0 (no evidence committed yet).
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "evidence.hpp"

namespace {

// Prints each problem of published report folders, binary files as not read, then a count.
int check_published(const std::vector<std::string>& folders, const kd::published::MachineDetails& machine) {
  size_t count = 0, scanned = 0;
  for (const std::string& folder : folders) {
    std::vector<std::string> binary;
    for (const auto& p : kd::published::check_published_folder(folder, machine, binary, scanned)) {
      std::cout << p.file << ": " << p.problem << '\n';
      ++count;
    }
    for (const std::string& file : binary) std::cout << file << ": binary, not read\n";
  }
  std::cout << "kernodeck-evidence: " << count << (count == 1 ? " problem" : " problems")
            << " in " << scanned << " published files" << std::endl;
  return count == 0 ? 0 : 1;
}

// Prints each problem of evidence folders, then a count.
int check_evidence(const std::vector<std::string>& folders) {
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Holds committed GPU evidence folders (ci/gpu-proof run's OUT) against the "
               "contract: every report, and nothing of the machine in any file.",
               "kernodeck-evidence"};
  std::vector<std::string> folders;
  bool allow_none = false;
  bool published = false;
  bool this_machine = false;
  kd::published::MachineDetails machine;
  app.add_option("DIR", folders, "evidence folders, e.g. docs/evidence/<gpu>-<date>")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--allow-none", allow_none, "no DIR at all is fine (no evidence committed yet)");
  auto* published_flag = app.add_flag(
      "--published", published,
      "DIR are folders of published reports (reports/): only the machine's details are checked");
  app.add_flag("--this-machine", this_machine,
               "also this machine's HOME, host name and user name (with --published)")
      ->needs(published_flag);
  app.add_option("--machine-path", machine.paths, "a folder of the machine (with --published)")
      ->type_name("PATH")
      ->allow_extra_args(false)
      ->needs(published_flag);
  app.add_option("--machine-name", machine.names,
                 "a name of the machine: host, user (with --published)")
      ->type_name("NAME")
      ->allow_extra_args(false)
      ->needs(published_flag);
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
  if (this_machine) {
    const kd::published::MachineDetails here = kd::published::this_machine();
    machine.paths.insert(machine.paths.end(), here.paths.begin(), here.paths.end());
    machine.names.insert(machine.names.end(), here.names.begin(), here.names.end());
  }
  return published ? check_published(folders, machine) : check_evidence(folders);
}
