// Layer "backend": what the loaded libtorch declares (CUDA, HIP or neither).
// A GPU is required by default and never silently replaced by the CPU.
#include <sstream>

#include "util/files.hpp"
#include "layer_test.hpp"
#include "run_case.hpp"

namespace {

using kdh::Case;
using kdh::Requirement;

// The loader's own record of who asked for the GPU driver library: the audit
// library (fixtures/load_audit.c) is loaded by every process of the check and
// logs each search for libcuda.so* as "search NAME PID CALLER".
Case watch_driver_loads(Case c) {
  return c.env("LD_AUDIT", "{fixtures}/libkd_load_audit.so")
      .env("KD_AUDIT_WATCH", "libcuda.so")
      .env("KD_AUDIT_CALLER", "1")
      .env("KD_AUDIT_LOG", "{tmp}/driver-loads.log");
}

// NVIDIA's cuBLASLt and cuSPARSELt look for the driver library as they are
// loaded, whatever the program then does; they initialise nothing. Every
// other request for it is a step towards initialising the driver.
bool is_load_time_probe(const std::string& caller) {
  return caller.rfind("libcublasLt.so", 0) == 0 || caller.rfind("libcusparseLt.so", 0) == 0;
}

// The requests for the driver library, by whom, leaving the load-time probes
// out. A request is a search: only a search names who asked (an "open" line
// follows where a driver exists, whoever asked). Where a load-time probe has
// already loaded a driver, a later request finds it without a search, so on a
// machine with a driver this observation is weaker than on one without.
std::vector<std::string> driver_requests(const kdh::CaseRun& run) {
  std::vector<std::string> requests;
  std::istringstream lines(kd::read_file(run.tmp + "/driver-loads.log").value_or(""));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("search ", 0) != 0) continue;
    std::string caller = line.substr(line.rfind(' ') + 1);
    if (!is_load_time_probe(caller)) requests.push_back(line);
  }
  return requests;
}

std::vector<Case> backend_cases() {
  return {
      Case("default_device_on_cpu_only_libtorch")
          .guards("the default device is cuda: a CPU-only libtorch is GPU_BACKEND_ABSENT (5), "
                  "never a CPU pass")
          .needs(Requirement::CpuOnlyBackend)
          .outcome("GPU_BACKEND_ABSENT", "backend")
          .expect_field("/pytorch/backend", "none")
          .expect_null("/pytorch/cuda")
          .expect_null("/pytorch/hip")
          .expect_null("/execution/device")
          .expect_null("/pytorch/gpu_available"),
      Case("backend_none_declared")
          .guards("a libtorch declaring neither CUDA nor HIP is GPU_BACKEND_ABSENT (5)")
          .with_fault("backend=none")
          .args({"--device", "cuda"})
          .outcome("GPU_BACKEND_ABSENT", "backend")
          .expect_null("/execution/device"),
      Case("cpu_mode_on_cuda_libtorch")
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
      watch_driver_loads(Case("cpu_mode_on_real_cuda_libtorch"))
          .guards("--device cpu on a real CUDA libtorch passes on the CPU, and no process of "
                  "the check asks for the GPU driver library (beyond NVIDIA's load-time probes)")
          .needs(Requirement::CudaBackend)
          .args({"--device", "cpu"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/tool/probe", "{probe}")
          .expect_field("/pytorch/backend", "cuda")
          .expect_null("/pytorch/gpu_available")
          .expect_null("/pytorch/visible_device_count")
          .expect_field("/execution/device", "cpu")
          .also([](const kdh::CaseRun& run, std::vector<std::string>& problems) {
            for (const std::string& request : driver_requests(run)) {
              problems.push_back("the GPU driver library was asked for in CPU mode (the "
                                 "loader's audit: event, library, process, asked by): " +
                                 request);
            }
          }),
      watch_driver_loads(Case("default_device_asks_driver_real_cuda_libtorch"))
          .guards("the default device on a real CUDA libtorch asks for the GPU driver library, "
                  "in the worker only: the observation of the CPU case can see a load")
          .needs(Requirement::CudaBackend)
          .needs(Requirement::NoGpu)
          .outcome("GPU_UNAVAILABLE", "device")
          .expect_field("/pytorch/backend", "cuda")
          .also([](const kdh::CaseRun& run, std::vector<std::string>& problems) {
            std::vector<std::string> requests = driver_requests(run);
            bool by_runtime = false;
            for (const std::string& r : requests) {
              by_runtime = by_runtime || r.find(" libcudart.so") != std::string::npos;
            }
            if (!by_runtime) {
              problems.push_back("the loader's audit saw no request for the GPU driver library "
                                 "by the CUDA runtime (libcudart): the observation the CPU case "
                                 "relies on does not work");
            }
          }),
      Case("rocm_libtorch_uses_cuda_name")
          .guards("ROCm builds use the device name cuda and report their HIP version")
          .with_fault("backend=rocm,gpus=1")
          .args({"--device", "cuda"})
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/pytorch/backend", "rocm")
          .expect_field("/pytorch/hip", "6.2.41133")
          .expect_null("/pytorch/cuda"),
      Case("rocm_capability_is_the_arch_name")
          .guards("on ROCm the device's capability is its HIP architecture name")
          .with_fault("backend=rocm,gpus=1")
          .args({"--device", "cuda"})
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/execution/capability", "gfx942")
          .expect_not_null("/execution/device_name"),
      Case("fixture_probe_is_declared")
          .guards("a report made through the probe seam says so and cannot pass for a real GPU")
          .with_fault("backend=cuda,gpus=1")
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/tool/probe", "override")
          .expect_field_contains("/message", "fault-injection probe"),
  };
}

}  // namespace

KERNODECK_LAYER(backend, backend_cases());
