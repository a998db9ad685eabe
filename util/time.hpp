// Time on the monotonic clock, in the seconds the contract speaks of: one
// conversion from a double, so that deadlines and graces are computed alike.
#pragma once

#include <chrono>

namespace kd {

using Clock = std::chrono::steady_clock;

// `s` seconds as the clock's own duration (rounded toward zero).
Clock::duration from_seconds(double s);

// The point `s` seconds from now.
Clock::time_point deadline_in(double s);

// Seconds from `from` to `to` (negative when `to` is earlier).
double seconds_between(Clock::time_point from, Clock::time_point to);

// Seconds from `from` to now.
double seconds_since(Clock::time_point from);

}  // namespace kd
