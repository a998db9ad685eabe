#include "machine.hpp"

#include <dirent.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

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

namespace {

// The state letter of /proc/PID/stat (after the command name, which may hold anything), or '?'.
char process_state(const std::string& pid) {
  const std::string stat = read_file("/proc/" + pid + "/stat", 4096).value_or(std::string());
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() ? stat[close + 2] : '?';
}

bool environment_holds(const std::string& pid, const std::string& assignment) {
  const std::string env =
      read_file("/proc/" + pid + "/environ", 4 << 20).value_or(std::string());
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
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  const int self = getpid();
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid == self) continue;
    const std::string name = entry->d_name;
    if (!environment_holds(name, assignment)) continue;
    const char state = process_state(name);
    if (state != 'Z' && state != 'X' && state != '?') found.push_back(static_cast<int>(pid));
  }
  closedir(proc);
  return found;
}

}  // namespace kd
