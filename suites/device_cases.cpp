// Layer "device": GPU exposure, the index, starting the device. Without a
// GPU on the runner these are shown through the fault probe, whose simulated
// driver honours CUDA_VISIBLE_DEVICES as a real one does; the same promises
// on a real GPU are in gpu_cases.cpp.
#include "layer_test.hpp"
#include "run_case.hpp"
#include "runner.hpp"

namespace {

using kdh::Case;
using kdh::Requirement;

// The pytorch.cuda of a real CUDA libtorch: the version its wheel records,
// or at least a version where the library does not say.
void expect_torch_cuda_version(const kdh::CaseRun& run, std::vector<std::string>& problems) {
  const auto& report = run.main().report;
  if (!report) return;
  const kdh::json cuda = report->value(kdh::json::json_pointer("/pytorch/cuda"), kdh::json());
  const std::string& want = kdh::runner().torch_cuda_version;
  if (!want.empty() && cuda != want) {
    problems.push_back("/pytorch/cuda is " + cuda.dump() + "; the wheel's torch/version.py says \"" +
                       want + "\"");
  } else if (want.empty() && !(cuda.is_string() && !cuda.get<std::string>().empty())) {
    problems.push_back("/pytorch/cuda is " + cuda.dump() + "; a CUDA libtorch names its CUDA version");
  }
}

// The real CUDA libtorch on a machine without a GPU or driver: the default
// device is GPU_UNAVAILABLE, whatever the exposure or the index asked, since
// no GPU is usable before any index is looked at.
Case cuda_libtorch_without_gpu(const std::string& id, const std::string& promise,
                               kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .guards(promise)
      .needs(Requirement::CudaBackend)
      .needs(Requirement::NoGpu)
      .outcome("GPU_UNAVAILABLE", "device")
      .expect_field("/tool/probe", "libtorch")
      .expect_field("/pytorch/backend", "cuda")
      .expect_field("/pytorch/gpu_available", false)
      .expect_field("/pytorch/visible_device_count", 0)
      .expect_null("/pytorch/hip")
      .expect_null("/execution/device")
      .also(expect_torch_cuda_version);
}

// A stand-in NVIDIA driver library (fixtures/cuda_driver_standin.c) first on
// the loader path, so that libtorch's own CUDA initialisation meets it.
Case with_standin_driver(Case c, const std::string& mode) {
  return c.env("LD_LIBRARY_PATH", "{fixtures}/driver").env("KD_FAKE_DRIVER", mode);
}

std::vector<Case> device_cases() {
  return {
      Case("hidden_gpu_cuda_visible_devices_empty")
          .guards("a GPU hidden from the process is GPU_UNAVAILABLE (6), never a CPU pass")
          .with_fault("gpus=2")
          .env("CUDA_VISIBLE_DEVICES", "")
          .outcome("GPU_UNAVAILABLE", "device")
          .expect_field("/pytorch/gpu_available", false)
          .expect_field("/pytorch/visible_device_count", 0)
          .expect_null("/execution/device"),
      Case("hidden_gpu_hip_visible_devices_empty")
          .guards("on ROCm, HIP_VISIBLE_DEVICES= hides the GPU: GPU_UNAVAILABLE (6)")
          .with_fault("backend=rocm,gpus=1")
          .env("HIP_VISIBLE_DEVICES", "")
          .outcome("GPU_UNAVAILABLE", "device"),
      Case("gpu_unavailable_to_library")
          .guards("a driver the library cannot use is GPU_UNAVAILABLE (6)")
          .with_fault("gpus=1,available=0")
          .outcome("GPU_UNAVAILABLE", "device")
          .expect_field("/pytorch/gpu_available", false),
      Case("index_negative")
          .guards("a negative --device-index is DEVICE_INDEX_INVALID (7)")
          .with_fault("gpus=2")
          .args({"--device-index", "-1"})
          .outcome("DEVICE_INDEX_INVALID", "device")
          .expect_field("/requested/device_index", -1),
      Case("index_equal_to_count")
          .guards("an index equal to the visible count is DEVICE_INDEX_INVALID (7)")
          .with_fault("gpus=2")
          .args({"--device-index", "2"})
          .outcome("DEVICE_INDEX_INVALID", "device")
          .expect_field("/pytorch/visible_device_count", 2),
      Case("index_beyond_visible_set")
          .guards("the index counts visible devices only, after CUDA_VISIBLE_DEVICES")
          .with_fault("gpus=4")
          .env("CUDA_VISIBLE_DEVICES", "2")
          .args({"--device-index", "1"})
          .outcome("DEVICE_INDEX_INVALID", "device")
          .expect_field("/pytorch/visible_device_count", 1),
      Case("index_last_visible_passes")
          .guards("the last visible index is valid; the report names the device it ran on")
          .with_fault("gpus=2")
          .args({"--device-index", "1"})
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/execution/device", "cuda:1")
          .expect_field("/execution/synchronized", true)
          .expect_field("/execution/memory/allocated_bytes", 8192)
          .expect_field("/execution/memory/reserved_bytes", 2097152),
      Case("gpu_pass_names_the_device")
          .guards("a GPU pass names the GPU it ran on: the backend's model name and its compute "
                  "capability (execution.device_name, execution.capability)")
          .with_fault("gpus=1,device_name=Kernodeck Simulated H1")
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/execution/device_name", "Kernodeck Simulated H1")
          .expect_field("/execution/capability", "9.0"),
      Case("index_recorded_but_unused_on_cpu")
          .guards("--device-index is recorded but unused with --device cpu")
          .with_fault("gpus=1")
          .args({"--device", "cpu", "--device-index", "5"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/requested/device_index", 5)
          .expect_field("/execution/device", "cpu"),
      Case("out_of_memory_starting_device")
          .guards("an allocation failing on the device is OUT_OF_MEMORY (9) at stage device")
          .with_fault("oom=device")
          .outcome("OUT_OF_MEMORY", "device")
          .expect_field("/error/type", "OutOfMemoryError"),
      Case("runtime_error_starting_device")
          .guards("a backend error starting the device is RUNTIME_ERROR (9) at stage device")
          .with_fault("error=device")
          .outcome("RUNTIME_ERROR", "device"),
      Case("device_init_time_reported")
          .guards("timings_ms.device_init shows how long starting the device took")
          .with_fault("gpus=1")
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_not_null("/execution/timings_ms/device_init")
          .expect_not_null("/execution/timings_ms/compute"),
      cuda_libtorch_without_gpu("cuda_libtorch_without_driver",
                                "a CUDA libtorch on a machine without a driver is "
                                "GPU_UNAVAILABLE (6), naming the missing driver")
          .expect_field("/error/type", "NoDriver")
          .expect_field_contains("/message", "driver library (libcuda.so.1)")
          .expect_field_contains("/message", "Expose the driver"),
      cuda_libtorch_without_gpu("cuda_libtorch_visible_devices_empty",
                                "CUDA_VISIBLE_DEVICES= on a CUDA libtorch without a GPU is "
                                "GPU_UNAVAILABLE (6)")
          .env("CUDA_VISIBLE_DEVICES", ""),
      cuda_libtorch_without_gpu("cuda_libtorch_visible_devices_minus_one",
                                "CUDA_VISIBLE_DEVICES=-1 on a CUDA libtorch without a GPU is "
                                "GPU_UNAVAILABLE (6)")
          .env("CUDA_VISIBLE_DEVICES", "-1"),
      cuda_libtorch_without_gpu("cuda_libtorch_visible_devices_unknown_uuid",
                                "an unknown GPU UUID in CUDA_VISIBLE_DEVICES on a CUDA libtorch "
                                "without a GPU is GPU_UNAVAILABLE (6)")
          .env("CUDA_VISIBLE_DEVICES", "GPU-00000000-0000-0000-0000-000000000000"),
      cuda_libtorch_without_gpu("cuda_libtorch_index_3_without_gpu",
                                "--device-index 3 without a usable GPU is GPU_UNAVAILABLE (6): "
                                "availability is checked before the index")
          .args({"--device-index", "3"})
          .expect_field("/requested/device_index", 3),
      cuda_libtorch_without_gpu("cuda_libtorch_index_negative_without_gpu",
                                "--device-index -1 without a usable GPU is GPU_UNAVAILABLE (6): "
                                "availability is checked before the index")
          .args({"--device-index", "-1"})
          .expect_field("/requested/device_index", -1),
      with_standin_driver(cuda_libtorch_without_gpu("cuda_libtorch_driver_sees_no_device",
                                                    "a driver that sees no GPU is "
                                                    "GPU_UNAVAILABLE (6), saying so"),
                          "no-device")
          .expect_field("/error/type", "NoDevice")
          .expect_field_contains("/message", "the driver sees no GPU")
          .expect_field_contains("/message", "Check device exposure"),
      with_standin_driver(cuda_libtorch_without_gpu("cuda_libtorch_driver_too_old",
                                                    "a driver too old for libtorch's CUDA "
                                                    "runtime is GPU_UNAVAILABLE (6), saying so"),
                          "too-old")
          .expect_field("/error/type", "DriverTooOld")
          .expect_field_contains("/error/message", "too old")
          .expect_field_contains("/message", "Update the GPU driver"),
  };
}

}  // namespace

KERNODECK_LAYER(device, device_cases());
