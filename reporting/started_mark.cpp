// Linked into every conformance program (and the sample of the JUnit tests): when a case
// starts, it writes "<GoogleTest's XML file>.started" holding the case's full name and where
// GoogleTest says it is declared (started_mark.hpp), so that the report of a run can tell a case
// that started and recorded no verdict (crashed, killed, timed out) from one that was not
// selected, and still say where it is declared. Without --gtest_output=xml:FILE it writes
// nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "started_mark.hpp"

namespace {

class StartedMark : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& info) override {
    const std::string output = GTEST_FLAG_GET(output);
    if (output.rfind("xml:", 0) != 0) return;
    std::filesystem::path file = output.substr(4);
    // A folder (ends in '/') gets GoogleTest's file name for the program's XML.
    if (file.filename().empty()) file /= "test_detail.xml";
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    std::ofstream mark(file.string() + kd::junit::kStartedSuffix, std::ios::app);
    const std::string name = std::string(info.test_suite_name()) + '.' + info.name();
    const char* declared_in = info.file() != nullptr ? info.file() : "";
    mark << kd::junit::started_line(name, declared_in, info.line());
  }
};

[[maybe_unused]] const bool registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new StartedMark);
  return true;
}();

}  // namespace
