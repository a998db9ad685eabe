// Covers util/signals.hpp: signal names.
#include "util/signals.hpp"

#include <gtest/gtest.h>
#include <signal.h>

namespace kd {
namespace {

TEST(SignalName, KnownAndUnknown) {
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGABRT), "SIGABRT");
  EXPECT_EQ(signal_name(SIGXFSZ), "SIGXFSZ");
  EXPECT_EQ(signal_name(64), "signal 64");
}

}  // namespace
}  // namespace kd
