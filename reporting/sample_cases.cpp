// Sample GoogleTest program for the report writer's tests: two layers shaped like the conformance
// suite, with every outcome kernodeck-junit must report. `cli` registers each case with its own
// file and line (testing::RegisterTest, as a table's helper does), `probe` is value-parameterized
// (one TEST_P, empty instantiation prefix, fixture named after the layer), so that GoogleTest
// records a place of its own for each cli case and the TEST_P's for every probe case. Never
// registered as a test itself: it fails on purpose.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>

namespace {

std::string name_of(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace

// Lower-case fixture names, as the layers are named.
class cli : public ::testing::Test {
 public:
  explicit cli(std::string id) : id_(std::move(id)) {}
  void TestBody() override;

 private:
  std::string id_;
};
class probe : public ::testing::TestWithParam<std::string> {};

void cli::TestBody() {
  const std::string& id = id_;
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

namespace {

// "cli.run/<id>", declared on the line that registers it.
void register_cli(const std::string& id, int line) {
  ::testing::RegisterTest("cli", ("run/" + id).c_str(), nullptr, nullptr, __FILE__, line,
                          [id]() -> cli* { return new cli(id); });
}

[[maybe_unused]] const bool cli_registered = [] {
  register_cli("usage_ok", __LINE__);
  register_cli("report_mismatch", __LINE__);
  register_cli("needs_gpu", __LINE__);
  return true;
}();

}  // namespace

INSTANTIATE_TEST_SUITE_P(, probe,
                         ::testing::Values("healthy", "segfault", "hang_forever", "dirty_exit"),
                         name_of);

// A plain unit test, which keeps its TEST name.
TEST(SampleUnit, Holds) { EXPECT_EQ(2 + 2, 4); }
