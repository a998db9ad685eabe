#include "machine.hpp"

#include <dirent.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "files.hpp"

namespace kd {

MachineStrings machine_strings() {
  MachineStrings machine;
  if (const char* home = std::getenv("HOME");
      home != nullptr && std::strcmp(home, "") != 0 && std::strcmp(home, "/") != 0) {
    machine.home = home;
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) machine.host = host;
  if (geteuid() != 0) {
    if (const passwd* user = getpwuid(geteuid()); user != nullptr && user->pw_name != nullptr) {
      machine.user = user->pw_name;
    }
  }
  return machine;
}

std::vector<int> process_ids() {
  std::vector<int> pids;
  if (DIR* proc = opendir("/proc")) {
    while (const dirent* entry = readdir(proc)) {
      char* end = nullptr;
      const long pid = std::strtol(entry->d_name, &end, 10);
      if (end != entry->d_name && *end == '\0') pids.push_back(static_cast<int>(pid));
    }
    closedir(proc);
  }
  return pids;
}

std::optional<ProcessStat> process_stat(int pid) {
  const std::string text =
      read_file("/proc/" + std::to_string(pid) + "/stat", 4096).value_or(std::string());
  // The command name may hold anything, parentheses too: it ends at the last ')'.
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos) return std::nullopt;
  ProcessStat st;
  st.comm = text.substr(open + 1, close - open - 1);
  std::istringstream rest(text.substr(close + 1));
  rest >> st.state >> st.ppid >> st.pgrp;
  return st;
}

namespace {

bool environment_holds(int pid, const std::string& assignment) {
  const std::string env =
      read_file("/proc/" + std::to_string(pid) + "/environ", 4 << 20).value_or(std::string());
  for (size_t pos = 0; pos < env.size();) {
    size_t end = env.find('\0', pos);
    if (end == std::string::npos) end = env.size();
    if (env.compare(pos, end - pos, assignment) == 0) return true;
    pos = end + 1;
  }
  return false;
}

}  // namespace

std::vector<int> processes_carrying(const std::string& assignment) {
  std::vector<int> found;
  const int self = getpid();
  for (int pid : process_ids()) {
    if (pid == self || !environment_holds(pid, assignment)) continue;
    const char state = process_stat(pid).value_or(ProcessStat{}).state;
    if (state != 'Z' && state != 'X' && state != '?') found.push_back(pid);
  }
  return found;
}

}  // namespace kd
