// Covers cli.hpp: every option, its defaults, and what is a usage error.
#include "run/cli.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run/python_probe.hpp"
#include "run/version.hpp"

namespace kd {
namespace {

ParseResult parse(std::vector<std::string> args) { return parse_command_line(args); }

// The options of a parse expected to succeed; fails the test otherwise.
Options options_of(const std::vector<std::string>& args) {
  ParseResult r = parse(args);
  if (auto* usage = std::get_if<UsageError>(&r)) {
    ADD_FAILURE() << "unexpected usage error: " << usage->message;
  } else if (std::holds_alternative<InfoRequest>(r)) {
    ADD_FAILURE() << "unexpected info request";
  }
  auto* options = std::get_if<Options>(&r);
  return options != nullptr ? *options : Options{};
}

// The message of a parse expected to be a usage error, or "" (and a failure).
std::string usage_error_of(const std::vector<std::string>& args) {
  ParseResult r = parse(args);
  auto* usage = std::get_if<UsageError>(&r);
  if (usage == nullptr) {
    std::string joined;
    for (const auto& a : args) joined += "[" + a + "]";
    ADD_FAILURE() << "expected a usage error for " << joined;
    return "";
  }
  EXPECT_FALSE(usage->message.empty());
  return usage->message;
}

TEST(Cli, PrecisionsAreAskedInOrderEachOnce) {
  Options o = options_of({"--device", "cpu", "--dtype", "bfloat16", "--dtype=float8_e4m3fn",
                          "--dtype", "bfloat16"});
  EXPECT_EQ(o.dtypes, (std::vector<std::string>{"bfloat16", "float8_e4m3fn"}));
  EXPECT_TRUE(options_of({}).dtypes.empty());
  const std::string refused = usage_error_of({"--dtype", "half"});
  EXPECT_NE(refused.find("--dtype takes one of float16, bfloat16, float8_e4m3fn, float8_e5m2, "
                         "float32, float64, not 'half'"),
            std::string::npos)
      << refused;
  usage_error_of({"--dtype"});
}

// A weights file is asked once per path, named once by its base name: the name every room of
// the check uses (the python probe's answers, the application stage, requested.weights).
TEST(Cli, WeightsAreAskedOnceEachNamedByItsBaseName) {
  Options o = options_of({"--weights", "models/model.safetensors", "--weights=/w/adapter/",
                          "--weights", "models/model.safetensors", "--weights", "sd.pt"});
  ASSERT_EQ(o.weights.size(), 3u);
  EXPECT_EQ(o.weights[0].path, "models/model.safetensors");
  EXPECT_EQ(o.weights[0].name, "model.safetensors");
  EXPECT_EQ(o.weights[1].path, "/w/adapter/");  // as given
  EXPECT_EQ(o.weights[1].name, "adapter");      // a folder's name, its slash dropped
  EXPECT_EQ(o.weights[2].name, "sd.pt");
  EXPECT_EQ(weights_asked("/").name, "/");
  usage_error_of({"--weights", ""});
}

// The names --dtype takes are the python probe's PRECISIONS (probe/python/precision.py), the
// program the check embeds: one list, read twice.
TEST(Cli, PrecisionsAreTheProbes) {
  const std::string program(python_probe_program());
  std::string listed = "PRECISIONS = (";
  for (std::string_view name : kPrecisions) {
    listed += (listed.back() == '(' ? "\"" : ", \"") + std::string(name) + "\"";
  }
  listed += ")";
  EXPECT_NE(program.find(listed), std::string::npos) << listed;
}

TEST(Cli, DefaultsWithoutArguments) {
  Options o = options_of({});
  EXPECT_EQ(o.device, Device::Cuda);
  EXPECT_EQ(o.device_index, 0);
  EXPECT_DOUBLE_EQ(o.timeout_s, 30.0);
  EXPECT_FALSE(o.output.has_value());
  EXPECT_FALSE(o.host_check);
}

TEST(Cli, EveryOptionTogether) {
  Options o = options_of({"--device", "cpu", "--device-index", "3", "--timeout", "7.5",
                          "--output", "report.json", "--host-check"});
  EXPECT_EQ(o.device, Device::Cpu);
  EXPECT_EQ(o.device_index, 3);
  EXPECT_DOUBLE_EQ(o.timeout_s, 7.5);
  ASSERT_TRUE(o.output.has_value());
  EXPECT_EQ(*o.output, "report.json");
  EXPECT_TRUE(o.host_check);
}

TEST(Cli, OrderOfOptionsDoesNotMatter) {
  Options o = options_of({"--host-check", "--output", "r.json", "--timeout", "12",
                          "--device-index", "1", "--device", "cuda"});
  EXPECT_EQ(o.device, Device::Cuda);
  EXPECT_EQ(o.device_index, 1);
  EXPECT_DOUBLE_EQ(o.timeout_s, 12.0);
  EXPECT_EQ(o.output.value_or(""), "r.json");
  EXPECT_TRUE(o.host_check);
}

TEST(Cli, EqualsFormIsAccepted) {
  Options o = options_of({"--device=cpu", "--device-index=2", "--timeout=60"});
  EXPECT_EQ(o.device, Device::Cpu);
  EXPECT_EQ(o.device_index, 2);
  EXPECT_DOUBLE_EQ(o.timeout_s, 60.0);
}

TEST(Cli, DeviceCudaIsExplicitlyAccepted) {
  EXPECT_EQ(options_of({"--device", "cuda"}).device, Device::Cuda);
}

TEST(Cli, DeviceNames) {
  EXPECT_EQ(device_name(Device::Cuda), "cuda");
  EXPECT_EQ(device_name(Device::Cpu), "cpu");
}

TEST(Cli, RocmAndHipAreUsageErrorsThatPointToCuda) {
  for (const char* name : {"rocm", "hip"}) {
    std::string message = usage_error_of({"--device", name});
    EXPECT_NE(message.find("cuda"), std::string::npos) << message;
    EXPECT_NE(message.find(name), std::string::npos) << message;
  }
}

TEST(Cli, UnknownDeviceIsAUsageError) {
  for (const char* name : {"gpu", "CUDA", "Cpu", "cuda:0", "", "mps"}) {
    std::string message = usage_error_of({"--device", name});
    EXPECT_NE(message.find("--device"), std::string::npos) << message;
  }
}

TEST(Cli, UnknownOptionIsAUsageError) {
  std::string message = usage_error_of({"--frobnicate"});
  EXPECT_NE(message.find("--frobnicate"), std::string::npos) << message;
  usage_error_of({"-x"});
  usage_error_of({"--device-idx", "0"});
}

TEST(Cli, TimeoutBoundsAreInclusive) {
  EXPECT_DOUBLE_EQ(options_of({"--timeout", "5"}).timeout_s, 5.0);
  EXPECT_DOUBLE_EQ(options_of({"--timeout", "120"}).timeout_s, 120.0);
  EXPECT_DOUBLE_EQ(options_of({"--timeout", "5.0"}).timeout_s, 5.0);
  EXPECT_DOUBLE_EQ(options_of({"--timeout", "119.75"}).timeout_s, 119.75);
}

TEST(Cli, BadTimeoutsAreUsageErrors) {
  for (const char* value : {"4.9", "120.5", "120.0001", "0", "-30", "nan", "NaN", "inf",
                            "-inf", "infinity", "abc", "", "0x10", "1e1", "30s", " 30",
                            "30 ", "3O"}) {
    std::string message = usage_error_of({"--timeout", value});
    EXPECT_NE(message.find("--timeout"), std::string::npos) << "value [" << value << "]";
  }
}

TEST(Cli, TimeoutWithoutValueIsAUsageError) { usage_error_of({"--timeout"}); }

TEST(Cli, NegativeIndexIsAValueNotAUsageError) {
  // The contract makes a negative index DEVICE_INDEX_INVALID at run time.
  EXPECT_EQ(options_of({"--device-index", "-1"}).device_index, -1);
  EXPECT_EQ(options_of({"--device-index=-1"}).device_index, -1);
  EXPECT_EQ(options_of({"--device-index", "-7", "--device", "cpu"}).device_index, -7);
}

TEST(Cli, LargeIndexIsAValue) {
  // Outside any visible count, but a number: judged at run time.
  EXPECT_EQ(options_of({"--device-index", "9223372036854775807"}).device_index,
            9223372036854775807LL);
}

TEST(Cli, BadIndexesAreUsageErrors) {
  for (const char* value : {"99999999999999999999", "-99999999999999999999", "abc", "", "1.5",
                            "0x1", "1e3", "+3", " 1", "1 ", "one"}) {
    std::string message = usage_error_of({"--device-index", value});
    EXPECT_NE(message.find("--device-index"), std::string::npos) << "value [" << value << "]";
  }
}

TEST(Cli, OutputNeedsAName) {
  usage_error_of({"--output"});
  usage_error_of({"--output", ""});
}

TEST(Cli, OutputKeepsTheNameAsGiven) {
  EXPECT_EQ(options_of({"--output", "dir/sub/report 1.json"}).output.value_or(""),
            "dir/sub/report 1.json");
}

TEST(Cli, HelpIsAnInfoRequestListingTheOptions) {
  for (const char* flag : {"--help", "-h"}) {
    ParseResult r = parse({flag});
    auto* request = std::get_if<InfoRequest>(&r);
    ASSERT_NE(request, nullptr) << flag;
    for (const char* option :
         {"--device", "--device-index", "--timeout", "--output", "--host-check", "--version"}) {
      EXPECT_NE(request->text.find(option), std::string::npos) << option;
    }
  }
}

TEST(Cli, HelpWinsOverOtherOptions) {
  ParseResult r = parse({"--device", "cpu", "--help"});
  EXPECT_TRUE(std::holds_alternative<InfoRequest>(r));
}

TEST(Cli, VersionIsAnInfoRequestWithTheVersion) {
  ParseResult r = parse({"--version"});
  auto* request = std::get_if<InfoRequest>(&r);
  ASSERT_NE(request, nullptr);
  EXPECT_NE(request->text.find(kToolVersion), std::string::npos) << request->text;
  EXPECT_NE(request->text.find("kernodeck-diagnostic"), std::string::npos) << request->text;
}

TEST(Cli, RepeatedOptionsAreUsageErrors) {
  usage_error_of({"--device", "cpu", "--device", "cuda"});
  usage_error_of({"--device", "cpu", "--device", "cpu"});
  usage_error_of({"--device-index", "0", "--device-index", "1"});
  usage_error_of({"--timeout", "10", "--timeout", "20"});
  usage_error_of({"--output", "a.json", "--output", "b.json"});
  usage_error_of({"--host-check", "--host-check"});
}

TEST(Cli, PositionalArgumentsAreUsageErrors) {
  std::string message = usage_error_of({"extra"});
  EXPECT_NE(message.find("extra"), std::string::npos) << message;
  usage_error_of({"--device", "cpu", "extra"});
  usage_error_of({"cpu"});
  usage_error_of({"--", "x"});
}

TEST(Cli, UsageErrorsPointToHelp) {
  std::string message = usage_error_of({"--bogus"});
  EXPECT_NE(message.find("--help"), std::string::npos) << message;
}

}  // namespace
}  // namespace kd
