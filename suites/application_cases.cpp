// Layer "application": the modules of the application asked with --import, imported after the
// computation in the interpreter and the torch it ran in, and the distributions of the
// environment that require torch, listed from their metadata. Each case makes a real virtual
// environment (python3 -m venv) holding the check's torch wheel as pip installed it and real
// distributions as pip installs them: torchvision from PyPI made for this torch and one made for
// another (ci/setup --torch pypi), extensions built in this build with torch.utils.cpp_extension
// (fixtures/extensions), or a module of the case's own; and names its python3 with
// KERNODECK_TORCH_PYTHON.
#include <string>
#include <vector>

#include "layer_test.hpp"
#include "manipulations.hpp"
#include "requirements.hpp"
#include "runner.hpp"

namespace {

using kdh::Case;
using kdh::Requirement;

// The distributions of ci/setup a case installs, each in its folder as pip installs it.
const std::string kTorchvisionForThisTorch = "torchvision-0.29.2";   // torch>=2.14.0
const std::string kTorchvisionForOtherTorch = "torchvision-0.24.1";  // torch==2.9.1, CUDA 12
const std::string kPillow = "pillow-13.0.0";
const std::string kNumpy = "numpy-2.4.6";

// What an environment holds besides the torch wheel: folders of ci/setup's distributions, and
// extensions built by the fixtures.
struct Installed {
  std::vector<std::string> distributions;
  std::vector<std::string> built;
};

// {tmp}/venv: a virtual environment of the python3 on PATH holding the check's torch wheel and
// what `more` names, each linked entry by entry as pip installed it.
kdh::Preparation environment(Installed more) {
  return [more](const std::string& tmp) -> std::string {
    const std::string wheel = kdh::torch_wheel_site_packages(kdh::runner());
    if (wheel.empty()) return "no torch wheel's site-packages to make an environment from";
    if (std::string why = kdh::make_virtual_environment(tmp + "/venv"); !why.empty()) return why;
    const std::string site = kdh::virtual_environment_site(tmp + "/venv");
    if (site.empty()) return "the virtual environment has no site-packages folder";
    if (std::string why = kdh::link_installed(wheel, site); !why.empty()) return why;
    for (const std::string& folder : more.distributions) {
      const std::string from = kdh::application_distribution(folder);
      if (from.empty()) return "no " + folder + " installed for the application layer";
      if (std::string why = kdh::link_installed(from, site); !why.empty()) return why;
    }
    for (const std::string& name : more.built) {
      const std::string from = kdh::built_extension(name);
      if (from.empty()) return "the extension " + name + " was not built";
      if (std::string why = kdh::link_installed(from, site); !why.empty()) return why;
    }
    return "";
  };
}

// {tmp}/venv with a module of the case's own, `name`.py, as a script an application imports.
kdh::Preparation environment_with_module(std::string name, std::string source) {
  return [name, source](const std::string& tmp) -> std::string {
    if (std::string why = environment({})(tmp); !why.empty()) return why;
    const std::string site = kdh::virtual_environment_site(tmp + "/venv");
    return kdh::write_text_file(site + "/" + name + ".py", source);
  };
}

// {tmp}/venv of Debian's /usr/bin/python3 seeing its own site-packages, whose torch is Debian's
// python3-torch, not the wheel's, with the extension `name` built against the wheel's torch.
kdh::Preparation distribution_torch_environment(std::string name) {
  return [name](const std::string& tmp) -> std::string {
    const std::string python = kdh::distribution_torch_python();
    if (python.empty()) return "no distribution's torch to make an environment of";
    if (std::string why = kdh::make_virtual_environment(tmp + "/venv", python, true); !why.empty()) {
      return why;
    }
    const std::string site = kdh::virtual_environment_site(tmp + "/venv");
    if (site.empty()) return "the virtual environment has no site-packages folder";
    const std::string from = kdh::built_extension(name);
    if (from.empty()) return "the extension " + name + " was not built";
    return kdh::link_installed(from, site);
  };
}

// A case of the application layer: its environment made by `prepare`, its python3 named to the
// check, CPU mode (the layer is the same whatever the device), run from the privacy canaries'
// folder: no folder of the machine in any field.
Case app_case(const std::string& id, kdh::Preparation prepare, const std::string& what,
              kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .needs(Requirement::TorchWheelSite)
      .prepare(std::move(prepare), what)
      .env("KERNODECK_TORCH_PYTHON", "{tmp}/venv/bin/python3")
      .with_privacy_canaries()
      .expect_field("/tool/probe", "python")
      .expect_report_lacks("{tmp}")
      .expect_report_lacks("site-packages");
}

const char* const kHangingModule =
    "# An import that never returns, with a process of its own that outlives its parent's end\n"
    "import subprocess, time\n"
    "subprocess.Popen(['sleep', '300'])\n"
    "time.sleep(300)\n";

const char* const kFailingModule =
    "# An application module whose import raises, naming where it looked\n"
    "import os\n"
    "raise RuntimeError('no model configuration in ' + os.getcwd() + ' for ' + os.environ.get('HOME', ''))\n";

std::vector<Case> application_cases() {
  return {
      app_case("torchvision_made_for_this_torch_passes",
               environment({{kTorchvisionForThisTorch, kPillow, kNumpy}, {}}),
               "the torch wheel, and torchvision " + kTorchvisionForThisTorch + " (requires "
               "torch>=2.14.0) with pillow and numpy, as pip installs them")
          .guards("a module asked with --import that imports with this torch, its libraries "
                  "that link libtorch loaded too, passes, listed as imported with its "
                  "distribution and its requirement met")
          .needs(Requirement::ApplicationDistributions)
          .args({"--device", "cpu", "--import", "torchvision"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/application/extensions/0/module", "torchvision")
          .expect_field("/application/extensions/0/distribution", "torchvision")
          .expect_field("/application/extensions/0/version", "0.29.2")
          .expect_field("/application/extensions/0/requires_torch", ">=2.14.0")
          .expect_field("/application/extensions/0/torch_matches", true)
          .expect_field("/application/extensions/0/imported", true)
          .expect_not_null("/application/extensions/0/seconds")
          .expect_field("/warnings", kdh::json::array()),
      app_case("torchvision_made_for_other_torch",
               environment({{kTorchvisionForOtherTorch, kPillow, kNumpy}, {}}),
               "the torch wheel, and torchvision " + kTorchvisionForOtherTorch + " (requires "
               "torch==2.9.1, built with CUDA 12) installed with pip install --no-deps")
          .guards("torchvision made for another torch is EXTENSION_IMPORT_FAILED (13) at the "
                  "application stage, naming the requirement and the torch found, the CUDA of "
                  "each, and the pip line that brings the release made for this torch")
          .needs(Requirement::ApplicationDistributions)
          .needs(Requirement::CudaBackend)
          .args({"--device", "cpu", "--import", "torchvision"})
          .outcome("EXTENSION_IMPORT_FAILED", "application")
          .expect_field("/error/type", "ExtensionForOtherTorch")
          .expect_field("/error/message", "RuntimeError: operator torchvision::nms does not exist")
          .expect_field_contains("/message", "torchvision 0.24.1, CUDA 12) is made for torch==2.9.1")
          .expect_field_contains("/message", "this environment's torch is 2.15.0")
          .expect_field_contains("/message", "(CUDA 13.2)")
          .expect_field_contains("/message", "python -m pip install --upgrade \"torch==2.15.0\" torchvision")
          .expect_field("/application/extensions/0/torch_matches", false)
          .expect_field("/application/extensions/0/imported", false),
      app_case("torchvision_made_for_other_torch_listed_warns",
               environment({{kTorchvisionForOtherTorch, kPillow, kNumpy}, {}}),
               "the torch wheel, and torchvision " + kTorchvisionForOtherTorch + " (requires "
               "torch==2.9.1) installed with pip install --no-deps; no --import")
          .guards("every run lists the distributions that require torch from their metadata "
                  "alone: one made for another torch is a warning in the report and on stderr, "
                  "never a change of the exit code, and nothing is imported")
          .needs(Requirement::ApplicationDistributions)
          .args({"--device", "cpu"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/application/extensions/0/distribution", "torchvision")
          .expect_field("/application/extensions/0/requires_torch", "==2.9.1")
          .expect_field("/application/extensions/0/torch_matches", false)
          .expect_null("/application/extensions/0/imported")
          .expect_null("/application/extensions/0/seconds")
          .expect_field("/warnings/0/stage", "application")
          .expect_field("/warnings/0/type", "ExtensionForOtherTorch")
          .expect_field_contains("/warnings/0/message", "is made for torch==2.9.1")
          .expect_stderr_contains("warning (application, ExtensionForOtherTorch)"),
      app_case("extension_built_against_other_torch",
               distribution_torch_environment("kd-twice"),
               "Debian's python3-torch (1.13) in a virtual environment of /usr/bin/python3, with "
               "kd-twice built by torch.utils.cpp_extension against the torch 2.15 wheel")
          .guards("a compiled extension built against another libtorch is "
                  "EXTENSION_IMPORT_FAILED (13) naming the missing function demangled, never "
                  "mangled, and the torch its metadata says it was built for")
          .needs(Requirement::BuiltExtensions)
          .needs(Requirement::DistributionTorch)
          .args({"--device", "cpu", "--import", "kd_twice"})
          .outcome("EXTENSION_IMPORT_FAILED", "application")
          .expect_field("/error/type", "ExtensionBuiltAgainstOtherTorch")
          .expect_field_contains("/error/message", "c10::TensorImpl::decref_pyobject() const")
          .expect_field_contains("/message", "calls c10::TensorImpl::decref_pyobject() const")
          .expect_field_contains("/message", "(torch==2.15.0, as its metadata requires)")
          .expect_report_lacks("_ZNK3c10"),
      app_case("extension_other_cxx_abi", environment({{}, {"kd-twice-abi0"}}),
               "kd-twice built by torch.utils.cpp_extension against the torch wheel with "
               "-D_GLIBCXX_USE_CXX11_ABI=0, while the wheel's libraries use the C++11 ABI")
          .guards("an extension built with the other C++ ABI than torch's is "
                  "EXTENSION_IMPORT_FAILED (13) naming the flag to rebuild with and the function "
                  "demangled")
          .needs(Requirement::BuiltExtensions)
          .args({"--device", "cpu", "--import", "kd_twice"})
          .outcome("EXTENSION_IMPORT_FAILED", "application")
          .expect_field("/error/type", "ExtensionOtherCxxAbi")
          .expect_field_contains("/message", "_GLIBCXX_USE_CXX11_ABI=0 and needs "
                                             "c10::detail::torchCheckFail(")
          .expect_field_contains("/message", "-D_GLIBCXX_USE_CXX11_ABI=1")
          .expect_report_lacks("_ZN3c106detail"),
      app_case("extension_for_other_cuda_major", environment({{}, {"kd-cuda-version"}}),
               "kd-cuda-version built by torch.utils.cpp_extension against the torch wheel and "
               "linked to CUDA 12's runtime (libcudart.so.12), which this environment lacks")
          .guards("an extension built for another CUDA major than torch's is "
                  "EXTENSION_IMPORT_FAILED (13) naming both")
          .needs(Requirement::BuiltExtensions)
          .needs(Requirement::CudaBackend)
          .args({"--device", "cpu", "--import", "kd_cuda_version"})
          .outcome("EXTENSION_IMPORT_FAILED", "application")
          .expect_field("/error/type", "ExtensionCudaMismatch")
          .expect_field_contains("/message", "need the CUDA 12 runtime")
          .expect_field_contains("/message", "built with CUDA 13.2"),
      app_case("compiled_extension_for_this_torch_passes", environment({{}, {"kd-twice"}}),
               "kd-twice built by torch.utils.cpp_extension against the torch wheel, as pip "
               "installs it")
          .guards("a compiled extension built against the torch imported passes, its library "
                  "loaded as torch loads an ops library")
          .needs(Requirement::BuiltExtensions)
          .args({"--device", "cpu", "--import", "kd_twice"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/application/extensions/0/distribution", "kd-twice")
          .expect_field("/application/extensions/0/torch_matches", true)
          .expect_field("/application/extensions/0/imported", true),
      app_case("extension_dependency_missing",
               environment({{kTorchvisionForThisTorch, kNumpy}, {}}),
               "the torch wheel, torchvision " + kTorchvisionForThisTorch + " and numpy, without "
               "pillow (installed with pip install --no-deps)")
          .guards("a Python dependency of an extension missing is EXTENSION_IMPORT_FAILED (13) "
                  "naming the module, the distribution that provides it, and which module needs it")
          .needs(Requirement::ApplicationDistributions)
          .args({"--device", "cpu", "--import", "torchvision"})
          .outcome("EXTENSION_IMPORT_FAILED", "application")
          .expect_field("/error/type", "ExtensionDependencyMissing")
          .expect_field_contains("/message", "needs the Python module PIL (of the distribution pillow)")
          .expect_field_contains("/message", "torchvision.")
          .expect_field_contains("/message", "python -m pip install pillow"),
      app_case("extension_not_installed", environment({}), "the torch wheel alone")
          .guards("a module asked that this environment lacks is EXTENSION_IMPORT_FAILED (13) "
                  "naming it and its installation; those asked after it are listed, not reached")
          .args({"--device", "cpu", "--import", "kd_not_installed", "--import", "json"})
          .outcome("EXTENSION_IMPORT_FAILED", "application")
          .expect_field("/error/type", "ExtensionNotInstalled")
          .expect_field_contains("/message", "kd_not_installed is not installed in this Python environment")
          .expect_field("/application/extensions/0/imported", false)
          .expect_field("/application/extensions/1/module", "json")
          .expect_null("/application/extensions/1/imported"),
      app_case("extension_import_raises",
               environment_with_module("kd_raises", kFailingModule),
               "a module of the application whose import raises RuntimeError naming the working "
               "folder and the home folder")
          .guards("any other failure of an import is EXTENSION_IMPORT_FAILED (13) with the "
                  "exception's class and first line, sanitized, never a trace")
          .args({"--device", "cpu", "--import", "kd_raises"})
          .outcome("EXTENSION_IMPORT_FAILED", "application")
          .expect_field("/error/type", "ExtensionImportError")
          .expect_field_contains("/message", "RuntimeError: no model configuration in")
          .expect_report_lacks("Traceback"),
      app_case("extension_import_hangs", environment_with_module("kd_hang", kHangingModule),
               "a module of the application whose import starts a process and never returns")
          .guards("an import that never returns is TIMEOUT (10) at the application stage naming "
                  "the module, within the time limit, and nothing it started is left running")
          .args({"--device", "cpu", "--timeout", "6", "--import", "kd_hang"})
          .outcome("TIMEOUT", "application")
          .expect_field_contains("/message", "importing kd_hang")
          .expect_field_contains("/error/message", "while importing kd_hang")
          .expect_field("/application/extensions/0/imported", false)
          .expect_field("/execution/loss", 196.0)
          .within(20.0),
  };
}

}  // namespace

KERNODECK_LAYER(application, application_cases());
