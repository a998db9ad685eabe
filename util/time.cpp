#include "util/time.hpp"

namespace kd {

Clock::duration from_seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

Clock::time_point deadline_in(double s) { return Clock::now() + from_seconds(s); }

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

double seconds_since(Clock::time_point from) { return seconds_between(from, Clock::now()); }

}  // namespace kd
