// Layer "backend": what the loaded libtorch declares (CUDA, HIP or neither).
// A GPU is required by default and never silently replaced by the CPU.
#include "layer_test.hpp"

namespace {

using kdh::Case;
using kdh::Need;

std::vector<Case> backend_cases() {
  return {
      Case("default_device_on_cpu_only_libtorch", "backend")
          .guards("the default device is cuda: a CPU-only libtorch is GPU_BACKEND_ABSENT (5), "
                  "never a CPU pass")
          .needs_(Need::CpuOnlyBackend)
          .args({})
          .outcome("GPU_BACKEND_ABSENT", "backend")
          .expect_field("/pytorch/backend", "none")
          .expect_null("/pytorch/cuda")
          .expect_null("/pytorch/hip")
          .expect_null("/execution/device")
          .expect_null("/pytorch/gpu_available"),
      Case("backend_none_declared", "backend")
          .guards("a libtorch declaring neither CUDA nor HIP is GPU_BACKEND_ABSENT (5)")
          .with_fault("backend=none")
          .args({"--device", "cuda"})
          .outcome("GPU_BACKEND_ABSENT", "backend")
          .expect_null("/execution/device"),
      Case("cpu_mode_on_cuda_libtorch", "backend")
          .guards("--device cpu on a CUDA libtorch asks nothing of the GPU driver")
          .with_fault("backend=cuda,gpus=2")
          .args({"--device", "cpu"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/pytorch/backend", "cuda")
          .expect_field("/pytorch/cuda", "12.8")
          .expect_null("/pytorch/gpu_available")
          .expect_null("/pytorch/visible_device_count")
          .expect_field("/execution/device", "cpu")
          .expect_null("/execution/memory"),
      Case("rocm_libtorch_uses_cuda_name", "backend")
          .guards("ROCm builds use the device name cuda and report their HIP version")
          .with_fault("backend=rocm,gpus=1")
          .args({"--device", "cuda"})
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/pytorch/backend", "rocm")
          .expect_field("/pytorch/hip", "6.2.41133")
          .expect_null("/pytorch/cuda"),
      Case("fixture_probe_is_declared", "backend")
          .guards("a report made through the probe seam says so and cannot pass for a real GPU")
          .with_fault("backend=cuda,gpus=1")
          .args({})
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/tool/probe", "override")
          .expect_field_contains("/message", "fault-injection probe"),
  };
}

}  // namespace

KERNODECK_LAYER(backend, backend_cases());
