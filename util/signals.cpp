#include "util/signals.hpp"

#include <signal.h>

#include <array>
#include <utility>

namespace kd {

std::string signal_name(int sig) {
  static const std::array<std::pair<int, const char*>, 17> kNames{{
      {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
      {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
      {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
      {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
      {SIGXFSZ, "SIGXFSZ"},
  }};
  for (const auto& [number, name] : kNames) {
    if (number == sig) return name;
  }
  return "signal " + std::to_string(sig);
}

}  // namespace kd
