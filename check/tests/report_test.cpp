// Covers report.hpp: every key of the contract's report, in order, and what may go into it.
#include "run/report.hpp"

#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <string>
#include <vector>

#include "run/version.hpp"

namespace kd {
namespace {

using Keys = std::vector<std::string>;

Keys keys_of(const ojson& object) {
  Keys keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

const std::vector<Outcome> kAllOutcomes = {
    Outcome::GpuCheckPassed,  Outcome::CpuCheckPassed,    Outcome::InternalError,
    Outcome::TorchMissing,    Outcome::TorchImportFailed, Outcome::GpuBackendAbsent,
    Outcome::GpuUnavailable,  Outcome::DeviceIndexInvalid, Outcome::CheckFailed,
    Outcome::OutOfMemory,     Outcome::RuntimeError,      Outcome::Timeout,
    Outcome::WorkerFailed,    Outcome::OutputWriteFailed, Outcome::ExtensionImportFailed,
    Outcome::WeightsUnusable, Outcome::BackendLibraryMismatch, Outcome::CompileFailed,
};

const Sanitizer kNoSecrets({});

ojson build(const ReportInput& in) { return build_report(in, kNoSecrets); }

// The shape of CONTRACT.md, "The report"; `tool` may say more than it lists.
void expect_contract_shape(const ojson& r) {
  EXPECT_EQ(keys_of(r), (Keys{"schema_version", "tool", "status", "code", "exit_code", "stage",
                              "message", "requested", "runtime", "pytorch", "execution",
                              "application", "memory_by_stage", "host", "output", "error",
                              "warnings"}));
  EXPECT_EQ(r["schema_version"], 1);
  ASSERT_TRUE(r["tool"].is_object());
  Keys tool = keys_of(r["tool"]);
  ASSERT_GE(tool.size(), 2u);
  EXPECT_EQ(tool[0], "name");
  EXPECT_EQ(tool[1], "version");
  EXPECT_EQ(keys_of(r["requested"]),
            (Keys{"device", "device_index", "timeout_s", "host_check", "imports", "weights",
                  "compile", "dtypes"}));
  EXPECT_EQ(keys_of(r["memory_by_stage"]), (Keys{"import", "compute", "application"}));
  EXPECT_TRUE(r["requested"]["imports"].is_array());
  EXPECT_TRUE(r["warnings"].is_array());
  // Only the python probe reaches the application layer.
  EXPECT_TRUE(r["application"].is_null() || r["application"].is_object());
  EXPECT_EQ(keys_of(r["runtime"]),
            (Keys{"os_family", "arch", "check_build", "torch_source", "python_environment",
                  "python_version"}));
  // The compiled probe's report: no torch was looked for.
  EXPECT_TRUE(r["runtime"]["torch_source"].is_null());
  EXPECT_TRUE(r["runtime"]["python_environment"].is_null());
  EXPECT_TRUE(r["runtime"]["python_version"].is_null());
  EXPECT_EQ(keys_of(r["pytorch"]), (Keys{"version", "cuda", "hip", "backend", "gpu_available",
                                         "visible_device_count", "cudnn", "nccl", "miopen",
                                         "rccl", "import_warnings"}));
  EXPECT_TRUE(r["pytorch"]["import_warnings"].is_null());
  EXPECT_EQ(keys_of(r["execution"]),
            (Keys{"device", "device_name", "capability", "product_verified",
                  "gradient_verified", "loss", "synchronized", "gradient_source", "timings_ms",
                  "memory", "compile"}));
  EXPECT_EQ(keys_of(r["execution"]["timings_ms"]), (Keys{"load", "device_init", "compute"}));
  EXPECT_TRUE(r["host"].is_null() || r["host"].is_object());
  if (r["host"].is_object()) {
    EXPECT_EQ(keys_of(r["host"]), (Keys{"tool", "status", "driver_version", "memory_total_mib"}));
  }
  EXPECT_EQ(keys_of(r["output"]), (Keys{"requested", "written"}));
  EXPECT_TRUE(r["error"].is_null() || r["error"].is_object());
  if (r["error"].is_object()) {
    EXPECT_EQ(keys_of(r["error"]), (Keys{"type", "message", "evidence"}));
  }
  EXPECT_TRUE(r["status"] == "passed" || r["status"] == "failed");
  EXPECT_TRUE(r["message"].is_string());
}

ReportInput gpu_pass() {
  ReportInput in;
  in.options.device = Device::Cuda;
  in.outcome = Outcome::GpuCheckPassed;
  in.stage = Stage::Complete;
  in.findings.pytorch["version"] = "2.3.1+cu121";
  in.findings.pytorch["cuda"] = "12.1";
  in.findings.pytorch["backend"] = "cuda";
  in.findings.pytorch["gpu_available"] = true;
  in.findings.pytorch["visible_device_count"] = 2;
  in.findings.execution["device"] = "cuda:0";
  in.findings.execution["product_verified"] = true;
  in.findings.execution["gradient_verified"] = true;
  in.findings.execution["loss"] = 196.0;
  in.findings.execution["synchronized"] = true;
  in.findings.execution["device_name"] = "NVIDIA H200";
  in.findings.execution["capability"] = "9.0";
  in.findings.execution["memory"] = {{"allocated_bytes", 512}, {"reserved_bytes", 2097152}};
  return in;
}

TEST(Report, ShapeOfAGpuPass) {
  ojson r = build(gpu_pass());
  expect_contract_shape(r);
  EXPECT_EQ(r["status"], "passed");
  EXPECT_EQ(r["code"], "GPU_CHECK_PASSED");
  EXPECT_EQ(r["exit_code"], 0);
  EXPECT_EQ(r["stage"], "complete");
  EXPECT_EQ(r["tool"]["name"], "kernodeck-diagnostic");
  EXPECT_EQ(r["tool"]["version"], kToolVersion);
  EXPECT_EQ(r["pytorch"]["gpu_available"], true);
  EXPECT_EQ(r["pytorch"]["visible_device_count"], 2);
  EXPECT_EQ(r["execution"]["device"], "cuda:0");
  EXPECT_EQ(r["execution"]["memory"]["reserved_bytes"], 2097152);
  EXPECT_EQ(r["execution"]["device_name"], "NVIDIA H200");
  EXPECT_EQ(r["execution"]["capability"], "9.0");
  EXPECT_TRUE(r["error"].is_null());
  EXPECT_TRUE(r["host"].is_null());
  EXPECT_NE(r["message"].get<std::string>().find("cuda:0"), std::string::npos);
}

TEST(Report, ShapeOfEveryOutcomeWithAndWithoutOptionalParts) {
  for (Outcome o : kAllOutcomes) {
    for (bool extras : {false, true}) {
      ReportInput in;
      in.outcome = o;
      in.stage = Stage::Device;
      if (extras) {
        in.options.host_check = true;
        in.options.output = "report.json";
        in.error = ErrorInfo{"SomeError", "something failed"};
      }
      ojson r = build(in);
      SCOPED_TRACE(std::string(code_of(o)) + (extras ? " with extras" : ""));
      expect_contract_shape(r);
      EXPECT_EQ(r["code"], code_of(o));
      EXPECT_EQ(r["exit_code"], exit_code_of(o));
      EXPECT_EQ(r["host"].is_object(), extras);
      EXPECT_EQ(r["error"].is_object(), extras);
      EXPECT_EQ(r["output"]["requested"], extras);
      EXPECT_EQ(r["output"]["written"], false);
    }
  }
}

TEST(Report, StatusPassedOnlyForTheTwoPasses) {
  for (Outcome o : kAllOutcomes) {
    ReportInput in;
    in.outcome = o;
    ojson r = build(in);
    bool pass = o == Outcome::GpuCheckPassed || o == Outcome::CpuCheckPassed;
    EXPECT_EQ(r["status"], pass ? "passed" : "failed") << code_of(o);
  }
}

TEST(Report, RequestedIsAsGiven) {
  ReportInput in;
  in.options.device = Device::Cpu;
  in.options.device_index = -3;
  in.options.timeout_s = 45;
  in.options.host_check = true;
  ojson r = build(in);
  EXPECT_EQ(r["requested"]["device"], "cpu");
  EXPECT_EQ(r["requested"]["device_index"], -3);
  EXPECT_EQ(r["requested"]["timeout_s"], 45);
  EXPECT_EQ(r["requested"]["host_check"], true);
}

TEST(Report, TimeoutIsIntegralWhenWholeAndFractionalOtherwise) {
  ReportInput in;
  in.options.timeout_s = 30;
  ojson whole = build(in)["requested"]["timeout_s"];
  EXPECT_TRUE(whole.is_number_integer()) << whole.dump();
  EXPECT_EQ(whole.dump(), "30");

  in.options.timeout_s = 7.5;
  ojson fractional = build(in)["requested"]["timeout_s"];
  EXPECT_TRUE(fractional.is_number_float()) << fractional.dump();
  EXPECT_EQ(fractional.dump(), "7.5");
}

TEST(Report, TimeoutMessageNamesTheLimitAndTheStage) {
  ReportInput in;
  in.outcome = Outcome::Timeout;
  in.stage = Stage::Compute;
  in.options.timeout_s = 7.5;
  std::string m = build(in)["message"];
  EXPECT_NE(m.find("7.5 s"), std::string::npos) << m;
  EXPECT_NE(m.find("compute"), std::string::npos) << m;
  in.options.timeout_s = 30;
  m = build(in)["message"].get<std::string>();
  EXPECT_NE(m.find("30 s"), std::string::npos) << m;
}

TEST(Report, CpuModeLeavesGpuFactsNull) {
  ReportInput in;
  in.options.device = Device::Cpu;
  in.outcome = Outcome::CpuCheckPassed;
  in.stage = Stage::Complete;
  // Even if something reported them, CPU mode did not ask.
  in.findings.pytorch["gpu_available"] = true;
  in.findings.pytorch["visible_device_count"] = 4;
  in.findings.pytorch["backend"] = "none";
  ojson r = build(in);
  EXPECT_TRUE(r["pytorch"]["gpu_available"].is_null());
  EXPECT_TRUE(r["pytorch"]["visible_device_count"].is_null());
  EXPECT_EQ(r["pytorch"]["backend"], "none");
  EXPECT_EQ(r["requested"]["device"], "cpu");
}

TEST(Report, GpuModeKeepsAFalseAvailabilityAndAZeroCount) {
  ReportInput in;
  in.outcome = Outcome::GpuUnavailable;
  in.findings.pytorch["gpu_available"] = false;
  in.findings.pytorch["visible_device_count"] = 0;
  ojson r = build(in);
  EXPECT_EQ(r["pytorch"]["gpu_available"], false);
  EXPECT_EQ(r["pytorch"]["visible_device_count"], 0);
}

TEST(Report, HostIsNullWithoutHostCheckEvenWhenKnown) {
  ReportInput in;
  in.host = HostCheckResult{"ok", "535.104.05", 81559};
  EXPECT_TRUE(build(in)["host"].is_null());
}

TEST(Report, HostWithHostCheck) {
  ReportInput in;
  in.options.host_check = true;
  in.host = HostCheckResult{"ok", "535.104.05", 81559};
  ojson host = build(in)["host"];
  EXPECT_EQ(host["tool"], "nvidia-smi");
  EXPECT_EQ(host["status"], "ok");
  EXPECT_EQ(host["driver_version"], "535.104.05");
  EXPECT_EQ(host["memory_total_mib"], 81559);

  in.host = HostCheckResult{"not_found", std::nullopt, std::nullopt};
  host = build(in)["host"];
  EXPECT_EQ(host["status"], "not_found");
  EXPECT_TRUE(host["driver_version"].is_null());
  EXPECT_TRUE(host["memory_total_mib"].is_null());
}

TEST(Report, HostCheckAskedButNotRunIsFailed) {
  ReportInput in;
  in.options.host_check = true;
  ojson host = build(in)["host"];
  ASSERT_TRUE(host.is_object());
  EXPECT_EQ(host["status"], "failed");
}

TEST(Report, DriverVersionMustBeAToken) {
  ReportInput in;
  in.options.host_check = true;
  in.host = HostCheckResult{"ok", "535 /home/alice", 10};
  EXPECT_TRUE(build(in)["host"]["driver_version"].is_null());
}

TEST(Report, LibraryVersionsAreKeptOnlyAsTokens) {
  ReportInput in;
  in.findings.pytorch["version"] = "2.1.0 built by alice@node-7 in /home/alice";
  in.findings.pytorch["cuda"] = "12.1";
  in.findings.pytorch["hip"] = "6.0.32830-d62f6a171";
  ojson r = build(in);
  EXPECT_TRUE(r["pytorch"]["version"].is_null());
  EXPECT_EQ(r["pytorch"]["cuda"], "12.1");
  EXPECT_EQ(r["pytorch"]["hip"], "6.0.32830-d62f6a171");
}

TEST(Report, ErrorIsSanitized) {
  Sanitizer secrets({"s3cr3t-t0ken-value"});
  ReportInput in;
  in.outcome = Outcome::RuntimeError;
  in.stage = Stage::Compute;
  in.error = ErrorInfo{"c10::Error",
                       "failed loading /home/alice/private/libfoo.so with s3cr3t-t0ken-value\n"
                       "Exception raised from foo at /build/torch/csrc/x.cpp:12\nframe #0"};
  ojson r = build_report(in, secrets);
  std::string m = r["error"]["message"];
  EXPECT_EQ(r["error"]["type"], "c10::Error");
  EXPECT_NE(m.find("libfoo.so"), std::string::npos) << m;
  EXPECT_EQ(m.find("/home"), std::string::npos) << m;
  EXPECT_EQ(m.find("alice"), std::string::npos) << m;
  EXPECT_EQ(m.find("s3cr3t-t0ken-value"), std::string::npos) << m;
  EXPECT_NE(m.find("<redacted>"), std::string::npos) << m;
  EXPECT_EQ(m.find("Exception raised"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_EQ(render_report(r).find("s3cr3t-t0ken-value"), std::string::npos);
}

TEST(Report, ErrorCarriesItsEvidence) {
  ReportInput in;
  in.outcome = Outcome::GpuUnavailable;
  in.stage = Stage::Device;
  Evidence e;
  e.kernel_module = "535.104.05";
  in.error = ErrorInfo{"DriverMismatch", "cudaErrorSystemDriverMismatch (803): words", e};
  ojson r = build(in);
  EXPECT_EQ(r["error"]["evidence"]["kernel_module"], "535.104.05");
  EXPECT_TRUE(r["error"]["evidence"]["runtime"].is_null());
  in.error->evidence.reset();
  EXPECT_TRUE(build(in)["error"]["evidence"].is_null());
}

TEST(Report, ErrorIsShortened) {
  ReportInput in;
  in.outcome = Outcome::RuntimeError;
  in.error = ErrorInfo{std::string(200, 'T'), std::string(4000, 'm')};
  ojson r = build(in);
  EXPECT_LE(r["error"]["message"].get<std::string>().size(), Sanitizer::kMaxMessage);
  EXPECT_LE(r["error"]["type"].get<std::string>().size(), 64u);
  EXPECT_FALSE(r["error"]["type"].get<std::string>().empty());
}

TEST(Report, OutputRequestedAndWritten) {
  ReportInput in;
  in.options.output = "r.json";
  in.output_written = true;
  ojson r = build(in);
  EXPECT_EQ(r["output"]["requested"], true);
  EXPECT_EQ(r["output"]["written"], true);
  // The file name is a path of the machine: it stays out of the report.
  EXPECT_EQ(render_report(r).find("r.json"), std::string::npos);
}

TEST(Report, RuntimeSaysHowTheStableProbesTorchWasFound) {
  ReportInput in;
  in.probe_kind = "stable_abi";
  in.torch_source = "python_beside_check";
  in.python_environment = "virtualenv";
  ojson r = build(in);
  EXPECT_EQ(r["tool"]["probe"], "stable_abi");
  EXPECT_EQ(r["runtime"]["torch_source"], "python_beside_check");
  EXPECT_EQ(r["runtime"]["python_environment"], "virtualenv");
}

TEST(Report, RuntimeSaysTheFamilyButNotTheMachine) {
  ojson r = build(ReportInput{});
  utsname u{};
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(r["runtime"]["os_family"], u.sysname);
  EXPECT_EQ(r["runtime"]["arch"], u.machine);
  const ojson& build_info = r["runtime"]["check_build"];
  EXPECT_TRUE(build_info.contains("compiler"));
  EXPECT_TRUE(build_info.contains("cxx_standard"));
  EXPECT_EQ(build_info["cxx_standard"].get<std::string>().rfind("C++", 0), 0u);
  std::string text = render_report(r);
  EXPECT_EQ(text.find(u.release), std::string::npos) << "kernel release leaked";
  if (std::string(u.nodename).size() >= 4) {
    EXPECT_EQ(text.find(u.nodename), std::string::npos) << "host name leaked";
  }
}

TEST(Report, ProbeOverrideIsVisible) {
  ReportInput in = gpu_pass();
  ojson plain = build(in);
  in.probe_override = true;
  ojson overridden = build(in);
  EXPECT_NE(plain["tool"]["probe"], overridden["tool"]["probe"]);
  EXPECT_EQ(overridden["tool"]["probe"], "override");
  std::string m = overridden["message"];
  EXPECT_NE(m.find("not a real check"), std::string::npos) << m;
  EXPECT_EQ(plain["message"].get<std::string>().find("not a real check"), std::string::npos);
}

TEST(Report, MessageSaysWhatHappenedAndWhatToDo) {
  for (Outcome o : kAllOutcomes) {
    ReportInput in;
    in.outcome = o;
    std::string m = build(in)["message"];
    EXPECT_NE(m.find(std::string(info(o).next_action)), std::string::npos) << m;
  }
}

TEST(Report, ACauseReplacesMeaningAndNextAction) {
  ReportInput in;
  in.outcome = Outcome::WorkerFailed;
  in.cause = Cause{"The worker was killed for lack of memory.", "Raise the memory limit."};
  EXPECT_EQ(compose_message(in), "The worker was killed for lack of memory. Raise the memory limit.");
  in.probe_override = true;
  EXPECT_EQ(compose_message(in), "[fault-injection probe, not a real check] The worker was killed "
                                 "for lack of memory. Raise the memory limit.");
}

TEST(Report, RenderIsIndentedJsonEndingInANewline) {
  ojson r = build(gpu_pass());
  std::string text = render_report(r);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.rfind("{\n  \"schema_version\": 1,", 0), 0u) << text.substr(0, 40);
  EXPECT_EQ(ojson::parse(text), r);
  // The same input renders the same bytes: stdout and the file agree.
  EXPECT_EQ(render_report(build(gpu_pass())), text);
}

TEST(Report, VerdictLineIsOneLine) {
  ReportInput in;
  in.outcome = Outcome::CheckFailed;
  in.stage = Stage::Compute;
  std::string v = verdict_line(build(in));
  EXPECT_EQ(v.find('\n'), std::string::npos);
  EXPECT_NE(v.find("CHECK_FAILED"), std::string::npos) << v;
  EXPECT_NE(v.find("exit 8"), std::string::npos) << v;
  EXPECT_NE(v.find("compute"), std::string::npos) << v;
}

}  // namespace
}  // namespace kd
