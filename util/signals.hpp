// Signal numbers as people read them: "SIGTERM", not 15.
#pragma once

#include <string>

namespace kd {

// "SIGKILL" for the signals a run usually meets; "signal N" for any other.
std::string signal_name(int signal);

}  // namespace kd
