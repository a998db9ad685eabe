// Layer "backend": what the loaded libtorch declares (CUDA, HIP or neither).
// A GPU is required by default and never silently replaced by the CPU.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "kd/supervisor.hpp"
#include "util/files.hpp"
#include "layer_test.hpp"
#include "manipulations.hpp"
#include "requirements.hpp"
#include "run_case.hpp"
#include "runner.hpp"

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

// ---- the backend's own libraries: cuDNN ----

// `from`'s entries linked into the new folder `to`, but `left_out`; "" or why not.
std::string folder_of_links(const std::string& from, const std::string& to,
                            const std::vector<std::string>& left_out) {
  if (mkdir(to.c_str(), 0755) != 0) return "cannot make " + to;
  return kdh::link_installed(from, to, left_out);
}

// {tmp}/venv: the torch wheel as pip installed it without the cuDNN it pins (nvidia/cudnn and
// its dist-info), as `pip uninstall nvidia-cudnn-cu13` leaves it, and with `replacement` (a
// folder of ci/setup's, as pip install --target leaves another release) where given. torch's
// folder and its lib/ are folders of their own, so that the loader's $ORIGIN stays in the
// environment: libtorch_cuda finds its cuDNN where pip put it, or, without it, where the system
// has one.
kdh::Preparation environment_without_pinned_cudnn(std::string replacement) {
  return [replacement](const std::string& tmp) -> std::string {
    const std::string wheel = kdh::torch_wheel_site_packages(kdh::runner());
    if (wheel.empty()) return "no torch wheel's site-packages to make an environment from";
    if (std::string why = kdh::make_virtual_environment(tmp + "/venv"); !why.empty()) return why;
    const std::string site = kdh::virtual_environment_site(tmp + "/venv");
    std::vector<std::string> left_out = {"torch", "nvidia"};
    for (const std::string& name : kd::folder_entries(wheel)) {
      if (name.rfind("nvidia_cudnn_", 0) == 0) left_out.push_back(name);
    }
    if (std::string why = kdh::link_installed(wheel, site, left_out); !why.empty()) return why;
    if (std::string why = folder_of_links(wheel + "/torch", site + "/torch", {"lib"}); !why.empty()) {
      return why;
    }
    if (std::string why = folder_of_links(wheel + "/torch/lib", site + "/torch/lib", {});
        !why.empty()) {
      return why;
    }
    if (std::string why = folder_of_links(wheel + "/nvidia", site + "/nvidia", {"cudnn"});
        !why.empty()) {
      return why;
    }
    if (replacement.empty()) return "";
    const std::string other = kdh::application_distribution(replacement);
    if (other.empty()) return "no " + replacement + " installed";
    if (std::string why = kdh::link_installed(other + "/nvidia", site + "/nvidia"); !why.empty()) {
      return why;
    }
    return kdh::link_installed(other, site, {"nvidia"});
  };
}

// The same environment, and another release's cuDNN in a folder of its own, {tmp}/cudnn-lib, as
// a framework's or a conda package's cuDNN lies beside the environment for LD_LIBRARY_PATH.
kdh::Preparation environment_with_cudnn_on_library_path(std::string release) {
  return [release](const std::string& tmp) -> std::string {
    if (std::string why = environment_without_pinned_cudnn("")(tmp); !why.empty()) return why;
    const std::string other = kdh::application_distribution(release);
    if (other.empty()) return "no " + release + " installed";
    const std::string lib = other + "/nvidia/cudnn/lib";
    if (symlink(lib.c_str(), (tmp + "/cudnn-lib").c_str()) != 0) return "cannot link " + lib;
    return "";
  };
}

// The folder of the system's cuDNN (ld.so.cache's libcudnn.so.9: the CUDA toolkit's); "" where none.
std::string system_cudnn_folder() {
  kd::SpawnSpec ldconfig;
  ldconfig.argv = {"/bin/sh", "-c", "/sbin/ldconfig -p | grep -m1 'libcudnn\\.so\\.9 '"};
  const std::string line = kd::run_supervised(ldconfig, kd::deadline_in(20), {}).out.data;
  std::smatch m;
  if (!std::regex_search(line, m, std::regex("=> (/.+)/libcudnn\\.so\\.9"))) return "";
  return m[1].str();
}

// {tmp}/venv: the torch wheel as pip installed it, the cuDNN it pins included (nvidia/cudnn and
// nvidia_cudnn_cu13-*.dist-info with its RECORD), but the files of nvidia/cudnn/lib written over
// by the system's cuDNN (the CUDA toolkit's, of another release), as an image step that copies
// the system's cuDNN over the wheel's, or a second package owning the same paths, leaves them:
// libcudnn.so.9, the library torch loads, is a copy; the libraries it loads in turn are links to
// the system's; a file the system's cuDNN has no counterpart of stays the wheel's.
kdh::Preparation environment_with_replaced_cudnn_files() {
  return [](const std::string& tmp) -> std::string {
    if (std::string why = environment_without_pinned_cudnn("")(tmp); !why.empty()) return why;
    const std::string wheel = kdh::torch_wheel_site_packages(kdh::runner());
    const std::string site = kdh::virtual_environment_site(tmp + "/venv");
    const std::string system = system_cudnn_folder();
    if (system.empty()) return "no cuDNN 9 in ld.so.cache";
    std::vector<std::string> others;
    for (const std::string& name : kd::folder_entries(wheel)) {
      if (name.rfind("nvidia_cudnn_", 0) != 0) others.push_back(name);
    }
    if (std::string why = kdh::link_installed(wheel, site, others); !why.empty()) return why;
    const std::string from = wheel + "/nvidia/cudnn", to = site + "/nvidia/cudnn";
    if (std::string why = folder_of_links(from, to, {"lib"}); !why.empty()) return why;
    if (mkdir((to + "/lib").c_str(), 0755) != 0) return "cannot make " + to + "/lib";
    for (const std::string& name : kd::folder_entries(from + "/lib")) {
      const std::string target = to + "/lib/" + name;
      const std::string theirs = system + "/" + name;
      if (name == "libcudnn.so.9" && kd::path_exists(theirs)) {
        std::ifstream in(theirs, std::ios::binary);
        std::ofstream out(target, std::ios::binary);
        if (!(out << in.rdbuf())) return "cannot copy " + theirs;
      } else if (symlink((kd::path_exists(theirs) ? theirs : from + "/lib/" + name).c_str(),
                         target.c_str()) != 0) {
        return "cannot link " + target;
      }
    }
    return "";
  };
}

Case cudnn_case(const std::string& id, kdh::Preparation prepare, const std::string& what,
                kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .needs(Requirement::TorchWheelSite)
      .needs(Requirement::CudaBackend)
      .prepare(std::move(prepare), what)
      .env("KERNODECK_TORCH_PYTHON", "{tmp}/venv/bin/python3")
      .with_privacy_canaries()
      .expect_field("/tool/probe", "python")
      .expect_report_lacks("{tmp}");
}

std::vector<Case> cudnn_cases() {
  return {
      cudnn_case("cudnn_of_the_system_refused", environment_without_pinned_cudnn(""),
                 "the torch wheel without the cuDNN it pins (pip uninstall nvidia-cudnn-cu13): "
                 "libtorch_cuda takes the system's, the CUDA toolkit's cuDNN of ld.so.cache")
          .guards("a cuDNN torch refuses is BACKEND_LIBRARY_MISMATCH (15) at the backend stage, "
                  "before the device, naming both versions, where it comes from and torch's pin")
          .needs(Requirement::SystemCudnn)
          .outcome("BACKEND_LIBRARY_MISMATCH", "backend")
          .expect_field("/error/type", "CudnnFromSystem")
          .expect_field("/pytorch/cudnn/compiled", "9.26.0")
          .expect_field("/pytorch/cudnn/accepted", false)
          .expect_field("/pytorch/cudnn/origin", "system")
          .expect_field("/pytorch/cudnn/pinned", "nvidia-cudnn-cu13==9.26.0.51")
          .expect_field_contains("/message", "built with cuDNN 9.26.0 and found 9.")
          .expect_field_contains("/message", "the system's library path")
          .expect_field_contains("/message",
                                 "pip install --force-reinstall \"nvidia-cudnn-cu13==9.26.0.51\"")
          .expect_null("/execution/device"),
      cudnn_case("cudnn_of_the_system_warns_on_the_cpu", environment_without_pinned_cudnn(""),
                 "the torch wheel without the cuDNN it pins, --device cpu")
          .guards("on the CPU the verdict stands: a cuDNN torch refuses is a warning, with the "
                  "facts")
          .needs(Requirement::SystemCudnn)
          .args({"--device", "cpu"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/pytorch/cudnn/accepted", false)
          .expect_field("/warnings/0/stage", "backend")
          .expect_field("/warnings/0/type", "CudnnFromSystem")
          .expect_stderr_contains("warning (backend, CudnnFromSystem)"),
      cudnn_case("cudnn_of_another_release_refused",
                 environment_without_pinned_cudnn("nvidia-cudnn-cu13-9.24.1.1"),
                 "the torch wheel with nvidia-cudnn-cu13==9.24.1.1's files in place of the release "
                 "it pins, as another package's pin leaves them")
          .guards("a cuDNN of another release than torch pins, which torch refuses, is "
                  "BACKEND_LIBRARY_MISMATCH (15) naming that release and the reinstall")
          .needs(Requirement::ApplicationDistributions)
          .outcome("BACKEND_LIBRARY_MISMATCH", "backend")
          .expect_field("/error/type", "CudnnOtherRelease")
          .expect_field("/pytorch/cudnn/runtime", "9.24.1")
          .expect_field("/pytorch/cudnn/origin", "other_wheel")
          .expect_field_contains("/message", "the wheel nvidia-cudnn-cu13==9.24.1.1, not the "
                                             "release torch pins")
          .expect_field_contains("/message", "--force-reinstall"),
      cudnn_case("cudnn_files_replaced_refused", environment_with_replaced_cudnn_files(),
                 "the torch wheel with the cuDNN it pins, whose files in nvidia/cudnn/lib the "
                 "system's cuDNN (the CUDA toolkit's) was written over")
          .guards("a cuDNN torch refuses in the place of the wheel torch pins, whose file is not "
                  "the one that wheel installed, is BACKEND_LIBRARY_MISMATCH (15) naming the "
                  "release found by asking the library, never the wheel's word for it")
          .needs(Requirement::SystemCudnn)
          .outcome("BACKEND_LIBRARY_MISMATCH", "backend")
          .expect_field("/error/type", "CudnnFilesReplaced")
          .expect_field("/pytorch/cudnn/compiled", "9.26.0")
          .expect_field("/pytorch/cudnn/accepted", false)
          .expect_field("/pytorch/cudnn/origin", "replaced_wheel")
          .expect_field("/pytorch/cudnn/source", "library")
          .expect_field_contains("/message", "built with cuDNN 9.26.0 and found 9.")
          .expect_field_contains("/message", "the wheel nvidia-cudnn-cu13==9.26.0.51")
          .expect_field_contains("/message",
                                 "pip install --force-reinstall \"nvidia-cudnn-cu13==9.26.0.51\"")
          .expect_null("/execution/device"),
      cudnn_case("cudnn_files_replaced_warns_on_the_cpu", environment_with_replaced_cudnn_files(),
                 "the same, --device cpu")
          .guards("on the CPU a cuDNN whose wheel's files were replaced is a warning, with the facts")
          .needs(Requirement::SystemCudnn)
          .args({"--device", "cpu"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/pytorch/cudnn/origin", "replaced_wheel")
          .expect_field("/warnings/0/type", "CudnnFilesReplaced")
          .expect_stderr_contains("warning (backend, CudnnFilesReplaced)"),
      cudnn_case("cudnn_on_the_library_path_refused",
                 environment_with_cudnn_on_library_path("nvidia-cudnn-cu13-9.24.1.1"),
                 "the torch wheel without the cuDNN it pins, and cuDNN 9.24's folder on "
                 "LD_LIBRARY_PATH")
          .guards("a cuDNN torch refuses, taken from a folder LD_LIBRARY_PATH names, is "
                  "BACKEND_LIBRARY_MISMATCH (15) naming that variable, never the folder")
          .needs(Requirement::ApplicationDistributions)
          .env("LD_LIBRARY_PATH", "{tmp}/cudnn-lib")
          .outcome("BACKEND_LIBRARY_MISMATCH", "backend")
          .expect_field("/error/type", "CudnnFromLibraryPath")
          .expect_field("/pytorch/cudnn/runtime", "9.24.1")
          .expect_field("/pytorch/cudnn/origin", "ld_library_path")
          .expect_field_contains("/message", "a folder that LD_LIBRARY_PATH names")
          .expect_field_contains("/message", "Take that folder off LD_LIBRARY_PATH"),
      Case("cudnn_and_nccl_in_every_report")
          .guards("every report of the torch wheel's import names its cuDNN and NCCL: the "
                  "versions, torch's acceptance, where they come from, torch's pins")
          .needs(Requirement::PythonProbe)
          .needs(Requirement::CudaBackend)
          .args({"--device", "cpu"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/pytorch/cudnn/compiled", "9.26.0")
          .expect_field("/pytorch/cudnn/runtime", "9.26.0")
          .expect_field("/pytorch/cudnn/accepted", true)
          .expect_field("/pytorch/cudnn/origin", "pinned_wheel")
          .expect_field("/pytorch/cudnn/source", "wheel")
          .expect_field("/pytorch/nccl/origin", "pinned_wheel")
          .expect_field("/pytorch/nccl/pinned", "nvidia-nccl-cu13==2.30.7")
          .expect_field("/warnings", kdh::json::array()),
  };
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

std::vector<Case> all_backend_cases() {
  std::vector<Case> cases = backend_cases();
  for (Case& c : cudnn_cases()) cases.push_back(std::move(c));
  return cases;
}

KERNODECK_LAYER(backend, all_backend_cases());
