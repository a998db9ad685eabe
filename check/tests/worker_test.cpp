// Covers worker.hpp's run_worker and the worker's argv: loading a probe module from a path (each
// way it can fail an outcome of its own), and the request round-tripping through argv.
#include "run/worker.hpp"


#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "util/tests/temp_dir.hpp"
#include "worker_test_support.hpp"

#ifndef KD_TEST_PROBE_MODULE
#error "KD_TEST_PROBE_MODULE must name the test probe module"
#endif

namespace kd {
namespace {

// run_worker, with what can be loaded from a path.
class RunWorker : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("KD_TEST_PROBE_MODE"); }

  static Walk load(const std::string& path, Device device = Device::Cpu,
                   const std::string& torch_dir = "") {
    WorkerRequest request{device, 0, path, torch_dir, {}, {}};
    Lines lines;
    LineSink sink([&lines](const std::string& l) { lines.push_back(l); });
    run_worker(request, sink);
    return fold(lines);
  }
  static void expect_outcome(const Walk& w, Outcome outcome, const char* error_type) {
    ASSERT_TRUE(w.findings.outcome.has_value());
    EXPECT_EQ(code_of(*w.findings.outcome), code_of(outcome));
    ASSERT_TRUE(w.findings.outcome_stage.has_value());
    EXPECT_EQ(*w.findings.outcome_stage, Stage::Import);
    ASSERT_TRUE(w.findings.error.has_value());
    EXPECT_EQ(w.findings.error->type, error_type);
  }
};

TEST_F(RunWorker, AMissingProbeIsAnInternalError) {
  Walk w = load("/nonexistent-kd-folder/libkernodeck_probe_torch.so");
  expect_outcome(w, Outcome::InternalError, "ProbeMissing");
}

TEST_F(RunWorker, AFileThatIsNotALibraryIsAnImportFailure) {
  test::TempDir dir;
  std::string path = dir.file("libkernodeck_probe_torch.so");
  test::write_file(path, "this is not an ELF file\n");
  Walk w = load(path);
  expect_outcome(w, Outcome::TorchImportFailed, "CorruptLibrary");
}

TEST_F(RunWorker, ALibraryWithoutTheEntryIsAnInternalError) {
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&getpid), &info), 0);
  ASSERT_NE(info.dli_fname, nullptr);
  Walk w = load(info.dli_fname);
  expect_outcome(w, Outcome::InternalError, "ProbeIncompatible");
}

TEST_F(RunWorker, AnotherInterfaceVersionIsAnInternalError) {
  setenv("KD_TEST_PROBE_MODE", "abi", 1);
  expect_outcome(load(KD_TEST_PROBE_MODULE), Outcome::InternalError, "ProbeIncompatible");
}

TEST_F(RunWorker, AnEntryGivingNoProbeIsAnInternalError) {
  setenv("KD_TEST_PROBE_MODE", "null", 1);
  expect_outcome(load(KD_TEST_PROBE_MODULE), Outcome::InternalError, "ProbeIncompatible");
}

TEST_F(RunWorker, AHealthyModuleIsLoadedAndWalked) {
  Walk w = load(KD_TEST_PROBE_MODULE);
  ASSERT_TRUE(w.findings.outcome.has_value());
  EXPECT_EQ(*w.findings.outcome, Outcome::CpuCheckPassed);
  EXPECT_FALSE(w.findings.error.has_value());
  EXPECT_TRUE(w.findings.execution["timings_ms"]["load"].is_number());
  EXPECT_EQ(w.findings.execution["device"], "cpu");
  EXPECT_EQ(w.findings.pytorch["version"], "1.13.1");
  ASSERT_FALSE(w.lines.empty());
  EXPECT_EQ(w.lines.front(), stage_event(Stage::Import));
}

TEST_F(RunWorker, AProbeThatLoadsLibtorchItselfIsGivenTheTorchFolder) {
  setenv("KD_TEST_PROBE_MODE", "loads", 1);
  Walk w = load(KD_TEST_PROBE_MODULE, Device::Cpu, "/kd-test/torch");
  ASSERT_TRUE(w.findings.outcome.has_value());
  EXPECT_EQ(*w.findings.outcome, Outcome::CpuCheckPassed);
  EXPECT_TRUE(w.findings.execution["timings_ms"]["load"].is_number());
}

TEST_F(RunWorker, AProbeThatLoadsLibtorchItselfWithoutAFolderIsAnInternalError) {
  setenv("KD_TEST_PROBE_MODE", "loads", 1);
  expect_outcome(load(KD_TEST_PROBE_MODULE), Outcome::InternalError, "ProbeNeedsTorch");
}

TEST_F(RunWorker, ALibtorchTooOldForTheProbeIsItsCauseWithTheRelease) {
  setenv("KD_TEST_PROBE_MODE", "loads", 1);
  setenv("KD_TEST_TORCH_ANSWER", "old", 1);
  Walk w = load(KD_TEST_PROBE_MODULE, Device::Cpu, "/kd-test/torch");
  unsetenv("KD_TEST_TORCH_ANSWER");
  expect_outcome(w, Outcome::TorchImportFailed, "StableAbiTooOld");
  // What the library is, where its files say it: the release refused.
  EXPECT_EQ(w.findings.pytorch["version"], "1.13.1");
  EXPECT_NE(w.findings.error->message.find("lacks torch_call_dispatcher"), std::string::npos);
}

TEST_F(RunWorker, APartOfLibtorchMissingIsADependencyNotALibtorchNotFound) {
  setenv("KD_TEST_PROBE_MODE", "loads", 1);
  setenv("KD_TEST_TORCH_ANSWER",
         "libtorch_cuda.so: cannot open shared object file: No such file or directory", 1);
  Walk w = load(KD_TEST_PROBE_MODULE, Device::Cpu, "/kd-test/torch");
  unsetenv("KD_TEST_TORCH_ANSWER");
  // libtorch.so itself was found, so the missing libtorch_cuda is a part of it missing.
  expect_outcome(w, Outcome::TorchImportFailed, "DependencyNotFound");
}

TEST_F(RunWorker, AHealthyCpuModuleHasNoGpuBackend) {
  Walk w = load(KD_TEST_PROBE_MODULE, Device::Cuda);
  ASSERT_TRUE(w.findings.outcome.has_value());
  EXPECT_EQ(*w.findings.outcome, Outcome::GpuBackendAbsent);
}

TEST(WorkerArgv, RoundTrips) {
  for (const WorkerRequest& request :
       {WorkerRequest{Device::Cuda, 0, "/opt/kd/probe.so", "", {}, {}},
        WorkerRequest{Device::Cpu, 3, "probe.so", "", {}, {}},
        WorkerRequest{Device::Cuda, -1, "/path with spaces/p.so", "", {}, {}},
        WorkerRequest{Device::Cpu, 0, "stable.so", "/venv/lib/python3.12/site-packages/torch", {}, {}}}) {
    std::vector<std::string> argv = worker_argv("/usr/bin/kernodeck-diagnostic", request);
    ASSERT_EQ(argv.size(), request.torch_dir.empty() ? 5u : 6u);
    EXPECT_EQ(argv[0], "/usr/bin/kernodeck-diagnostic");
    EXPECT_EQ(argv[1], kWorkerArg);
    WorkerRequest back;
    ASSERT_TRUE(parse_worker_argv({argv.begin() + 1, argv.end()}, back));
    EXPECT_EQ(back.device, request.device);
    EXPECT_EQ(back.index, request.index);
    EXPECT_EQ(back.probe_path, request.probe_path);
    EXPECT_EQ(back.torch_dir, request.torch_dir);
  }
}

// The precisions asked (--dtype) travel last, in order; an empty one is refused.
TEST(WorkerArgv, PrecisionsRoundTrip) {
  WorkerRequest request{Device::Cpu, 0, "probe.so", "/venv/torch", {}, {}};
  request.dtypes = {"float16", "float8_e4m3fn"};
  std::vector<std::string> argv = worker_argv("/usr/bin/kernodeck-diagnostic", request);
  ASSERT_EQ(argv.size(), 7u);
  EXPECT_EQ(argv.back(), "dtypes=float16,float8_e4m3fn");
  WorkerRequest back;
  ASSERT_TRUE(parse_worker_argv({argv.begin() + 1, argv.end()}, back));
  EXPECT_EQ(back.dtypes, request.dtypes);
  EXPECT_EQ(back.torch_dir, "/venv/torch");
  const std::string w(kWorkerArg);
  WorkerRequest r;
  EXPECT_FALSE(parse_worker_argv({w, "cpu", "0", "p.so", "dtypes=float16,"}, r));
  WorkerRequest r2;
  EXPECT_FALSE(parse_worker_argv({w, "cpu", "0", "p.so", "dtypes="}, r2));
}

TEST(WorkerArgv, MalformedIsRejected) {
  const std::string w(kWorkerArg);
  WorkerRequest r;
  EXPECT_FALSE(parse_worker_argv({}, r));
  EXPECT_FALSE(parse_worker_argv({w, "cpu", "0"}, r));
  EXPECT_FALSE(parse_worker_argv({w, "cpu", "0", "p.so", ""}, r));
  EXPECT_FALSE(parse_worker_argv({w, "cpu", "0", "p.so", "torch", "extra"}, r));
  EXPECT_FALSE(parse_worker_argv({"--device", "cpu", "0", "p.so"}, r));
  EXPECT_FALSE(parse_worker_argv({w, "rocm", "0", "p.so"}, r));
  EXPECT_FALSE(parse_worker_argv({w, "cpu", "x", "p.so"}, r));
  EXPECT_FALSE(parse_worker_argv({w, "cpu", "1x", "p.so"}, r));
  EXPECT_FALSE(parse_worker_argv({w, "cpu", "", "p.so"}, r));
  EXPECT_FALSE(parse_worker_argv({w, "cpu", "0", ""}, r));
}

}  // namespace
}  // namespace kd
