// Covers worker.hpp's run_stages: the stages walked against an in-process fake probe, each
// answer of the probe the outcome and stage it must be, and every line valid protocol.
#include "run/worker.hpp"


#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "worker_test_support.hpp"

namespace kd {
namespace {

// What the fake probe answers, and what it was asked. The probe ABI is a
// table of plain C functions, so they read this global.
struct Fake {
  kd_status library_status = KD_OK;
  int backend = KD_BACKEND_CUDA;
  const char* version = "2.3.1+cu121";
  const char* cuda = "12.1";
  const char* hip = "";

  kd_status gpu_status = KD_OK;
  int available = 1;
  long long count = 1;

  kd_status init_status = KD_OK;
  kd_status compute_status = KD_OK;
  kd_compute_result result = kGoodResult;
  kd_status memory_status = KD_OK;
  kd_memory_info memory_info = {4096, 2097152};
  kd_status device_status = KD_OK;
  const char* device_name = "NVIDIA H200";
  const char* capability = "9.0";

  // What the fake GPU runtime answers when asked after a failure.
  int runtime_api = KD_API_NONE;
  int runtime_error = 0;
  int driver_version = 13020;
  const char* runtime_name = "";
  const char* runtime_text = "";

  // The library's reason when no GPU is usable ("" for none).
  const char* unavailable_reason = "";

  const char* error_type = "c10::Error";
  const char* error_message = "CUDA error: something went wrong";
  bool unterminated_error = false;

  int library_calls = 0, gpu_calls = 0, init_calls = 0, compute_calls = 0, memory_calls = 0,
      device_calls = 0, runtime_calls = 0;
  std::string runtime_failure;  // the words it was given
  int init_kind = -1, compute_kind = -1;
  long long init_index = -99, compute_index = -99;
};
Fake g_fake;

void fill_error(kd_error* err) {
  if (g_fake.unterminated_error) {
    memset(err->type, 'T', sizeof err->type);
    memset(err->message, 'M', sizeof err->message);
    return;
  }
  snprintf(err->type, sizeof err->type, "%s", g_fake.error_type);
  snprintf(err->message, sizeof err->message, "%s", g_fake.error_message);
}

kd_status fake_library_info(kd_library_info* out, kd_error* err) {
  ++g_fake.library_calls;
  if (g_fake.library_status != KD_OK) {
    fill_error(err);
    return g_fake.library_status;
  }
  snprintf(out->version, sizeof out->version, "%s", g_fake.version);
  snprintf(out->cuda_version, sizeof out->cuda_version, "%s", g_fake.cuda);
  snprintf(out->hip_version, sizeof out->hip_version, "%s", g_fake.hip);
  out->backend = g_fake.backend;
  return KD_OK;
}

kd_status fake_gpu_info(kd_gpu_info* out, kd_error* err) {
  ++g_fake.gpu_calls;
  if (g_fake.gpu_status != KD_OK) {
    fill_error(err);
    return g_fake.gpu_status;
  }
  out->available = g_fake.available;
  out->device_count = g_fake.count;
  if (*g_fake.unavailable_reason != '\0') {
    snprintf(err->type, sizeof err->type, "%s", "c10::Error");
    snprintf(err->message, sizeof err->message, "%s", g_fake.unavailable_reason);
  }
  return KD_OK;
}

kd_status fake_init_device(int kind, long long index, kd_error* err) {
  ++g_fake.init_calls;
  g_fake.init_kind = kind;
  g_fake.init_index = index;
  if (g_fake.init_status != KD_OK) fill_error(err);
  return g_fake.init_status;
}

kd_status fake_compute(int kind, long long index, kd_compute_result* out, kd_error* err) {
  ++g_fake.compute_calls;
  g_fake.compute_kind = kind;
  g_fake.compute_index = index;
  if (g_fake.compute_status != KD_OK) {
    fill_error(err);
    return g_fake.compute_status;
  }
  *out = g_fake.result;
  return KD_OK;
}

kd_status fake_memory(long long, kd_memory_info* out, kd_error* err) {
  ++g_fake.memory_calls;
  if (g_fake.memory_status != KD_OK) {
    fill_error(err);
    return g_fake.memory_status;
  }
  *out = g_fake.memory_info;
  return KD_OK;
}

kd_status fake_device_info(long long, kd_device_info* out, kd_error* err) {
  ++g_fake.device_calls;
  if (g_fake.device_status != KD_OK) {
    fill_error(err);
    return g_fake.device_status;
  }
  snprintf(out->name, sizeof out->name, "%s", g_fake.device_name);
  snprintf(out->capability, sizeof out->capability, "%s", g_fake.capability);
  return KD_OK;
}

kd_status fake_runtime_status(int, long long, const char* failure, kd_runtime_status* out,
                              kd_error*) {
  ++g_fake.runtime_calls;
  g_fake.runtime_failure = failure;
  *out = kd_runtime_status{};
  out->api = g_fake.runtime_api;
  out->error_number = g_fake.runtime_error;
  out->driver_version = g_fake.driver_version;
  out->runtime_version = 13020;
  snprintf(out->error_name, sizeof out->error_name, "%s", g_fake.runtime_name);
  snprintf(out->error_text, sizeof out->error_text, "%s", g_fake.runtime_text);
  return KD_OK;
}

const kd_probe kFakeProbe = {KD_PROBE_ABI_VERSION, fake_library_info, fake_gpu_info,
                             fake_init_device,     fake_compute,      fake_memory,
                             fake_device_info,     fake_runtime_status, KD_PROBE_KIND_LIBTORCH,
                             nullptr};

class RunStages : public ::testing::Test {
 protected:
  void SetUp() override { g_fake = Fake{}; }

  Walk walk(Device device, long long index = 0) {
    WorkerRequest request{device, index, "unused", "", {}, {}};
    Lines lines;
    LineSink sink([&lines](const std::string& l) { lines.push_back(l); });
    run_stages(kFakeProbe, request, sink);
    return fold(lines);
  }

  static void expect_outcome(const Walk& w, Outcome outcome, Stage stage) {
    ASSERT_TRUE(w.findings.outcome.has_value());
    EXPECT_EQ(code_of(*w.findings.outcome), code_of(outcome));
    ASSERT_TRUE(w.findings.outcome_stage.has_value());
    EXPECT_EQ(stage_name(*w.findings.outcome_stage), stage_name(stage));
  }
};

TEST_F(RunStages, PassOnCuda) {
  g_fake.count = 2;
  Walk w = walk(Device::Cuda, 1);
  expect_outcome(w, Outcome::GpuCheckPassed, Stage::Compute);
  EXPECT_FALSE(w.findings.error.has_value());
  const ojson& p = w.findings.pytorch;
  EXPECT_EQ(p["version"], "2.3.1+cu121");
  EXPECT_EQ(p["cuda"], "12.1");
  EXPECT_TRUE(p["hip"].is_null());
  EXPECT_EQ(p["backend"], "cuda");
  EXPECT_EQ(p["gpu_available"], true);
  EXPECT_EQ(p["visible_device_count"], 2);
  const ojson& e = w.findings.execution;
  EXPECT_EQ(e["device"], "cuda:1");
  EXPECT_EQ(e["product_verified"], true);
  EXPECT_EQ(e["gradient_verified"], true);
  EXPECT_EQ(e["loss"], 196.0);
  EXPECT_EQ(e["synchronized"], true);
  EXPECT_TRUE(e["timings_ms"]["device_init"].is_number());
  EXPECT_TRUE(e["timings_ms"]["compute"].is_number());
  EXPECT_EQ(e["memory"]["allocated_bytes"], 4096);
  EXPECT_EQ(e["memory"]["reserved_bytes"], 2097152);
  EXPECT_EQ(e["device_name"], "NVIDIA H200");
  EXPECT_EQ(e["capability"], "9.0");
  // The device asked for is the device used.
  EXPECT_EQ(g_fake.init_kind, KD_DEVICE_CUDA);
  EXPECT_EQ(g_fake.init_index, 1);
  EXPECT_EQ(g_fake.compute_kind, KD_DEVICE_CUDA);
  EXPECT_EQ(g_fake.compute_index, 1);
}

TEST_F(RunStages, PassOnRocm) {
  g_fake.backend = KD_BACKEND_ROCM;
  g_fake.cuda = "";
  g_fake.hip = "6.0.32830";
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::GpuCheckPassed, Stage::Compute);
  EXPECT_EQ(w.findings.pytorch["backend"], "rocm");
  EXPECT_TRUE(w.findings.pytorch["cuda"].is_null());
  EXPECT_EQ(w.findings.pytorch["hip"], "6.0.32830");
  EXPECT_EQ(w.findings.execution["device"], "cuda:0");
}

TEST_F(RunStages, PassOnCpuAsksNothingOfTheGpu) {
  g_fake.backend = KD_BACKEND_NONE;
  g_fake.cuda = "";
  g_fake.result.synchronized = 0;  // irrelevant on the CPU
  Walk w = walk(Device::Cpu, 5);
  expect_outcome(w, Outcome::CpuCheckPassed, Stage::Compute);
  EXPECT_EQ(g_fake.gpu_calls, 0);
  EXPECT_EQ(g_fake.memory_calls, 0);
  EXPECT_EQ(g_fake.device_calls, 0);
  EXPECT_EQ(g_fake.init_kind, KD_DEVICE_CPU);
  EXPECT_EQ(g_fake.compute_kind, KD_DEVICE_CPU);
  const ojson& e = w.findings.execution;
  EXPECT_EQ(e["device"], "cpu");
  EXPECT_TRUE(e["synchronized"].is_null());
  EXPECT_TRUE(e["memory"].is_null());
  EXPECT_TRUE(e["device_name"].is_null());
  EXPECT_TRUE(e["capability"].is_null());
  EXPECT_TRUE(w.findings.pytorch["gpu_available"].is_null());
  EXPECT_TRUE(w.findings.pytorch["visible_device_count"].is_null());
  EXPECT_EQ(w.findings.pytorch["backend"], "none");
}

TEST_F(RunStages, AnUnnamedGpuStillPassesWithNullNames) {
  g_fake.device_status = KD_RUNTIME_ERROR;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::GpuCheckPassed, Stage::Compute);
  EXPECT_EQ(g_fake.device_calls, 1);
  EXPECT_TRUE(w.findings.execution["device_name"].is_null());
  EXPECT_TRUE(w.findings.execution["capability"].is_null());
}

TEST_F(RunStages, EmptyNamesAreNull) {
  g_fake.device_name = "";
  g_fake.capability = "";
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::GpuCheckPassed, Stage::Compute);
  EXPECT_TRUE(w.findings.execution["device_name"].is_null());
  EXPECT_TRUE(w.findings.execution["capability"].is_null());
}

TEST_F(RunStages, CpuModeWorksWithAGpuBuildToo) {
  Walk w = walk(Device::Cpu);
  expect_outcome(w, Outcome::CpuCheckPassed, Stage::Compute);
  EXPECT_EQ(g_fake.gpu_calls, 0);
}

TEST_F(RunStages, StagesAreAnnouncedInOrder) {
  Walk w = walk(Device::Cuda);
  Lines stages;
  for (const auto& l : w.lines) {
    ojson event = ojson::parse(l);
    if (event["event"] == "stage") stages.push_back(event["stage"]);
  }
  EXPECT_EQ(stages, (Lines{"backend", "device", "compute"}));
}

TEST_F(RunStages, BackendNoneIsGpuBackendAbsent) {
  g_fake.backend = KD_BACKEND_NONE;
  g_fake.cuda = "";
  g_fake.version = "1.13.1";
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::GpuBackendAbsent, Stage::Backend);
  EXPECT_EQ(g_fake.gpu_calls, 0);
  EXPECT_EQ(g_fake.compute_calls, 0);
  EXPECT_EQ(w.findings.pytorch["backend"], "none");
  EXPECT_EQ(w.findings.pytorch["version"], "1.13.1");
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_NE(w.findings.error->message.find("1.13.1"), std::string::npos);
}

TEST_F(RunStages, LibraryThatCannotDescribeItselfIsImportFailed) {
  g_fake.library_status = KD_RUNTIME_ERROR;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::TorchImportFailed, Stage::Import);
  EXPECT_EQ(g_fake.gpu_calls, 0);
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_EQ(w.findings.error->type, "c10::Error");
}

TEST_F(RunStages, GpuUnavailable) {
  g_fake.available = 0;
  g_fake.count = 0;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::GpuUnavailable, Stage::Device);
  EXPECT_EQ(w.findings.pytorch["gpu_available"], false);
  EXPECT_EQ(w.findings.pytorch["visible_device_count"], 0);
  EXPECT_EQ(g_fake.init_calls, 0);
  EXPECT_EQ(g_fake.compute_calls, 0);
  // No runtime to ask, no reason given: the generic cause, with what was seen.
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_EQ(w.findings.error->type, "GpuUnavailable");
  ASSERT_TRUE(w.findings.error->evidence.has_value());
  EXPECT_TRUE(w.findings.error->evidence->device_nodes.has_value());
  EXPECT_FALSE(w.findings.error->evidence->runtime.has_value());
  EXPECT_EQ(g_fake.runtime_calls, 1);
}

TEST_F(RunStages, TheRuntimesNumberNamesTheCauseInItsOwnWords) {
  g_fake.available = 0;
  g_fake.count = 0;
  g_fake.runtime_api = KD_API_CUDA;
  g_fake.runtime_error = 803;
  g_fake.runtime_name = "cudaErrorSystemDriverMismatch";
  g_fake.runtime_text = "system has unsupported display driver / cuda driver combination";
  g_fake.unavailable_reason = "Unexpected error from cudaGetDeviceCount()";
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::GpuUnavailable, Stage::Device);
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_EQ(w.findings.error->type, "DriverMismatch");
  EXPECT_EQ(w.findings.error->message,
            "cudaErrorSystemDriverMismatch (803): system has unsupported display driver / cuda "
            "driver combination");
  ASSERT_TRUE(w.findings.error->evidence && w.findings.error->evidence->runtime);
  EXPECT_EQ(w.findings.error->evidence->runtime->error, 803);
  EXPECT_EQ(g_fake.runtime_failure, "Unexpected error from cudaGetDeviceCount()");
}

TEST_F(RunStages, WithoutARuntimeLibtorchsWordsNameTheCause) {
  g_fake.available = 0;
  g_fake.count = 0;
  g_fake.unavailable_reason = "Found no NVIDIA driver on your system.";
  Walk w = walk(Device::Cuda);
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_EQ(w.findings.error->type, "NoDriver");
  EXPECT_EQ(w.findings.error->message, "Found no NVIDIA driver on your system.");
}

TEST_F(RunStages, ABusyGpuAtItsStartIsUnavailable) {
  g_fake.init_status = KD_RUNTIME_ERROR;
  g_fake.error_message = "CUDA error: CUDA-capable device(s) is/are busy or unavailable";
  g_fake.runtime_api = KD_API_CUDA;
  g_fake.runtime_error = 46;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::GpuUnavailable, Stage::Device);
  EXPECT_EQ(w.findings.error->type, "DevicesBusy");
}

TEST_F(RunStages, AGpuFaultInTheComputationIsNamed) {
  g_fake.compute_status = KD_RUNTIME_ERROR;
  g_fake.runtime_api = KD_API_CUDA;
  g_fake.runtime_error = 209;
  g_fake.runtime_name = "cudaErrorNoKernelImageForDevice";
  g_fake.runtime_text = "no kernel image is available for execution on the device";
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::RuntimeError, Stage::Compute);
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_EQ(w.findings.error->type, "NoKernelImage");
  ASSERT_TRUE(w.findings.error->evidence.has_value());
  // The device layer passed: only the runtime was asked.
  EXPECT_FALSE(w.findings.error->evidence->device_nodes.has_value());
  EXPECT_EQ(w.findings.error->evidence->runtime->error, 209);
}

TEST_F(RunStages, AnUnnamedComputeErrorStaysTheLibrarys) {
  g_fake.compute_status = KD_RUNTIME_ERROR;
  g_fake.runtime_api = KD_API_CUDA;
  g_fake.runtime_error = 1;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::RuntimeError, Stage::Compute);
  EXPECT_EQ(w.findings.error->type, "c10::Error");
  EXPECT_EQ(w.findings.error->message, "CUDA error: something went wrong");
}

TEST_F(RunStages, APassAndTheCpuNeverAskTheRuntime) {
  expect_outcome(walk(Device::Cuda), Outcome::GpuCheckPassed, Stage::Compute);
  EXPECT_EQ(g_fake.runtime_calls, 0);
  g_fake = Fake{};
  g_fake.compute_status = KD_RUNTIME_ERROR;
  Walk w = walk(Device::Cpu);
  expect_outcome(w, Outcome::RuntimeError, Stage::Compute);
  EXPECT_EQ(g_fake.runtime_calls, 0);
  EXPECT_FALSE(w.findings.error->evidence.has_value());
}

TEST_F(RunStages, AvailableWithNoDeviceIsUnavailable) {
  g_fake.available = 1;
  g_fake.count = 0;
  expect_outcome(walk(Device::Cuda), Outcome::GpuUnavailable, Stage::Device);
  EXPECT_EQ(g_fake.init_calls, 0);
}

TEST_F(RunStages, DevicesWithoutAvailabilityAreUnavailable) {
  g_fake.available = 0;
  g_fake.count = 2;
  expect_outcome(walk(Device::Cuda), Outcome::GpuUnavailable, Stage::Device);
}

TEST_F(RunStages, ANegativeCountIsReportedAsZero) {
  g_fake.available = 0;
  g_fake.count = -1;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::GpuUnavailable, Stage::Device);
  EXPECT_EQ(w.findings.pytorch["visible_device_count"], 0);
}

TEST_F(RunStages, NegativeIndexIsInvalid) {
  g_fake.count = 2;
  Walk w = walk(Device::Cuda, -1);
  expect_outcome(w, Outcome::DeviceIndexInvalid, Stage::Device);
  EXPECT_EQ(g_fake.init_calls, 0);
  EXPECT_TRUE(w.findings.execution["device"].is_null());
}

TEST_F(RunStages, IndexEqualToTheCountIsInvalid) {
  g_fake.count = 2;
  Walk w = walk(Device::Cuda, 2);
  expect_outcome(w, Outcome::DeviceIndexInvalid, Stage::Device);
  EXPECT_EQ(g_fake.init_calls, 0);
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_NE(w.findings.error->message.find("2"), std::string::npos);
}

TEST_F(RunStages, TheLastIndexIsValid) {
  g_fake.count = 2;
  expect_outcome(walk(Device::Cuda, 1), Outcome::GpuCheckPassed, Stage::Compute);
}

TEST_F(RunStages, GpuInfoErrorsAreDeviceErrors) {
  g_fake.gpu_status = KD_RUNTIME_ERROR;
  expect_outcome(walk(Device::Cuda), Outcome::RuntimeError, Stage::Device);
  g_fake = Fake{};
  g_fake.gpu_status = KD_OUT_OF_MEMORY;
  expect_outcome(walk(Device::Cuda), Outcome::OutOfMemory, Stage::Device);
}

TEST_F(RunStages, OutOfMemoryAtDevice) {
  g_fake.init_status = KD_OUT_OF_MEMORY;
  g_fake.error_type = "OutOfMemoryError";
  g_fake.error_message = "CUDA out of memory. Tried to allocate 2.00 MiB";
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::OutOfMemory, Stage::Device);
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_EQ(w.findings.error->type, "OutOfMemoryError");
  EXPECT_EQ(w.findings.error->message, "CUDA out of memory. Tried to allocate 2.00 MiB");
  EXPECT_EQ(g_fake.compute_calls, 0);
  EXPECT_TRUE(w.findings.execution["timings_ms"]["device_init"].is_number());
}

TEST_F(RunStages, RuntimeErrorAtDevice) {
  g_fake.init_status = KD_RUNTIME_ERROR;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::RuntimeError, Stage::Device);
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_EQ(w.findings.error->message, "CUDA error: something went wrong");
  EXPECT_EQ(g_fake.compute_calls, 0);
}

TEST_F(RunStages, RuntimeErrorAtDeviceOnCpu) {
  g_fake.init_status = KD_RUNTIME_ERROR;
  expect_outcome(walk(Device::Cpu), Outcome::RuntimeError, Stage::Device);
}

TEST_F(RunStages, OutOfMemoryAtCompute) {
  g_fake.compute_status = KD_OUT_OF_MEMORY;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::OutOfMemory, Stage::Compute);
  EXPECT_TRUE(w.findings.execution["timings_ms"]["compute"].is_number());
  EXPECT_TRUE(w.findings.execution["product_verified"].is_null());
}

TEST_F(RunStages, RuntimeErrorAtCompute) {
  g_fake.compute_status = KD_RUNTIME_ERROR;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::RuntimeError, Stage::Compute);
  EXPECT_TRUE(w.findings.execution["device"].is_null());
}

TEST_F(RunStages, UnterminatedProbeTextIsBounded) {
  g_fake.compute_status = KD_RUNTIME_ERROR;
  g_fake.unterminated_error = true;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::RuntimeError, Stage::Compute);
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_EQ(w.findings.error->type, std::string(sizeof(kd_error::type), 'T'));
  EXPECT_EQ(w.findings.error->message, std::string(sizeof(kd_error::message), 'M'));
}

TEST_F(RunStages, WrongProductFailsTheCheck) {
  g_fake.result.product[3] = 5;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::CheckFailed, Stage::Compute);
  EXPECT_EQ(w.findings.execution["product_verified"], false);
  EXPECT_EQ(w.findings.execution["gradient_verified"], true);
  // The facts say where it ran even though it ran wrong.
  EXPECT_EQ(w.findings.execution["device"], "cuda:0");
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_NE(w.findings.error->message.find("product"), std::string::npos);
}

TEST_F(RunStages, NanGradientFailsTheCheck) {
  g_fake.result.gradient[1] = std::numeric_limits<float>::quiet_NaN();
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::CheckFailed, Stage::Compute);
  EXPECT_EQ(w.findings.execution["product_verified"], true);
  EXPECT_EQ(w.findings.execution["gradient_verified"], false);
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_NE(w.findings.error->message.find("gradient"), std::string::npos);
}

TEST_F(RunStages, InfiniteLossFailsTheCheckAndIsNotReportedAsANumber) {
  g_fake.result.loss = std::numeric_limits<float>::infinity();
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::CheckFailed, Stage::Compute);
  EXPECT_TRUE(w.findings.execution["loss"].is_null());
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_NE(w.findings.error->message.find("loss"), std::string::npos);
}

TEST_F(RunStages, WrongResultsFailOnCpuToo) {
  g_fake.result.product[0] = 2.0001f;
  expect_outcome(walk(Device::Cpu), Outcome::CheckFailed, Stage::Compute);
}

TEST_F(RunStages, UnsynchronizedGpuResultsFailTheCheck) {
  g_fake.result.synchronized = 0;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::CheckFailed, Stage::Compute);
  EXPECT_EQ(w.findings.execution["synchronized"], false);
  EXPECT_EQ(w.findings.execution["product_verified"], true);
  ASSERT_TRUE(w.findings.error.has_value());
  EXPECT_EQ(w.findings.error->type, "NotSynchronized");
}

TEST_F(RunStages, UnreadableMemoryCountersDoNotFailThePass) {
  g_fake.memory_status = KD_RUNTIME_ERROR;
  Walk w = walk(Device::Cuda);
  expect_outcome(w, Outcome::GpuCheckPassed, Stage::Compute);
  ASSERT_TRUE(w.findings.execution["memory"].is_object());
  EXPECT_TRUE(w.findings.execution["memory"]["allocated_bytes"].is_null());
  EXPECT_TRUE(w.findings.execution["memory"]["reserved_bytes"].is_null());
}

TEST_F(RunStages, UnknownMemoryCountersAreNull) {
  g_fake.memory_info = {-1, 1024};
  Walk w = walk(Device::Cuda);
  EXPECT_TRUE(w.findings.execution["memory"]["allocated_bytes"].is_null());
  EXPECT_EQ(w.findings.execution["memory"]["reserved_bytes"], 1024);
}

TEST_F(RunStages, InvalidUtf8InAnErrorStillGivesAVerdict) {
  g_fake.compute_status = KD_RUNTIME_ERROR;
  g_fake.error_message = "bad \xff\xfe bytes";
  expect_outcome(walk(Device::Cuda), Outcome::RuntimeError, Stage::Compute);
}

}  // namespace
}  // namespace kd
