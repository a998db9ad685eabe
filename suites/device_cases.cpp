// Layer "device": GPU exposure, the index, starting the device. Without a
// GPU on the runner these are shown through the fault probe, whose simulated
// driver honours CUDA_VISIBLE_DEVICES as a real one does; the same promises
// on a real GPU are in gpu_cases.cpp.
#include "layer_test.hpp"

namespace {

using kdh::Case;

std::vector<Case> device_cases() {
  return {
      Case("hidden_gpu_cuda_visible_devices_empty", "device")
          .guards("a GPU hidden from the process is GPU_UNAVAILABLE (6), never a CPU pass")
          .with_fault("gpus=2")
          .env("CUDA_VISIBLE_DEVICES", "")
          .args({})
          .outcome("GPU_UNAVAILABLE", "device")
          .expect_field("/pytorch/gpu_available", false)
          .expect_field("/pytorch/visible_device_count", 0)
          .expect_null("/execution/device"),
      Case("hidden_gpu_hip_visible_devices_empty", "device")
          .guards("on ROCm, HIP_VISIBLE_DEVICES= hides the GPU: GPU_UNAVAILABLE (6)")
          .with_fault("backend=rocm,gpus=1")
          .env("HIP_VISIBLE_DEVICES", "")
          .args({})
          .outcome("GPU_UNAVAILABLE", "device"),
      Case("gpu_unavailable_to_library", "device")
          .guards("a driver the library cannot use is GPU_UNAVAILABLE (6)")
          .with_fault("gpus=1,available=0")
          .args({})
          .outcome("GPU_UNAVAILABLE", "device")
          .expect_field("/pytorch/gpu_available", false),
      Case("index_negative", "device")
          .guards("a negative --device-index is DEVICE_INDEX_INVALID (7)")
          .with_fault("gpus=2")
          .args({"--device-index", "-1"})
          .outcome("DEVICE_INDEX_INVALID", "device")
          .expect_field("/requested/device_index", -1),
      Case("index_equal_to_count", "device")
          .guards("an index equal to the visible count is DEVICE_INDEX_INVALID (7)")
          .with_fault("gpus=2")
          .args({"--device-index", "2"})
          .outcome("DEVICE_INDEX_INVALID", "device")
          .expect_field("/pytorch/visible_device_count", 2),
      Case("index_beyond_visible_set", "device")
          .guards("the index counts visible devices only, after CUDA_VISIBLE_DEVICES")
          .with_fault("gpus=4")
          .env("CUDA_VISIBLE_DEVICES", "2")
          .args({"--device-index", "1"})
          .outcome("DEVICE_INDEX_INVALID", "device")
          .expect_field("/pytorch/visible_device_count", 1),
      Case("index_last_visible_passes", "device")
          .guards("the last visible index is valid; the report names the device it ran on")
          .with_fault("gpus=2")
          .args({"--device-index", "1"})
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/execution/device", "cuda:1")
          .expect_field("/execution/synchronized", true)
          .expect_field("/execution/memory/allocated_bytes", 8192)
          .expect_field("/execution/memory/reserved_bytes", 2097152),
      Case("index_recorded_but_unused_on_cpu", "device")
          .guards("--device-index is recorded but unused with --device cpu")
          .with_fault("gpus=1")
          .args({"--device", "cpu", "--device-index", "5"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/requested/device_index", 5)
          .expect_field("/execution/device", "cpu"),
      Case("out_of_memory_starting_device", "device")
          .guards("an allocation failing on the device is OUT_OF_MEMORY (9) at stage device")
          .with_fault("oom=device")
          .args({})
          .outcome("OUT_OF_MEMORY", "device")
          .expect_field("/error/type", "OutOfMemoryError"),
      Case("runtime_error_starting_device", "device")
          .guards("a backend error starting the device is RUNTIME_ERROR (9) at stage device")
          .with_fault("error=device")
          .args({})
          .outcome("RUNTIME_ERROR", "device"),
      Case("device_init_time_reported", "device")
          .guards("timings_ms.device_init shows how long starting the device took")
          .with_fault("gpus=1")
          .args({})
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_not_null("/execution/timings_ms/device_init")
          .expect_not_null("/execution/timings_ms/compute"),
  };
}

}  // namespace

KERNODECK_LAYER(device, device_cases());
