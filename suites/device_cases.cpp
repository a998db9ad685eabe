// Layer "device": GPU exposure, the index, starting the device. Without a
// GPU on the runner these are shown through the fault probe, whose simulated
// driver honours CUDA_VISIBLE_DEVICES as a real one does; the same promises
// on a real GPU are in gpu_cases.cpp.
#include <sys/stat.h>

#include "layer_test.hpp"
#include "private_mounts.hpp"
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
      .expect_field("/tool/probe", "{probe}")
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

// The nodes a GPU machine with its driver loaded has: /dev/nvidiactl,
// /dev/nvidia0 and, unless `uvm` is false, /dev/nvidia-uvm, all with `mode`.
kdh::PrivateMounts nvidia_nodes(bool uvm, unsigned mode) {
  kdh::PrivateMounts m;
  m.device_node("nvidiactl", 195, 255, mode).device_node("nvidia0", 195, 0, mode);
  if (uvm) m.device_node("nvidia-uvm", 508, 0, mode);
  return m;
}

// The case in a private /dev holding only `mounts`' nodes (mknod as real root
// in a mount namespace), {tmp} open to other users.
Case in_private_dev(Case c, const kdh::PrivateMounts& mounts, const std::string& words) {
  return c.needs(Requirement::DeviceNodes)
      .prepare(
          [mounts](const std::string& tmp) {
            return chmod(tmp.c_str(), 0755) == 0 ? mounts.write(tmp) : "cannot open " + tmp;
          },
          words + ", in a private /dev (a mount namespace)")
      .wrap(kdh::in_private_mounts(true), "");
}

// What every cause case asserts: its outcome, the cause's error.type, the
// words of its message and next action, and no path or value of the
// environment in the report.
Case cause_case(const std::string& id, const std::string& promise, const std::string& type,
                const std::string& what, const std::string& next_action) {
  return cuda_libtorch_without_gpu(id, promise)
      .expect_field("/error/type", type)
      .expect_field_contains("/message", what)
      .expect_field_contains("/message", next_action)
      .expect_not_null("/error/evidence/device_nodes")
      .expect_not_null("/error/evidence/visible_devices")
      .with_privacy_canaries();
}

// A driver whose cuInit answers `mode`'s error: the runtime's own number and words.
Case init_error(const std::string& id, const std::string& mode, int number,
                const std::string& type, const std::string& what, const std::string& next_action) {
  return with_standin_driver(
             cause_case(id,
                        "a driver whose initialisation fails with error " + std::to_string(number) +
                            " is GPU_UNAVAILABLE (6) naming that cause (" + type +
                            "), in the runtime's own words",
                        type, what, next_action),
             mode)
      .expect_field("/error/evidence/runtime/api", "cuda")
      .expect_field("/error/evidence/runtime/error", number)
      .expect_field_contains("/error/message", "(" + std::to_string(number) + "): ");
}

constexpr const char* kHiddenUuid = "GPU-8f2c1e9a-3b4d-4c5e-9f60-7a8b9c0d1e2f";

std::vector<Case> cause_cases() {
  return {
      in_private_dev(init_error("cause_no_device_nodes", "no-device", 100, "NoDeviceNodes",
                                "no NVIDIA device node in this container (started without --gpus",
                                "Start the container with its GPUs exposed"),
                     kdh::PrivateMounts().private_dev(), "no /dev/nvidia* at all")
          .expect_field("/error/evidence/device_nodes/nvidia_gpus", 0),
      in_private_dev(init_error("cause_device_nodes_not_accessible", "no-device", 100,
                                "DeviceNodesNotAccessible",
                                "the device nodes are there but this user may not open them "
                                "(/dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidiaN)",
                                "Run as a user who may read and write them"),
                     nvidia_nodes(true, 0600), "/dev/nvidia* of root, mode 0600")
          .needs(Requirement::AnotherUser)
          .wrap({"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh",
                 "{tmp}/mounts.sh", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                 "--clear-groups", "--"},
                "then runs as nobody (setpriv --reuid=65534)")
          .expect_field("/error/evidence/device_nodes/nvidiactl", "not_accessible")
          .expect_field("/error/evidence/device_nodes/nvidia_gpus", 1)
          .expect_field("/error/evidence/device_nodes/nvidia_gpus_accessible", 0),
      in_private_dev(init_error("cause_gpus_hidden", "no-device", 100, "GpusHidden",
                                "the device nodes are there, but CUDA_VISIBLE_DEVICES (uuid_list) "
                                "leaves no GPU visible",
                                "Unset the variable, or list GPUs this machine has"),
                     nvidia_nodes(true, 0666), "/dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm")
          .env("CUDA_VISIBLE_DEVICES", kHiddenUuid)
          .expect_field("/error/evidence/visible_devices/CUDA_VISIBLE_DEVICES", "uuid_list")
          .expect_report_lacks(kHiddenUuid)
          .expect_report_lacks("8f2c1e9a"),
      in_private_dev(init_error("cause_uvm_missing", "unknown-error", 999, "UvmMissing",
                                "/dev/nvidia-uvm is missing",
                                "Load the nvidia-uvm kernel module on the host"),
                     nvidia_nodes(false, 0666), "/dev/nvidiactl and /dev/nvidia0, no /dev/nvidia-uvm")
          .expect_field("/error/evidence/device_nodes/nvidia_uvm", "absent")
          .expect_field_contains("/error/message", "unknown error"),
      in_private_dev(init_error("cause_unknown_driver_error", "unknown-error", 999,
                                "UnknownDriverError", "the driver answered an unknown error (999)",
                                "Check dmesg for Xid errors; a GPU reset may be needed"),
                     nvidia_nodes(true, 0666), "/dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm")
          .expect_field_lacks("/message", "CUDA_VISIBLE_DEVICES after program start"),
      in_private_dev(init_error("cause_os_call_refused", "operating-system", 304, "OsCallRefused",
                                "the operating system refused a call the driver needs (error 304)",
                                "without a seccomp or sandbox profile"),
                     nvidia_nodes(true, 0666), "/dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm"),
      in_private_dev(init_error("cause_driver_init_failed", "not-initialized", 3,
                                "DriverInitFailed", "the driver could not be initialised (error 3)",
                                "Check the driver on the host"),
                     nvidia_nodes(true, 0666), "/dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm"),
      in_private_dev(init_error("cause_no_device", "no-device", 100, "NoDevice",
                                "the driver sees no GPU", "Check device exposure"),
                     nvidia_nodes(true, 0666), "/dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm")
          .expect_field("/error/evidence/device_nodes/nvidia_gpus_accessible", 1),
      init_error("cause_driver_mismatch", "driver-mismatch", 803, "DriverMismatch",
                 "the NVIDIA driver library (libcuda.so.550.54.15, version 550.54.15) and the "
                 "kernel module (version 535.104.05) are of different versions",
                 "Use the driver libraries of the host's kernel module")
          .env("LD_LIBRARY_PATH", "{fixtures}/driver-550")
          .needs(Requirement::UserNamespaces)
          .prepare(
              [](const std::string& tmp) {
                return kdh::PrivateMounts()
                    .proc_driver_file("nvidia/version",
                                      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  "
                                      "Sat Aug 19 01:15:15 UTC 2023\nGCC version:  gcc 12.2.0\n")
                    .write(tmp);
              },
              "the stand-in as libcuda.so.550.54.15; a private /proc/driver/nvidia/version of "
              "kernel module 535.104.05")
          .wrap(kdh::in_private_mounts(false), "")
          .expect_field("/error/evidence/driver_library", "libcuda.so.550.54.15")
          .expect_field("/error/evidence/kernel_module", "535.104.05")
          .expect_field_contains("/error/message",
                                 "system has unsupported display driver / cuda driver combination"),
      init_error("cause_fabric_manager_not_running", "system-not-ready", 802,
                 "FabricManagerNotRunning", "the NVIDIA fabric manager is not running",
                 "Start nvidia-fabricmanager on the host"),
      init_error("cause_compat_not_supported", "compat-unsupported", 804, "CompatNotSupported",
                 "the CUDA forward-compatibility libraries in use (cuda-compat) do not support "
                 "this GPU",
                 "Take the compatibility libraries off the library path"),
      init_error("cause_devices_busy", "devices-unavailable", 46, "DevicesBusy",
                 "the GPUs are busy or unavailable (error 46)",
                 "Find the process that holds the GPU"),
      init_error("cause_out_of_memory_at_init", "out-of-memory", 2, "OutOfMemoryAtInit",
                 "the driver ran out of memory while initialising (error 2)",
                 "Free host memory or raise the container's memory limit"),
  };
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
          .expect_field_contains("/message", "Expose the driver")
          .expect_field("/error/evidence/runtime/error", 35)
          .expect_null("/error/evidence/runtime/driver_version")
          .expect_null("/error/evidence/driver_library")
          .with_privacy_canaries(),
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
      with_standin_driver(cuda_libtorch_without_gpu("cuda_libtorch_driver_too_old",
                                                    "a driver too old for libtorch's CUDA "
                                                    "runtime is GPU_UNAVAILABLE (6), naming both "
                                                    "CUDA versions"),
                          "too-old")
          .expect_field("/error/type", "DriverTooOld")
          .expect_field_contains("/error/message", "(35): CUDA driver version is insufficient")
          .expect_field_contains("/message", "the driver supports CUDA 11.8, the runtime is CUDA")
          .expect_field_contains("/message", "Update the GPU driver")
          .expect_field("/error/evidence/runtime/driver_version", "11.8")
          .with_privacy_canaries(),
  };
}

std::vector<Case> all_device_cases() {
  std::vector<Case> all = device_cases();
  for (Case& c : cause_cases()) all.push_back(std::move(c));
  return all;
}

}  // namespace

KERNODECK_LAYER(device, all_device_cases());
