// Sample GoogleTest program for junit.consumer: two layers shaped like the conformance suite
// (value-parameterized, empty instantiation prefix, fixture named after the layer) with every
// outcome kernodeck-junit must report. Never registered as a test itself: it fails on purpose.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

std::string name_of(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace

// Lower-case fixture names, as the layers are named.
class cli : public ::testing::TestWithParam<std::string> {};
class probe : public ::testing::TestWithParam<std::string> {};

TEST_P(cli, run) {
  const std::string& id = GetParam();
  if (id == "report_mismatch") {
    // Several lines, markup characters, a CDATA terminator, a control character and non-ASCII
    // text: all must reach the dashboard intact or visibly replaced, never break the XML.
    ADD_FAILURE() << "expected code \"no_gpu\" but the report said <cuda_ok> & more\n"
                  << "command: kernodeck-diagnostic --device cuda\n"
                  << "stderr tail: ]]> bell\x07 here, 5 \xC2\xB5s";
  } else if (id == "needs_gpu") {
    GTEST_SKIP() << "no GPU on this runner";
  }
}

TEST_P(probe, run) {
  const std::string& id = GetParam();
  if (id == "segfault") {
    std::raise(SIGSEGV);
  } else if (id == "hang_forever") {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  } else if (id == "dirty_exit") {
    // Passes, then the process exits non-zero after GoogleTest has written its XML.
    std::atexit([] { std::_Exit(3); });
  }
}

INSTANTIATE_TEST_SUITE_P(, cli,
                         ::testing::Values("usage_ok", "report_mismatch", "needs_gpu"), name_of);
INSTANTIATE_TEST_SUITE_P(, probe,
                         ::testing::Values("healthy", "segfault", "hang_forever", "dirty_exit"),
                         name_of);

// A plain unit test, which keeps its TEST name.
TEST(SampleUnit, Holds) { EXPECT_EQ(2 + 2, 4); }
