// kernodeck-machine: what identifies this machine (machine.hpp), for ci/'s scripts, which must
// not collect it again in their own way.
//
//   kernodeck-machine strings             {"home": ..., "host": ..., "user": ...} ("" for none)
//   kernodeck-machine marked NAME=VALUE   the live processes started with NAME=VALUE, a pid a line
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

#include "machine.hpp"

int main(int argc, char** argv) {
  CLI::App app{"What identifies this machine, for the scripts that keep it out of reports"};
  app.require_subcommand(1);
  CLI::App* strings = app.add_subcommand("strings", "HOME, the host name, the user's name (JSON)");
  std::string assignment;
  CLI::App* marked = app.add_subcommand("marked", "the live processes started with NAME=VALUE");
  marked->add_option("assignment", assignment, "NAME=VALUE")->required();
  CLI11_PARSE(app, argc, argv);
  if (strings->parsed()) {
    const kd::MachineStrings machine = kd::machine_strings();
    const nlohmann::ordered_json out = {
        {"home", machine.home}, {"host", machine.host}, {"user", machine.user}};
    std::cout << out.dump(2) << "\n";
  }
  if (marked->parsed()) {
    for (int pid : kd::processes_carrying(assignment)) std::cout << pid << "\n";
  }
  return 0;
}
