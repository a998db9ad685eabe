// The promises that need a real GPU, on the image's own libtorch. Skipped
// with the reason on a runner without a GPU, failed instead when the runner
// declared KERNODECK_EXPECT_GPU=1. Built as their own program so CTest can
// give each test one GPU (RESOURCE_GROUPS gpus:1 with --resource-spec-file).
#include "layer_test.hpp"
#include "manipulations.hpp"

namespace {

using kdh::Case;
using kdh::Requirement;

constexpr int kMaxIndexCases = 8;

std::vector<Case> gpu_device_cases() {
  std::vector<Case> cases;
  for (int k = 0; k < kMaxIndexCases; ++k) {
    cases.push_back(Case("gpu_pass_index_" + std::to_string(k))
                        .guards("the fixed computation passes on each visible GPU: "
                                "GPU_CHECK_PASSED (0), synchronized, with allocator counters")
                        .needs_index(k)
                        .needs(Requirement::GpuBackend)
                        .args({"--device-index", "{gpu_index}"})
                        .outcome("GPU_CHECK_PASSED", "complete")
                        .expect_field("/execution/device", "cuda:{gpu_index}")
                        .expect_field("/execution/synchronized", true)
                        .expect_field("/pytorch/gpu_available", true)
                        .expect_field("/tool/probe", "{probe}")
                        .expect_not_null("/execution/memory/allocated_bytes")
                        .expect_not_null("/execution/memory/reserved_bytes"));
  }
  cases.push_back(Case("gpu_hidden_real")
                      .guards("a real GPU hidden from the process is GPU_UNAVAILABLE (6), never a "
                              "CPU pass")
                      .needs(Requirement::Gpu)
                      .needs(Requirement::GpuBackend)
                      .env("CUDA_VISIBLE_DEVICES", "")
                      .env("HIP_VISIBLE_DEVICES", "")
                      .env("ROCR_VISIBLE_DEVICES", "")
                      .outcome("GPU_UNAVAILABLE", "device")
                      .expect_field("/pytorch/visible_device_count", 0)
                      .expect_null("/execution/device"));
  cases.push_back(Case("gpu_index_equal_to_count_real")
                      .guards("an index equal to the real visible count is DEVICE_INDEX_INVALID (7)")
                      .needs(Requirement::Gpu)
                      .needs(Requirement::GpuBackend)
                      .args({"--device-index", "{gpu_count}"})
                      .outcome("DEVICE_INDEX_INVALID", "device"));
  cases.push_back(Case("gpu_index_negative_real")
                      .guards("a negative index on a real GPU is DEVICE_INDEX_INVALID (7)")
                      .needs(Requirement::Gpu)
                      .needs(Requirement::GpuBackend)
                      .args({"--device-index", "-1"})
                      .outcome("DEVICE_INDEX_INVALID", "device"));
  return cases;
}

std::vector<Case> gpu_compute_cases() {
  return {
      Case("gpu_parent_never_touches_driver")
          .guards("the GPU driver is never initialised in the parent process")
          .needs(Requirement::Gpu)
          .needs(Requirement::GpuBackend)
          .watch_processes()
          .outcome("GPU_CHECK_PASSED", "complete"),
      Case("gpu_precisions_and_weights_memory")
          .guards("on a GPU, the weights' bytes are set against the GPU's free memory and a real "
                  "allocation of that size, and the computation runs again in each precision "
                  "asked; the allocator's memory is measured at each stage's end")
          .needs(Requirement::Gpu)
          .needs(Requirement::GpuBackend)
          .needs(Requirement::PythonProbe)
          .prepare(kdh::sparse_weights("model.safetensors", 1ULL << 30),
                   "model.safetensors: one float32 tensor of 1 GiB, its data a hole (sparse)")
          .args({"--weights", "model.safetensors", "--dtype", "float16", "--dtype", "float64"})
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/application/memory/weights_bytes", 1ULL << 30)
          .expect_field("/application/memory/limited_by", "device")
          .expect_field("/application/memory/fits", true)
          .expect_field("/application/precisions/0/dtype", "float16")
          .expect_field("/application/precisions/0/device", "cuda:0")
          .expect_field("/application/precisions/0/verified", true)
          .expect_field("/application/precisions/2/dtype", "float32")
          .expect_field("/application/precisions/2/verified", true)
          .expect_not_null("/memory_by_stage/compute/allocated_bytes")
          .expect_not_null("/memory_by_stage/application/reserved_bytes"),
      Case("cpu_mode_on_gpu_machine")
          .guards("--device cpu on a GPU machine runs on the CPU and asks nothing of the driver")
          .needs(Requirement::Gpu)
          .needs(Requirement::GpuBackend)
          .args({"--device", "cpu"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_null("/pytorch/gpu_available")
          .expect_field("/execution/device", "cpu"),
  };
}

std::vector<Case> gpu_host_cases() {
  return {
      Case("nvidia_smi_real")
          .guards("the host check reads the real nvidia-smi: driver version and total memory")
          .needs(Requirement::Gpu)
          .needs(Requirement::NvidiaSmi)
          .args({"--host-check"})
          .expect_field("/host/status", "ok")
          .expect_not_null("/host/driver_version")
          .expect_not_null("/host/memory_total_mib"),
  };
}

}  // namespace

KERNODECK_LAYER(device, gpu_device_cases());
KERNODECK_LAYER(compute, gpu_compute_cases());
KERNODECK_LAYER(host, gpu_host_cases());
