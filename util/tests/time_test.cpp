// Covers util/time.hpp: seconds on the monotonic clock.
#include "util/time.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace kd {
namespace {

TEST(FromSeconds, ConvertsFractions) {
  EXPECT_EQ(from_seconds(1.5), std::chrono::milliseconds(1500));
  EXPECT_EQ(from_seconds(0.25), std::chrono::milliseconds(250));
  EXPECT_EQ(from_seconds(0), Clock::duration::zero());
}

TEST(SecondsBetween, IsSigned) {
  const auto t = Clock::now();
  EXPECT_DOUBLE_EQ(seconds_between(t, t + std::chrono::milliseconds(250)), 0.25);
  EXPECT_DOUBLE_EQ(seconds_between(t + std::chrono::milliseconds(250), t), -0.25);
}

TEST(DeadlineIn, IsThatFarAhead) {
  const auto before = Clock::now();
  const auto deadline = deadline_in(2.0);
  EXPECT_GE(seconds_between(before, deadline), 2.0);
  EXPECT_LT(seconds_between(before, deadline), 3.0);
}

TEST(SecondsSince, GrowsWithTime) {
  const auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(seconds_since(start), 0.02);
}

}  // namespace
}  // namespace kd
