// Layer "application": the modules of the application asked with --import, imported after the
// computation in the interpreter and the torch it ran in, and the distributions of the
// environment that require torch, listed from their metadata. Each case makes a real virtual
// environment (python3 -m venv) holding the check's torch wheel as pip installed it and real
// distributions as pip installs them: torchvision from PyPI made for this torch and one made for
// another (ci/setup --torch pypi), extensions built in this build with torch.utils.cpp_extension
// (fixtures/extensions), or a module of the case's own; and names its python3 with
// KERNODECK_TORCH_PYTHON.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "kd/supervisor.hpp"
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
const std::string kSafetensors = "safetensors-0.8.0";

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

// ---- weights files, written for real by the torch the check certifies ----

// Runs `script` in {tmp} with the interpreter of the check's python probe (its torch), the
// distributions `folders` of ci/setup on its PYTHONPATH; "" or why not.
std::string run_python(const std::string& tmp, const std::string& script,
                       const std::vector<std::string>& folders = {}) {
  const std::optional<std::string>& python = kdh::runner().python;
  if (!python) return "no interpreter of the check's torch to write weights with";
  std::string path;
  for (const std::string& folder : folders) {
    const std::string found = kdh::application_distribution(folder);
    if (found.empty()) return "no " + folder + " installed for the application layer";
    path += (path.empty() ? "" : ":") + found;
  }
  kd::SpawnSpec spec;
  spec.argv = {*python, "-B", "-c", script};
  spec.cwd = tmp;
  spec.merge_err_into_out = true;
  spec.out = kd::CaptureSpec{true, 64 * 1024, true};
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("PYTHONPATH=", 0) != 0) env.emplace_back(*e);
  }
  if (!path.empty()) env.push_back("PYTHONPATH=" + path);
  spec.env = env;
  kd::RunResult run = kd::run_supervised(spec, kd::deadline_in(120), {});
  if (run.status.exited() && run.status.code == 0) return "";
  return "writing the weights failed (" + run.status.describe() + "): " + run.out.data;
}

kdh::Preparation weights_written(std::string script, std::vector<std::string> folders = {}) {
  return [script, folders](const std::string& tmp) { return run_python(tmp, script, folders); };
}

// A model's state_dict, as applications save their weights.
const char* const kModel =
    "import torch\n"
    "model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))\n";

// A case of the application's weights, its files written in {tmp} by `prepare`.
Case weights_case(const std::string& id, kdh::Preparation prepare, const std::string& what,
                  kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .needs(Requirement::PythonProbe)
      .needs(Requirement::TorchWheelSite)
      .prepare(std::move(prepare), what)
      .expect_field("/tool/probe", "python")
      .expect_report_lacks("{tmp}");
}

std::vector<Case> weights_cases() {
  return {
      weights_case("weights_state_dict_passes",
                   weights_written(std::string(kModel) + "torch.save(model.state_dict(), 'model.pt')\n"),
                   "model.pt: torch.save of a model's state_dict (its zip archive)")
          .guards("a weights file asked with --weights that torch.load reads with weights_only, "
                  "its data mapped, passes, listed with its format, tensors, bytes and dtypes")
          .with_privacy_canaries()
          .args({"--device", "cpu", "--weights", "{tmp}/model.pt"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/requested/weights/0", "model.pt")
          .expect_field("/application/weights/0/file", "model.pt")
          .expect_field("/application/weights/0/format", "torch_zip")
          .expect_field("/application/weights/0/tensors", 4)
          .expect_field("/application/weights/0/bytes", 4 * (12 + 3 + 6 + 2))
          .expect_field("/application/weights/0/dtypes/0", "float32")
          .expect_field("/application/weights/0/verified", true)
          // Its storages' bytes, read from the archive's directory before anything is loaded.
          .expect_field("/application/memory/weights_bytes", 4 * (12 + 3 + 6 + 2))
          .expect_field("/application/memory/fits", true)
          .expect_not_null("/application/memory/limited_by")
          // The computation again in the weights' own dtype.
          .expect_field("/application/precisions/0/dtype", "float32")
          .expect_field("/application/precisions/0/verified", true),
      weights_case("weights_legacy_format_passes",
                   weights_written(std::string(kModel) +
                                   "torch.save(model.state_dict(), 'model.bin', "
                                   "_use_new_zipfile_serialization=False)\n"),
                   "model.bin: torch.save's legacy format (not a zip archive)")
          .guards("a weights file of torch.save's legacy format passes")
          .args({"--device", "cpu", "--weights", "{tmp}/model.bin"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/application/weights/0/format", "torch_legacy")
          .expect_field("/application/weights/0/tensors", 4),
      weights_case("weights_safetensors_passes",
                   weights_written(std::string(kModel) +
                                   "from safetensors.torch import save_file\n"
                                   "save_file(model.state_dict(), 'model.safetensors')\n",
                                   {kSafetensors, kNumpy}),
                   "model.safetensors: written by the safetensors package")
          .guards("a safetensors file whose header holds against the file passes, read without "
                  "loading its data")
          .needs(Requirement::ApplicationDistributions)
          .args({"--device", "cpu", "--weights", "model.safetensors"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/application/weights/0/format", "safetensors")
          .expect_field("/application/weights/0/tensors", 4)
          .expect_field("/application/weights/0/bytes", 4 * (12 + 3 + 6 + 2))
          .expect_field("/application/weights/0/verified", true),
      weights_case("weights_not_found", weights_written(""), "no file at all")
          .guards("a weights file that is not there is WEIGHTS_UNUSABLE (14) naming it by its "
                  "base name")
          .with_privacy_canaries()
          .args({"--device", "cpu", "--weights", "{tmp}/models/missing.safetensors"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsNotFound")
          .expect_field_contains("/message", "The weights file missing.safetensors was not found")
          .expect_field("/application/weights/0/file", "missing.safetensors")
          .expect_field("/application/weights/0/verified", false),
      weights_case("weights_git_lfs_pointer",
                   [](const std::string& tmp) -> std::string {
                     if (std::string why = run_python(
                             tmp, std::string(kModel) + "import os\nos.makedirs('src')\n"
                                  "torch.save(model.state_dict(), 'src/model.pt')\n");
                         !why.empty()) {
                       return why;
                     }
                     return kdh::run_shell(
                         tmp,
                         "set -e; cd src; git init -q; git lfs install --local >/dev/null; "
                         "git lfs track '*.pt' >/dev/null; git add .gitattributes model.pt; "
                         "git -c user.name=kd -c user.email=kd@localhost commit -qm model; cd ..; "
                         "GIT_LFS_SKIP_SMUDGE=1 git clone -q src clone");
                   },
                   "a model repository with its weights in Git LFS, cloned without fetching "
                   "them (GIT_LFS_SKIP_SMUDGE=1), as a clone without git-lfs leaves it")
          .guards("a Git LFS pointer in place of the weights is WEIGHTS_UNUSABLE (14) naming the "
                  "size it stands for and git lfs pull")
          .needs(Requirement::GitLfs)
          .args({"--device", "cpu", "--weights", "{tmp}/clone/model.pt"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsGitLfsPointer")
          .expect_field("/application/weights/0/format", "git_lfs_pointer")
          .expect_field_contains("/message", "is a Git LFS pointer")
          .expect_field_contains("/message", "git lfs pull"),
      weights_case("weights_safetensors_cut_short",
                   weights_written(std::string(kModel) +
                                   "from safetensors.torch import save_file\n"
                                   "save_file(model.state_dict(), 'model.safetensors')\n"
                                   "data = open('model.safetensors', 'rb').read()\n"
                                   "open('model.safetensors', 'wb').write(data[:len(data) - 40])\n",
                                   {kSafetensors, kNumpy}),
                   "model.safetensors cut 40 bytes before its end, as an interrupted download "
                   "leaves it")
          .guards("a weights file cut short is WEIGHTS_UNUSABLE (14) naming the size its header "
                  "promises and the size found")
          .needs(Requirement::ApplicationDistributions)
          .args({"--device", "cpu", "--weights", "model.safetensors"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsCutShort")
          .expect_field_contains("/message", "its header promises")
          .expect_field_contains("/message", "Download it again"),
      weights_case("weights_torch_archive_cut_short",
                   weights_written(std::string(kModel) +
                                   "torch.save(model.state_dict(), 'model.pt')\n"
                                   "data = open('model.pt', 'rb').read()\n"
                                   "open('model.pt', 'wb').write(data[:len(data) // 2])\n"),
                   "model.pt, torch.save's archive, cut to its first half")
          .guards("a torch.save archive cut short is WEIGHTS_UNUSABLE (14): its end is missing")
          .args({"--device", "cpu", "--weights", "model.pt"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsCutShort")
          .expect_field_contains("/message", "central directory) is missing"),
      weights_case("weights_html_page",
                   weights_written("open('model.safetensors', 'w').write('<!DOCTYPE html>\\n"
                                   "<html><head><title>401 Unauthorized</title></head>"
                                   "<body>Access to this model is restricted.</body></html>\\n')\n"),
                   "model.safetensors: the HTML page a download behind a login saved under the "
                   "weights' name")
          .guards("an HTML page in place of the weights is WEIGHTS_UNUSABLE (14) saying so")
          .args({"--device", "cpu", "--weights", "model.safetensors"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsNotAWeightsFile")
          .expect_field_contains("/message", "it is an HTML page"),
      weights_case("weights_whole_module_refused",
                   weights_written("import sys, torch\nsys.path.insert(0, '.')\n"
                                   "open('mypkg.py', 'w').write('import torch\\nclass Net(torch.nn.Module):\\n"
                                   "    def __init__(self):\\n        super().__init__()\\n"
                                   "        self.fc = torch.nn.Linear(4, 2)\\n')\n"
                                   "import mypkg\ntorch.save(mypkg.Net(), 'net.pt')\n"),
                   "net.pt: torch.save of a whole module whose class (mypkg.Net) is the "
                   "application's own")
          .guards("weights that torch.load's weights_only refuses are WEIGHTS_UNUSABLE (14) "
                  "naming the globals they need and the safe ways out")
          .args({"--device", "cpu", "--weights", "net.pt"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsOnlyRefused")
          .expect_field_contains("/message", "mypkg.Net")
          .expect_field_contains("/message", "state_dict")
          .expect_field_contains("/message", "add_safe_globals"),
      weights_case("weights_pickle_that_runs_code_never_runs",
                   weights_written("import torch\n"
                                   "class Payload:\n"
                                   "    def __reduce__(self):\n"
                                   "        import os\n"
                                   "        return (os.system, ('touch ran-code',))\n"
                                   "torch.save({'weight': torch.ones(2), 'extra': Payload()}, "
                                   "'model.pt')\n"),
                   "model.pt: a checkpoint whose pickle calls os.system when unpickled")
          .guards("the check never unpickles what weights_only refuses, whatever the file holds: "
                  "nothing of the file runs")
          .args({"--device", "cpu", "--weights", "model.pt"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsOnlyRefused")
          .expect_field_contains("/message", "posix.system")
          .expect_file(kdh::FileExpect::Kind::Absent, "ran-code"),
      weights_case("weights_numpy_file",
                   weights_written("import numpy\nnumpy.save('model.npy', numpy.ones((4, 3)))\n",
                                   {kNumpy}),
                   "model.npy: a NumPy array file (numpy.save)")
          .guards("weights of a format the torch present cannot read are WEIGHTS_UNUSABLE (14) "
                  "naming the format")
          .needs(Requirement::ApplicationDistributions)
          .args({"--device", "cpu", "--weights", "model.npy"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsFormatUnsupported")
          .expect_field_contains("/message", "a NumPy array file"),
      weights_case("weights_safetensors_header_damaged",
                   weights_written(std::string(kModel) +
                                   "from safetensors.torch import save_file\n"
                                   "save_file(model.state_dict(), 'model.safetensors')\n"
                                   "data = bytearray(open('model.safetensors', 'rb').read())\n"
                                   "data[12:16] = b'\\xff\\xfe\\x00\\x01'\n"
                                   "open('model.safetensors', 'wb').write(bytes(data))\n",
                                   {kSafetensors, kNumpy}),
                   "model.safetensors with four bytes of its header overwritten")
          .guards("a damaged weights file is WEIGHTS_UNUSABLE (14) saying what does not hold")
          .needs(Requirement::ApplicationDistributions)
          .args({"--device", "cpu", "--weights", "model.safetensors"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsArchiveDamaged")
          .expect_field_contains("/message", "is damaged: header"),
      weights_case("weights_not_readable_by_the_user",
                   [](const std::string& tmp) -> std::string {
                     if (std::string why = kdh::user_folder(kdh::kNobody, "")(tmp); !why.empty()) {
                       return why;
                     }
                     if (std::string why = run_python(
                             tmp, std::string(kModel) + "torch.save(model.state_dict(), 'model.pt')\n");
                         !why.empty()) {
                       return why;
                     }
                     return chmod((tmp + "/model.pt").c_str(), 0600) == 0 ? ""
                                                                         : "cannot close model.pt";
                   },
                   "model.pt of mode 0600, owned by root, read by the user nobody")
          .guards("a weights file the user running the check may not read is WEIGHTS_UNUSABLE "
                  "(14) naming its mode and owner")
          .needs(Requirement::AnotherUser)
          .wrap(kdh::as_user(kdh::kNobody), "runs as nobody (setpriv --reuid=65534)")
          .args({"--device", "cpu", "--weights", "{tmp}/model.pt"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsNotReadable")
          .expect_field_contains("/message", "its mode is 0600, and it belongs to another user"),
  };
}

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
          // Room for import torch on a loaded machine (CI runs two cases at once): the limit
          // must fall in the application stage, after the computation.
          .args({"--device", "cpu", "--timeout", "20", "--import", "kd_hang"})
          .outcome("TIMEOUT", "application")
          .expect_field_contains("/message", "importing kd_hang")
          .expect_field_contains("/error/message", "while importing kd_hang")
          .expect_field("/application/extensions/0/imported", false)
          .expect_field("/execution/loss", 196.0)
          .within(35.0),
  };
}

// ---- the application's precisions and memory ----

constexpr unsigned long long kGiB = 1ULL << 30;

// The application environment's sitecustomize (PYTHONPATH), imported before anything else: a
// product wrong in bfloat16 only, as a broken kernel of one precision would give it.
const char* const kWrongInBfloat16 =
    "import torch\n"
    "_product = torch.Tensor.__matmul__\n"
    "def _wrong(a, b):\n"
    "    p = _product(a, b)\n"
    "    return p + 1 if p.dtype == torch.bfloat16 else p\n"
    "torch.Tensor.__matmul__ = _wrong\n";

// Debian's python3-torch, imported by Debian's own interpreter (the requirement's), whatever
// torch the check was built with.
Case distribution_torch_case(const std::string& id, Requirement requirement,
                             kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .needs(requirement)
      .env("KERNODECK_TORCH_PYTHON", "/usr/bin/python3")
      .expect_field("/tool/probe", "python");
}

std::vector<Case> precision_and_memory_cases() {
  return {
      Case("precisions_verified")
          .guards("each precision asked with --dtype is computed on the CPU and verified, listed "
                  "in application.precisions in the order asked, and the interpreter's memory is "
                  "measured at the end of each stage")
          .needs(Requirement::PythonProbe)
          .needs(Requirement::TorchPrecisionsOnCpu)
          .args({"--device", "cpu", "--dtype", "float16", "--dtype", "bfloat16", "--dtype",
                 "float8_e4m3fn", "--dtype", "float8_e5m2", "--dtype", "float64", "--dtype",
                 "float16"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/requested/dtypes", nlohmann::json::array({"float16", "bfloat16", "float8_e4m3fn",
                                                          "float8_e5m2", "float64"}))
          .expect_field("/application/precisions/0/dtype", "float16")
          .expect_field("/application/precisions/0/device", "cpu")
          .expect_field("/application/precisions/0/verified", true)
          .expect_field("/application/precisions/2/dtype", "float8_e4m3fn")
          .expect_field("/application/precisions/2/verified", true)
          .expect_field("/application/precisions/4/dtype", "float64")
          .expect_field("/application/precisions/4/verified", true)
          .expect_null("/application/precisions/5")
          .expect_null("/application/memory")
          .expect_not_null("/memory_by_stage/import/rss_bytes")
          .expect_not_null("/memory_by_stage/compute/rss_bytes")
          .expect_not_null("/memory_by_stage/application/rss_bytes")
          .expect_null("/memory_by_stage/application/allocated_bytes"),
      Case("precision_wrong_numbers")
          .guards("a precision whose product is wrong is CHECK_FAILED (8) at the application "
                  "stage naming the dtype, the device and the numbers: the check verifies each "
                  "precision's numbers, it never trusts that they ran")
          .needs(Requirement::PythonProbe)
          .directory("site")
          .file("site/sitecustomize.py", kWrongInBfloat16)
          .env("PYTHONPATH", "{tmp}/site")
          .args({"--device", "cpu", "--dtype", "float64", "--dtype", "bfloat16"})
          .outcome("CHECK_FAILED", "application")
          .expect_field("/error/type", "CheckMismatch")
          .expect_field("/error/message", "in bfloat16 on cpu: product [[3,3],[7,5]] differs from "
                                          "the expected [[2,2],[6,4]]")
          .expect_field("/application/precisions/0/verified", true)
          .expect_field("/application/precisions/1/dtype", "bfloat16")
          .expect_field("/application/precisions/1/verified", false),
      Case("precisions_verified_by_the_compiled_probe")
          .guards("the compiled probe, which has the whole of libtorch, computes in the precisions "
                  "asked itself, in the worker's process, and measures that process's memory at "
                  "each stage's end")
          .needs(Requirement::CompiledProbe)
          .args({"--device", "cpu", "--dtype", "bfloat16", "--dtype", "float64"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/tool/probe", "libtorch")
          .expect_field("/application/extensions", nlohmann::json::array())
          .expect_field("/application/precisions/0/dtype", "bfloat16")
          .expect_field("/application/precisions/0/verified", true)
          .expect_field("/application/precisions/1/dtype", "float64")
          .expect_field("/application/precisions/1/verified", true)
          .expect_null("/application/memory")
          .expect_not_null("/memory_by_stage/import/rss_bytes")
          .expect_not_null("/memory_by_stage/compute/rss_bytes")
          .expect_not_null("/memory_by_stage/application/rss_bytes"),
      distribution_torch_case("precision_float16_without_a_cpu_kernel",
                              Requirement::DistributionTorchOfOlderPrecisions)
          .guards("a precision asked that the CPU of the torch present has no kernel for is "
                  "RUNTIME_ERROR (9) at the application stage, in torch's words, with the way "
                  "out: float32, or a torch that has the kernel")
          .args({"--device", "cpu", "--dtype", "float16"})
          .outcome("RUNTIME_ERROR", "application")
          .expect_field("/error/type", "PrecisionKernelMissing")
          .expect_field("/execution/loss", 196.0)
          .expect_field("/application/precisions/0/dtype", "float16")
          .expect_field("/application/precisions/0/verified", false)
          .expect_field_contains("/message", "torch 1.13")
          .expect_field_contains("/message", "cannot compute in float16 on the CPU")
          .expect_field_contains("/message", "not implemented for 'Half'")
          .expect_field_contains("/message", "model.float()"),
      distribution_torch_case("precision_float8_not_in_this_torch",
                              Requirement::DistributionTorchOfOlderPrecisions)
          .guards("a float8 precision asked of a torch older than the float8 dtypes is "
                  "RUNTIME_ERROR (9) naming the release that brought them")
          .args({"--device", "cpu", "--dtype", "float8_e4m3fn"})
          .outcome("RUNTIME_ERROR", "application")
          .expect_field("/error/type", "PrecisionNotInTorch")
          .expect_field("/application/precisions/0/verified", false)
          .expect_field_contains("/message", "has no such dtype")
          .expect_field_contains("/message", "came with torch 2.1"),
      distribution_torch_case("weights_float16_on_a_cpu_without_the_kernel",
                              Requirement::DistributionTorchOfOlderPrecisions)
          .prepare(
              [](const std::string& tmp) {
                return kdh::run_shell(
                    tmp, "/usr/bin/python3 -B -c 'import torch\n"
                         "model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), "
                         "torch.nn.Linear(3, 2)).half()\n"
                         "torch.save(model.state_dict(), \"model.pt\")'");
              },
              "model.pt: a float16 model's state_dict, saved by Debian's torch")
          .guards("weights in float16, opened on a CPU without float16 kernels, are verified as a "
                  "file and then RUNTIME_ERROR (9): the check computes in the weights' own dtype "
                  "without being asked to")
          .args({"--device", "cpu", "--weights", "model.pt"})
          .outcome("RUNTIME_ERROR", "application")
          .expect_field("/error/type", "PrecisionKernelMissing")
          .expect_field("/application/weights/0/dtypes/0", "float16")
          .expect_field("/application/weights/0/verified", true)
          .expect_field("/application/memory/fits", true)
          .expect_field("/application/precisions/0/dtype", "float16")
          .expect_field("/application/precisions/0/verified", false)
          .expect_field_contains("/message", "not implemented for 'Half'"),
      distribution_torch_case("weights_float8_not_in_this_torch",
                              Requirement::DistributionTorchOfOlderPrecisions)
          .prepare(
              [](const std::string& tmp) {
                const std::string header =
                    R"({"w":{"dtype":"F8_E4M3","shape":[2,2],"data_offsets":[0,4]}})";
                std::string length(8, '\0');
                length[0] = static_cast<char>(header.size());
                return kdh::write_text_file(tmp + "/model.safetensors",
                                            length + header + std::string("\x38\x40\x44\x48"));
              },
              "model.safetensors: a float8_e4m3fn tensor of 2 by 2, as a quantized model saves it")
          .guards("weights in a dtype the torch present does not have (float8 before torch 2.1) "
                  "are WEIGHTS_UNUSABLE (14) naming the dtype and the torch's release")
          .args({"--device", "cpu", "--weights", "model.safetensors"})
          .outcome("WEIGHTS_UNUSABLE", "application")
          .expect_field("/error/type", "WeightsFormatUnsupported")
          .expect_field("/application/memory/weights_bytes", 4)
          .expect_field("/application/weights/0/verified", false)
          .expect_field_contains("/message", "with the dtypes F8_E4M3")
          .expect_field_contains("/message", "torch 1.13")
          .expect_field_contains("/message", "a newer release"),
      Case("weights_past_the_memory_cgroup")
          .guards("weights larger than what the container's memory limit leaves are "
                  "OUT_OF_MEMORY (9) before anything is loaded, naming both sizes, the cgroup's "
                  "limit and how much to raise it by; the check is never killed to find out")
          .needs(Requirement::PythonProbe)
          .needs(Requirement::MemoryCgroup)
          .prepare(
              [](const std::string& tmp) {
                std::string why = kdh::sparse_weights("model.safetensors", 8 * kGiB)(tmp);
                return why.empty() ? kdh::memory_cgroup(1536 * kGiB / 1024)(tmp) : why;
              },
              "model.safetensors: one float32 tensor of 8 GiB, its data a hole (sparse); the "
              "check in a cgroup of its own with 1.5 GiB of memory")
          .wrap({"/bin/sh", "{tmp}/cgroup.sh"}, "")
          .args({"--device", "cpu", "--weights", "model.safetensors"})
          .outcome("OUT_OF_MEMORY", "application")
          .expect_field("/error/type", "WeightsExceedMemory")
          .expect_field("/application/memory/weights_bytes", 8 * kGiB)
          .expect_field("/application/memory/limited_by", "cgroup")
          .expect_field("/application/memory/fits", false)
          .expect_null("/application/weights/0/verified")
          .expect_field_contains("/message", "need 8 GiB")
          .expect_field_contains("/message", "the container's memory limit")
          .expect_field_contains("/message", "resources.limits.memory")
          .expect_field_contains("/message", "mmap=True")
          .expect_no_new_files()
          .also(kdh::cgroup_removed),
      Case("import_fills_the_memory_cgroup")
          .guards("a module of the application whose import fills the container's memory is "
                  "killed by the out-of-memory killer: OUT_OF_MEMORY (9) at the application stage "
                  "naming the cgroup's limit, never a guess")
          .needs(Requirement::PythonProbe)
          .needs(Requirement::MemoryCgroup)
          .directory("site")
          .file("site/kd_fill.py", "# An import that fills 2 GiB, as a model loaded at import does\n"
                                   "data = b'\\x01' * (2 << 30)\n")
          .env("PYTHONPATH", "{tmp}/site")
          .prepare(kdh::memory_cgroup(1536 * kGiB / 1024),
                   "in a cgroup of its own with 1.5 GiB of memory; kd_fill on PYTHONPATH")
          .wrap({"/bin/sh", "{tmp}/cgroup.sh"}, "")
          .args({"--device", "cpu", "--import", "kd_fill"})
          .outcome("OUT_OF_MEMORY", "application")
          .expect_field("/error/type", "KilledForMemory")
          .expect_field_contains("/error/message", "SIGKILL while importing kd_fill")
          .expect_field_contains("/message", "killed by the out-of-memory killer during the "
                                             "application stage")
          .expect_field_contains("/message", "1.5 GiB")
          .expect_field_contains("/message", "resources.limits.memory")
          .also(kdh::cgroup_removed),
      Case("weights_past_the_address_space_limit")
          .guards("weights larger than the address-space limit leaves are OUT_OF_MEMORY (9) "
                  "naming ulimit -v")
          .needs(Requirement::PythonProbe)
          .needs(Requirement::StartsUnderAddressSpaceLimit)
          .prepare(kdh::sparse_weights("model.safetensors", 1024 * kGiB),
                   "model.safetensors: one float32 tensor of 1 TiB, its data a hole (sparse)")
          .limit(RLIMIT_AS, 6 * kGiB)
          .args({"--device", "cpu", "--weights", "model.safetensors"})
          .outcome("OUT_OF_MEMORY", "application")
          .expect_field("/error/type", "WeightsExceedMemory")
          .expect_field("/application/memory/limited_by", "address_space")
          .expect_field("/application/memory/fits", false)
          .expect_field_contains("/message", "need 1024 GiB")
          .expect_field_contains("/message", "ulimit -v"),
  };
}

}  // namespace

// The modules of the application, its weights, then its precisions and memory: one layer, one
// table.
std::vector<Case> all_application_cases() {
  std::vector<Case> cases = application_cases();
  for (Case& c : weights_cases()) cases.push_back(std::move(c));
  for (Case& c : precision_and_memory_cases()) cases.push_back(std::move(c));
  return cases;
}

KERNODECK_LAYER(application, all_application_cases());
