// The main() of every conformance program (and of the report writer's sample): GoogleTest's, and
// with --case-records=DIR each case's record (contract/case_record.hpp) written into DIR when the
// case starts and again, whole, when it ends, so that the report of a run reads one file per case
// and tells a case that started and never ended (crashed, killed, timed out) from one that was not
// selected. CTest passes the flag to every case (suites/CMakeLists.txt, EXTRA_ARGS).
#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "contract/case_record.hpp"

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kFlag = "--case-records=";

std::string local_time_now() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &local);
  return text;
}

// "<file>:<line>", a newline and the text, as GoogleTest's own XML words a failed assertion or a
// skip.
std::string worded(const ::testing::TestPartResult& part) {
  std::string place = part.file_name() != nullptr ? part.file_name() : "unknown file";
  if (part.file_name() != nullptr && part.line_number() >= 0)
    place += ":" + std::to_string(part.line_number());
  return place + "\n" + part.message();
}

class CaseRecorder : public ::testing::EmptyTestEventListener {
 public:
  explicit CaseRecorder(fs::path dir) : dir_(std::move(dir)) {}

  void OnTestStart(const ::testing::TestInfo& info) override {
    record_ = {};
    record_.name = std::string(info.test_suite_name()) + "." + info.name();
    if (info.file() != nullptr && info.line() > 0) {
      record_.file = info.file();
      record_.line = info.line();
    }
    if (info.value_param() != nullptr) record_.promise = kdh::promise_of(info.value_param());
    record_.started = local_time_now();
    write();
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult& result = *info.result();
    record_.ended = true;
    record_.skipped = result.Skipped();
    for (int i = 0; i < result.total_part_count(); ++i) {
      const ::testing::TestPartResult& part = result.GetTestPartResult(i);
      if (part.failed()) record_.failures.push_back(worded(part));
      if (part.skipped() && record_.skip.empty()) record_.skip = worded(part);
    }
    record_.time = static_cast<double>(result.elapsed_time()) / 1000.0;
    write();
  }

 private:
  // Whole or not at all: written beside and renamed. A record that cannot be written says so in
  // the case's output, which the report quotes: without it the case would read as one that never
  // came back.
  void write() const {
    const fs::path file = dir_ / kdh::record_file(record_.name);
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    const fs::path temporary = file.string() + ".tmp";
    bool written = false;
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << kdh::record_text(record_);
      out.close();
      written = static_cast<bool>(out);
    }
    if (written) fs::rename(temporary, file, ec);
    if (!written || ec)
      std::cerr << "kernodeck: the record of " << record_.name << " could not be written to "
                << file.string() << (ec ? ": " + ec.message() : std::string()) << "\n";
  }

  fs::path dir_;
  kdh::CaseRecord record_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kFlag.size()) != kFlag || arg.size() == kFlag.size()) continue;
    ::testing::UnitTest::GetInstance()->listeners().Append(
        new CaseRecorder(fs::path(arg.substr(kFlag.size()))));
  }
  return RUN_ALL_TESTS();
}
