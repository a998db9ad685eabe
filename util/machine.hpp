// What identifies the machine a program runs on, in one place for everything outside the check
// that must keep it out of what it publishes (reporting's published scan, the conformance
// suite's leak checks, ci/'s scrub through kernodeck-machine), and the processes a run left
// behind, found by the marker variable it gave them (the suite's cases, ci/kit/run).
// The check's own sanitizing (check/facts/sanitize.cpp) is its own: it follows the contract's report.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kd {

// The strings that name this machine or its user. Each is "" where there is none to hide.
struct MachineStrings {
  std::string home;  // HOME, unless unset, empty or "/"
  std::string host;  // the host name
  std::string user;  // the effective user's name, unless root (every machine has one, and the
                     // suite's own words use it)
};

MachineStrings machine_strings();

// Every process id /proc lists.
std::vector<int> process_ids();

// Fields of /proc/PID/stat: the command name, and after it the state, ppid and pgrp; none when
// the process is gone or its stat cannot be read.
struct ProcessStat {
  char state = '?';
  int ppid = 0;
  int pgrp = 0;
  std::string comm;
};
std::optional<ProcessStat> process_stat(int pid);

// The live processes (not zombies) other than this one whose environment, as they were started,
// holds `assignment` ("NAME=VALUE") exactly; read from /proc, each environment up to the
// kernel's limit on arguments and environment together.
std::vector<int> processes_carrying(const std::string& assignment);

}  // namespace kd
