// Covers worker.hpp: the stages walked against in-process fake probes, the verification, loading a probe module, and the worker's argv.
#include "run/worker.hpp"
#include "stages/compute/compute.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "facts/protocol.hpp"
#include "util/tests/temp_dir.hpp"

#ifndef KD_TEST_PROBE_MODULE
#error "KD_TEST_PROBE_MODULE must name the test probe module"
#endif

namespace kd {
namespace {

using Lines = std::vector<std::string>;

constexpr kd_compute_result kGoodResult = {{2, 2, 6, 4}, {56, 28, 56, 28}, 196, 1,
                                           KD_GRADIENT_AUTOGRAD, 0, {0, 0, 0, 0}};

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

struct Walk {
  Lines lines;
  WorkerFindings findings;
};

// Every line the worker emits must be valid protocol, and the last one its
// verdict: the parent would call anything else WORKER_FAILED.
void check_protocol(const Walk& w) {
  EXPECT_EQ(w.findings.protocol_problem, "");
  ASSERT_FALSE(w.lines.empty());
  EXPECT_NE(w.lines.back().find("\"event\":\"outcome\""), std::string::npos) << w.lines.back();
  for (size_t i = 0; i + 1 < w.lines.size(); ++i) {
    EXPECT_EQ(w.lines[i].find("\"event\":\"outcome\""), std::string::npos) << w.lines[i];
  }
  EXPECT_TRUE(w.findings.outcome.has_value());
}

Walk fold(const Lines& lines) {
  Walk w;
  w.lines = lines;
  for (const auto& l : lines) apply_event(w.findings, l);
  check_protocol(w);
  return w;
}

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

TEST(Verify, TheExpectedNumbersPass) {
  Verification v = verify(kGoodResult);
  EXPECT_TRUE(v.product_ok);
  EXPECT_TRUE(v.gradient_ok);
  EXPECT_TRUE(v.loss_ok);
  EXPECT_EQ(v.problem, "");
}

TEST(Verify, ComparisonIsExact) {
  kd_compute_result r = kGoodResult;
  r.product[2] = std::nextafter(6.0f, 7.0f);
  Verification v = verify(r);
  EXPECT_FALSE(v.product_ok);
  EXPECT_TRUE(v.gradient_ok);
  EXPECT_NE(v.problem.find("product"), std::string::npos);

  r = kGoodResult;
  r.gradient[0] = std::nextafter(56.0f, 0.0f);
  v = verify(r);
  EXPECT_TRUE(v.product_ok);
  EXPECT_FALSE(v.gradient_ok);
  EXPECT_NE(v.problem.find("gradient"), std::string::npos);

  r = kGoodResult;
  r.loss = std::nextafter(196.0f, 200.0f);
  v = verify(r);
  EXPECT_FALSE(v.loss_ok);
  EXPECT_NE(v.problem.find("loss"), std::string::npos);
}

TEST(Verify, NanAndInfinityNeverPass) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(),
                    std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    for (int i = 0; i < 4; ++i) {
      kd_compute_result r = kGoodResult;
      r.product[i] = bad;
      EXPECT_FALSE(verify(r).product_ok) << i;
      r = kGoodResult;
      r.gradient[i] = bad;
      EXPECT_FALSE(verify(r).gradient_ok) << i;
    }
    kd_compute_result r = kGoodResult;
    r.loss = bad;
    EXPECT_FALSE(verify(r).loss_ok);
  }
}

TEST(Verify, ATransposedProductFails) {
  kd_compute_result r = kGoodResult;
  // [[2,6],[2,4]]: b @ a instead of a @ b.
  r.product[1] = 6;
  r.product[2] = 2;
  EXPECT_FALSE(verify(r).product_ok);
}

TEST(Verify, TheFirstMismatchIsNamed) {
  kd_compute_result r = kGoodResult;
  r.product[0] = 0;
  r.gradient[0] = 0;
  Verification v = verify(r);
  EXPECT_FALSE(v.product_ok);
  EXPECT_FALSE(v.gradient_ok);
  EXPECT_EQ(v.problem.rfind("product", 0), 0u) << v.problem;
}

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
