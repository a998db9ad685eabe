// Layer "device": GPU exposure, the index, starting the device. Without a
// GPU on the runner these are shown through the fault probe, whose simulated
// driver honours CUDA_VISIBLE_DEVICES as a real one does; the same promises
// on a real GPU are in gpu_cases.cpp.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "layer_test.hpp"
#include "manipulations.hpp"
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
// /dev/nvidia0 (to /dev/nvidia<gpus-1>) and, unless `uvm` is false, /dev/nvidia-uvm,
// all with `mode` and of root and group `gid`.
kdh::PrivateMounts nvidia_nodes(bool uvm, unsigned mode, unsigned gid = 0, unsigned gpus = 1) {
  kdh::PrivateMounts m;
  m.device_node("nvidiactl", 195, 255, mode, gid);
  for (unsigned i = 0; i < gpus; ++i) m.device_node("nvidia" + std::to_string(i), 195, i, mode, gid);
  if (uvm) m.device_node("nvidia-uvm", 508, 0, mode, gid);
  return m;
}

// The case in a private /dev holding only `mounts`' nodes (mknod as real root
// in a mount namespace), {tmp} open to other users; `also` prepares what else
// the case needs (a library folder, a file to bind), when given.
Case in_private_dev(Case c, const kdh::PrivateMounts& mounts, const std::string& words,
                    kdh::Preparation also = {}) {
  return c.needs(Requirement::DeviceNodes)
      .prepare(
          [mounts, also](const std::string& tmp) {
            if (chmod(tmp.c_str(), 0755) != 0) return "cannot open " + tmp;
            std::string why = also ? also(tmp) : "";
            return why.empty() ? mounts.write(tmp) : why;
          },
          words + ", in a private /dev (a mount namespace)")
      .wrap(kdh::in_private_mounts(true), "");
}

// What every cause case asserts: its outcome, the cause's error.type, the
// words of its message and next action, and no path or value of the
// environment in the report.
Case cause_case(const std::string& id, const std::string& promise, const std::string& type,
                const std::string& what, const std::string& next_action,
                kdh::Where where = kdh::Where::here()) {
  return cuda_libtorch_without_gpu(id, promise, where)
      .expect_field("/error/type", type)
      .expect_field_contains("/message", what)
      .expect_field_contains("/message", next_action)
      .expect_not_null("/error/evidence/device_nodes")
      .expect_not_null("/error/evidence/visible_devices")
      .with_privacy_canaries();
}

// A driver whose cuInit answers `mode`'s error: the runtime's own number and words.
Case init_error(const std::string& id, const std::string& mode, int number,
                const std::string& type, const std::string& what, const std::string& next_action,
                kdh::Where where = kdh::Where::here()) {
  return with_standin_driver(
             cause_case(id,
                        "a driver whose initialisation fails with error " + std::to_string(number) +
                            " is GPU_UNAVAILABLE (6) naming that cause (" + type +
                            "), in the runtime's own words",
                        type, what, next_action, where),
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

// ---- the causes users meet most: device cgroups, rootless groups, driver files ----

// The case's device nodes in a private /dev and the check in a child of this process's v1
// devices cgroup that allows what every container is allowed and `gpu_rules`: a container
// whose GPU rules were lost (none), or a job given some GPUs.
Case in_devices_cgroup(Case c, const kdh::PrivateMounts& mounts, std::vector<std::string> gpu_rules,
                       const std::string& words) {
  std::vector<std::string> rules = kdh::container_device_rules();
  rules.insert(rules.end(), gpu_rules.begin(), gpu_rules.end());
  std::string allowed = gpu_rules.empty() ? "no GPU rule" : "";
  for (const auto& rule : gpu_rules) allowed += (allowed.empty() ? "" : ", ") + rule;
  return c.needs(Requirement::DeviceNodes)
      .needs(Requirement::DeviceCgroupV1)
      .prepare(
          [mounts, rules](const std::string& tmp) {
            if (chmod(tmp.c_str(), 0755) != 0) return "cannot open " + tmp;
            std::string why = mounts.write(tmp);
            return why.empty() ? kdh::devices_cgroup(rules)(tmp) : why;
          },
          words + ", in a private /dev (a mount namespace); the check started in a child "
                  "cgroup of /sys/fs/cgroup/devices that denies every device, then allows "
                  "runc's rules for every container and " + allowed)
      .wrap({"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh",
             "{tmp}/mounts.sh", "/bin/sh", "{tmp}/devices-cgroup.sh"},
            "")
      .also([](const kdh::CaseRun& run, std::vector<std::string>& problems) {
        expect_torch_cuda_version(run, problems);
        kdh::devices_cgroup_removed(run, problems);
      });
}

// A folder {tmp}/NAME on LD_LIBRARY_PATH holding `links` (its name -> what it points at) and
// `copies` (its name -> a file copied there).
std::function<std::string(const std::string&)> library_folder(
    const std::string& name, std::vector<std::pair<std::string, std::string>> links,
    std::vector<std::pair<std::string, std::string>> copies) {
  return [name, links, copies](const std::string& tmp) -> std::string {
    const std::string dir = tmp + "/" + name;
    if (mkdir(dir.c_str(), 0755) != 0) return "cannot make " + dir;
    for (const auto& [file, target] : links) {
      if (symlink(target.c_str(), (dir + "/" + file).c_str()) != 0) return "cannot link " + file;
    }
    for (const auto& [file, source] : copies) {
      std::ifstream in(kdh::runner().fixtures_dir + "/" + source, std::ios::binary);
      std::ofstream out(dir + "/" + file, std::ios::binary);
      out << in.rdbuf();
      if (!in || !out.flush()) return "cannot copy " + source + " to " + file;
    }
    return "";
  };
}

constexpr const char* kPluginUuid = "GPU-3c1d8e55-7a2b-4f90-b6e4-1d2c3b4a5f60";

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

std::vector<Case> wild_cause_cases() {
  return {
      in_devices_cgroup(
          init_error("cause_device_cgroup_denied", "opens-nodes", 999, "DeviceCgroupDenied",
                     "the device nodes are there and their permissions allow this user, but the "
                     "kernel refuses them (/dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidiaN: "
                     "EPERM): the container's device cgroup (its devices.list lacks them)",
                     "Recreate the container (a restart keeps the lost rules)"),
          nvidia_nodes(true, 0666), {},
          "/dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm at mode 0666; the driver stand-in "
          "opens them in cuInit")
          .expect_field("/error/evidence/device_nodes/nvidiactl", "not_accessible")
          .expect_field("/error/evidence/device_cgroup/hierarchy", "v1")
          .expect_field("/error/evidence/device_cgroup/devices_list", "denies")
          .expect_field("/error/evidence/device_cgroup/nvidiactl_refused", true)
          .expect_field("/error/evidence/device_cgroup/nvidia_gpus_refused", 1)
          .expect_field_contains("/message", "nvidia-ctk system create-dev-char-symlinks")
          .expect_field_lacks("/message", "Run as a user")
          .expect_field_lacks("/error/message", "/"),
      in_devices_cgroup(
          init_error("cause_no_gpu_granted", "opens-nodes", 100, "NoGpuGranted",
                     "its device cgroup grants it none of the GPUs here (1 of 1 /dev/nvidiaN "
                     "refused: EPERM) while the driver's own nodes are open",
                     "Ask the scheduler for a GPU"),
          nvidia_nodes(true, 0666), {"c 195:255 rw", "c 508:* rw"},
          "/dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm at mode 0666")
          .expect_field("/error/evidence/device_cgroup/nvidiactl_refused", false)
          .expect_field("/error/evidence/device_cgroup/nvidia_gpus_refused", 1)
          .expect_field_lacks("/message", "Run as a user")
          .expect_field_lacks("/message", "Recreate the container")
          .expect_field_lacks("/error/message", "/"),
      in_devices_cgroup(
          init_error("other_jobs_gpus_are_no_cause", "opens-nodes", 100, "NoDevice",
                     "the driver sees no GPU", "Check device exposure"),
          nvidia_nodes(true, 0666, 0, 2), {"c 195:255 rw", "c 508:* rw", "c 195:0 rw"},
          "/dev/nvidiactl, /dev/nvidia0, /dev/nvidia1, /dev/nvidia-uvm at mode 0666")
          .guards("a job given some of the GPUs (its device cgroup refuses the others' nodes, the "
                  "driver's own nodes open) is no device-cgroup fault: no cgroup or permission "
                  "cause is named")
          .expect_field("/error/evidence/device_cgroup/nvidia_gpus_refused", 1)
          .expect_field("/error/evidence/device_nodes/nvidia_gpus_accessible", 1)
          .expect_field_lacks("/message", "device cgroup")
          .expect_field_lacks("/message", "Run as a user")
          .expect_field_lacks("/error/message", "/"),
      in_private_dev(init_error("cause_node_group_unmapped", "opens-nodes", 999,
                                "NodeGroupUnmapped",
                                "it runs in a user namespace (a rootless container) that does not "
                                "map the device nodes' group",
                                "podman run --group-add keep-groups"),
                     nvidia_nodes(true, 0660, 44), "/dev/nvidia* of root and video (44), mode 0660")
          .needs(Requirement::AnotherUser)
          .needs(Requirement::UnprivilegedUserNamespaces)
          .wrap({"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh",
                 "{tmp}/mounts.sh", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                 "--clear-groups", "--", "/usr/bin/unshare", "--user", "--map-root-user", "--"},
                "then as nobody in a user namespace of its own that maps only its own ids "
                "(setpriv --reuid=65534, unshare --user --map-root-user)")
          .expect_field("/error/evidence/user_namespace/gid_map", "partial")
          .expect_field("/error/evidence/user_namespace/unmapped_group_nodes", 3)
          .expect_field("/error/evidence/device_cgroup/nvidiactl_refused", false)
          .expect_field_lacks("/message", "Run as a user")
          .expect_field_lacks("/error/message", "/"),
      with_standin_driver(cause_case("cause_gpus_without_nvidia_runtime",
                                     "GPUs named by the device plugin (NVIDIA_VISIBLE_DEVICES "
                                     "holds UUIDs) in a container without their nodes is "
                                     "GPU_UNAVAILABLE (6) naming the missing NVIDIA runtime",
                                     "GpusWithoutNvidiaRuntime",
                                     "GPUs were given to it (NVIDIA_VISIBLE_DEVICES names GPU "
                                     "UUIDs, as the NVIDIA device plugin sets it), but no "
                                     "/dev/nvidia* node",
                                     "runtimeClassName: nvidia"),
                          "no-device")
          .needs(Requirement::DeviceNodes)
          .prepare(
              [](const std::string& tmp) {
                return chmod(tmp.c_str(), 0755) == 0 ? kdh::PrivateMounts().private_dev().write(tmp)
                                                     : "cannot open " + tmp;
              },
              "no /dev/nvidia* at all, in a private /dev (a mount namespace)")
          .wrap(kdh::in_private_mounts(true), "")
          .env("NVIDIA_VISIBLE_DEVICES", kPluginUuid)
          .expect_field("/error/evidence/visible_devices/NVIDIA_VISIBLE_DEVICES", "uuid_list")
          .expect_report_lacks(kPluginUuid)
          .expect_report_lacks("3c1d8e55")
          .expect_field_lacks("/message", "--gpus")
          .expect_field_lacks("/error/message", "/"),
  };
}

// The driver's files where the loader looks, and a WSL2 kernel: the real CUDA runtime without
// any real driver, meeting what a container was given.
std::vector<Case> driver_file_cases() {
  return {
      cause_case("cause_stub_driver",
                 "the CUDA toolkit's stub driver library first on the library path as "
                 "libcuda.so.1 is GPU_UNAVAILABLE (6) naming the stub",
                 "StubDriver",
                 "the CUDA runtime loaded a stub of the driver library (libcuda.so of a stubs "
                 "folder; error 34)",
                 "Take the stubs folder (the CUDA toolkit's lib64/stubs) off LD_LIBRARY_PATH")
          .needs(Requirement::CudaToolkitStub)
          .prepare(library_folder("driver", {{"libcuda.so.1", "/usr/local/cuda/lib64/stubs/libcuda.so"}}, {}),
                   "{tmp}/driver/libcuda.so.1, a link to the CUDA toolkit's "
                   "/usr/local/cuda/lib64/stubs/libcuda.so, first on LD_LIBRARY_PATH")
          .env("LD_LIBRARY_PATH", "{tmp}/driver")
          .expect_field("/error/evidence/runtime/error", 34)
          .expect_field("/error/evidence/driver_files/libcuda_folder", "stubs")
          .expect_field("/error/evidence/driver_files/libcuda_file", "libcuda.so")
          .expect_field_contains("/error/message", "(34): ")
          .expect_field_lacks("/error/message", "/"),
      cause_case("cause_driver_link_missing",
                 "a driver library without its libcuda.so.1 link is GPU_UNAVAILABLE (6) naming "
                 "the missing link and ldconfig",
                 "DriverLinkMissing",
                 "the NVIDIA driver library is there (libcuda.so.550.54.15) but not the "
                 "libcuda.so.1 link",
                 "Run ldconfig in the container")
          .prepare(library_folder("driver", {}, {{"libcuda.so.550.54.15", "driver/libcuda.so.1"}}),
                   "{tmp}/driver on LD_LIBRARY_PATH holding a driver library (the stand-in) as "
                   "libcuda.so.550.54.15, without the libcuda.so.1 link")
          .env("LD_LIBRARY_PATH", "{tmp}/driver")
          .expect_field("/error/evidence/runtime/error", 35)
          .expect_field("/error/evidence/driver_files/libcuda_so_1", "absent")
          .expect_field("/error/evidence/driver_files/libcuda_version_without_link", "550.54.15")
          .expect_field_lacks("/error/message", "/"),
      in_private_dev(
          cause_case("cause_driver_capability_missing",
                     "the NVIDIA nodes and NVML without libcuda (NVIDIA_DRIVER_CAPABILITIES "
                     "lacking compute) is GPU_UNAVAILABLE (6) naming the capability",
                     "DriverCapabilityMissing",
                     "the GPUs' device nodes and the driver's management library "
                     "(libnvidia-ml.so.1) are there, but not its CUDA library (libcuda.so.1)",
                     "Add compute to NVIDIA_DRIVER_CAPABILITIES"),
          nvidia_nodes(true, 0666),
          "/dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm; {tmp}/utility on LD_LIBRARY_PATH "
          "holding libnvidia-ml.so.1 alone (a copy of the driver stand-in), as the NVIDIA "
          "runtime mounts the driver for NVIDIA_DRIVER_CAPABILITIES=utility",
          library_folder("utility", {}, {{"libnvidia-ml.so.1", "driver/libcuda.so.1"}}))
          .env("LD_LIBRARY_PATH", "{tmp}/utility")
          .env("NVIDIA_DRIVER_CAPABILITIES", "utility")
          .expect_field("/error/evidence/driver_files/libnvidia_ml_so_1", "present")
          .expect_field("/error/evidence/driver_files/libcuda_so_1", "absent")
          .expect_field_lacks("/message", "Expose the driver")
          .expect_field_lacks("/error/message", "/"),
      in_private_dev(
          cause_case("cause_wsl_gpu_not_reached",
                     "a WSL2 kernel without /dev/nvidia* is GPU_UNAVAILABLE (6) naming WSL2's "
                     "/dev/dxg and its driver libraries, not --gpus and /dev/nvidia*",
                     "WslGpuNotReached",
                     "this is WSL2 (a Microsoft kernel), where the GPU is reached through "
                     "/dev/dxg and the driver libraries of /usr/lib/wsl/lib, never /dev/nvidia* "
                     "(/dev/dxg is there)",
                     "Install the NVIDIA driver for WSL on Windows"),
          kdh::PrivateMounts()
              .device_node("dxg", 10, 63, 0666)
              .bind("{tmp}/osrelease", "/proc/sys/kernel/osrelease"),
          "/dev/dxg alone, and a private /proc/sys/kernel/osrelease of WSL2's kernel "
          "(5.15.167.4-microsoft-standard-WSL2)",
          [](const std::string& tmp) {
            return kdh::write_text_file(tmp + "/osrelease", "5.15.167.4-microsoft-standard-WSL2\n");
          })
          .expect_field("/error/evidence/wsl_kernel", true)
          .expect_field("/error/evidence/device_nodes/dxg", "accessible")
          .expect_field("/error/evidence/device_nodes/nvidia_gpus", 0)
          .expect_report_lacks("microsoft-standard")
          .expect_field_lacks("/message", "started without")
          .expect_field_lacks("/error/message", "/"),
  };
}

std::vector<Case> all_device_cases() {
  std::vector<Case> all = device_cases();
  for (Case& c : cause_cases()) all.push_back(std::move(c));
  for (Case& c : wild_cause_cases()) all.push_back(std::move(c));
  for (Case& c : driver_file_cases()) all.push_back(std::move(c));
  return all;
}

}  // namespace

KERNODECK_LAYER(device, all_device_cases());
