// Layer "interpreter": the application's own Python importing its torch (the python probe).
// Each case makes a real virtual environment (python3 -m venv) from the site-packages folder
// of the torch wheel the check's libtorch comes from, every entry linked, with one thing
// broken as users break it, and names its python3 with KERNODECK_TORCH_PYTHON: the check's
// worker is that interpreter importing torch.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "layer_test.hpp"
#include "manipulations.hpp"
#include "requirements.hpp"
#include "runner.hpp"
#include "util/files.hpp"

namespace {

using kdh::Case;
using kdh::Requirement;

// What a case changes in its environment, once every entry of the wheel's site-packages is
// linked into it: `site` is the environment's site-packages, `wheel` the wheel's. "" or why not.
using EnvChange = std::function<std::string(const std::string& site, const std::string& wheel)>;

bool link_entry(const std::string& from, const std::string& to) {
  return symlink(from.c_str(), to.c_str()) == 0;
}

// {tmp}/venv: a virtual environment of the python3 on PATH, its site-packages the wheel's,
// entry by entry as links, less `left_out`, then changed by `change`.
std::function<std::string(const std::string&)> python_env(std::set<std::string> left_out,
                                                          EnvChange change = nullptr) {
  return [left_out, change](const std::string& tmp) -> std::string {
    const std::string wheel = kdh::torch_wheel_site_packages(kdh::runner());
    if (wheel.empty()) return "no torch wheel's site-packages to make an environment from";
    if (std::string why = kdh::make_virtual_environment(tmp + "/venv"); !why.empty()) return why;
    const std::string site = kdh::virtual_environment_site(tmp + "/venv");
    if (site.empty()) return "the virtual environment has no site-packages folder";
    const std::vector<std::string> left(left_out.begin(), left_out.end());
    if (std::string why = kdh::link_installed(wheel, site, left); !why.empty()) return why;
    return change ? change(site, wheel) : "";
  };
}

// The environment's torch as a folder of its own whose entries link to the wheel's, so that
// one of them can be changed; "" or why not.
std::string torch_as_folder(const std::string& site, const std::string& wheel) {
  const std::string torch = site + "/torch";
  if (unlink(torch.c_str()) != 0 || mkdir(torch.c_str(), 0755) != 0) return "cannot make " + torch;
  for (const std::string& name : kd::folder_entries(wheel + "/torch")) {
    if (name == "__pycache__") continue;
    if (!link_entry(wheel + "/torch/" + name, torch + "/" + name)) return "cannot link torch/" + name;
  }
  return "";
}

// The environment's torch with `file` (relative to torch/) replaced by its first half.
EnvChange torch_file_cut(std::string file) {
  return [file](const std::string& site, const std::string& wheel) -> std::string {
    if (std::string why = torch_as_folder(site, wheel); !why.empty()) return why;
    auto text = kd::read_file(wheel + "/torch/" + file);
    if (!text) return "cannot read torch/" + file;
    const std::string target = site + "/torch/" + file;
    if (unlink(target.c_str()) != 0) return "cannot replace torch/" + file;
    return kdh::write_text_file(target, text->substr(0, text->size() / 2));
  };
}

// The environment's torch without `file` (relative to torch/).
EnvChange torch_file_removed(std::string file) {
  return [file](const std::string& site, const std::string& wheel) -> std::string {
    if (std::string why = torch_as_folder(site, wheel); !why.empty()) return why;
    const std::string target = site + "/torch/" + file;
    return unlink(target.c_str()) == 0 ? "" : "cannot remove torch/" + file;
  };
}

// The environment's torch replaced by the same release's wheel for another CPython (pip
// download --python-version, unpacked as pip installs it: kdh::other_python_torch), as torch
// installed with another Python's pip, or a site-packages copied from one, leaves it: each of
// that wheel's entries (torch, torchgen, functorch, its dist-info) linked in place of this one's.
EnvChange torch_of_other_python() {
  return [](const std::string& site, const std::string&) -> std::string {
    const std::string other = kdh::other_python_torch().site;
    if (other.empty()) return "no torch wheel's files for another CPython";
    for (const std::string& name : kd::folder_entries(other)) {
      const std::string target = site + "/" + name;
      if (unlink(target.c_str()) != 0 && errno != ENOENT) return "cannot replace " + name;
      if (!link_entry(other + "/" + name, target)) return "cannot link " + name;
    }
    return "";
  };
}

// The environment's typing_extensions replaced by an old one: a module without the names torch
// imports from it, as an older pin leaves it.
EnvChange old_typing_extensions() {
  return [](const std::string& site, const std::string&) -> std::string {
    // The link to the wheel's goes first: the wheel's own file is never written.
    const std::string module = site + "/typing_extensions.py";
    if (unlink(module.c_str()) != 0) return "cannot replace typing_extensions.py";
    return kdh::write_text_file(module, "# typing_extensions 3.7.4, as pinned\n");
  };
}

// The environment's libc10 cut just past its headers: the file of an interrupted download.
EnvChange libc10_cut() {
  return [](const std::string& site, const std::string& wheel) -> std::string {
    if (std::string why = torch_as_folder(site, wheel); !why.empty()) return why;
    const std::string lib = site + "/torch/lib";
    if (unlink(lib.c_str()) != 0 || mkdir(lib.c_str(), 0755) != 0) return "cannot make torch/lib";
    for (const std::string& name : kd::folder_entries(wheel + "/torch/lib")) {
      const std::string from = wheel + "/torch/lib/" + name;
      if (name != "libc10.so") {
        if (!link_entry(from, lib + "/" + name)) return "cannot link torch/lib/" + name;
        continue;
      }
      auto bytes = kd::read_file(from, 1ULL << 32);
      if (!bytes || bytes->size() < 8192) return "cannot read torch/lib/libc10.so";
      if (std::string why = kdh::write_text_file(lib + "/" + name, bytes->substr(0, 4096));
          !why.empty()) {
        return why;
      }
    }
    return "";
  };
}

const std::set<std::string> kNothingLeftOut;

// The environment without numpy, which torch imports when it is there and warns about when not:
// the site-packages the wheel's come from may hold it (an image with torchvision installed).
EnvChange without_numpy() {
  return [](const std::string& site, const std::string&) -> std::string {
    for (const std::string& name : kd::folder_entries(site)) {
      if (name != "numpy" && name != "numpy.libs" && name.rfind("numpy-", 0) != 0) continue;
      const std::string link = site + "/" + name;
      if (unlink(link.c_str()) != 0) return "cannot leave " + name + " out";
    }
    return "";
  };
}

// A case of the interpreter: its environment made by `prepare`, its python3 named to the check.
// Cases run from the privacy canaries' unusual working folder unless they name their own.
Case env_case(const std::string& id, std::function<std::string(const std::string&)> prepare,
              const std::string& what, kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .needs(Requirement::TorchWheelSite)
      .prepare(std::move(prepare), what)
      .env("KERNODECK_TORCH_PYTHON", "{tmp}/venv/bin/python3")
      .expect_field("/tool/probe", "python")
      .expect_report_lacks("{tmp}");
}

std::vector<Case> interpreter_cases() {
  return {
      env_case("python_env_passes_cpu", python_env(kNothingLeftOut, without_numpy()),
               "a virtual environment of the wheel's site-packages as pip installed them, "
               "without numpy")
          .guards("the interpreter's own import of torch, then the computation in that torch "
                  "with autograd, is CPU_CHECK_PASSED (0); numpy missing warns and never fails")
          .with_privacy_canaries()
          .args({"--device", "cpu"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/execution/gradient_source", "autograd")
          .expect_field("/execution/loss", 196.0)
          .expect_not_null("/runtime/python_version")
          .expect_field("/runtime/python_environment", "virtualenv")
          .expect_field("/runtime/torch_source", "torch_python_variable")
          .expect_field_contains("/pytorch/import_warnings/0", "NumPy"),
      env_case("python_env_default_device_without_gpu", python_env(kNothingLeftOut),
               "a virtual environment of the wheel's site-packages as pip installed them")
          .guards("the default device on a machine without a GPU, through the interpreter's "
                  "import: GPU_UNAVAILABLE (6), the cause from the CUDA runtime torch loaded, "
                  "asked for its error number")
          .with_privacy_canaries()
          .needs(Requirement::CudaBackend)
          .needs(Requirement::NoGpu)
          .outcome("GPU_UNAVAILABLE", "device")
          .expect_field("/pytorch/backend", "cuda")
          .expect_field("/error/type", "NoDriver")
          .expect_field("/error/evidence/runtime/api", "cuda")
          .expect_field("/error/evidence/runtime/error", 35),
      env_case("python_dependency_missing", python_env({"typing_extensions.py"}),
               "typing_extensions left out of the environment (torch installed with --no-deps)")
          .guards("a Python dependency of torch missing is TORCH_IMPORT_FAILED (4), never a "
                  "pass: the cause names the module and how to install it")
          .with_privacy_canaries()
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "PythonDependencyMissing")
          .expect_field("/error/message",
                        "ModuleNotFoundError: No module named 'typing_extensions'")
          .expect_field_contains("/message", "needs the Python module typing_extensions")
          .expect_field_contains("/message", "python3 -m pip install typing_extensions"),
      env_case("python_dependency_too_old", python_env(kNothingLeftOut, old_typing_extensions()),
               "typing_extensions replaced by an old one without the names torch imports")
          .guards("a Python dependency of torch too old is TORCH_IMPORT_FAILED (4) naming it "
                  "and the upgrade")
          .with_privacy_canaries()
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "PythonDependencyTooOld")
          .expect_field_contains("/error/message", "cannot import name")
          .expect_field_contains("/message", "typing_extensions of this environment is too old")
          .expect_field_contains("/message", "--upgrade typing_extensions"),
      env_case("python_torch_for_other_python", python_env(kNothingLeftOut, torch_of_other_python()),
               "torch replaced by the same release's wheel for CPython " +
                   kdh::other_python_torch().python_version +
                   " (pip download --python-version), unpacked as pip installs it")
          .guards("torch built for another Python is TORCH_IMPORT_FAILED (4) naming both "
                  "versions")
          .needs(Requirement::OtherPythonTorch)
          .with_privacy_canaries()
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "TorchForOtherPython")
          .expect_field_contains("/message",
                                 "built for Python " + kdh::other_python_torch().python_version)
          .expect_field_contains("/message", "this interpreter's own pip"),
      env_case("python_torch_file_cut",
               python_env(kNothingLeftOut, torch_file_cut("_utils_internal.py")),
               "torch/_utils_internal.py cut to its first half, as an interrupted install leaves it")
          .guards("a torch file cut short is TORCH_IMPORT_FAILED (4) naming the module and a "
                  "reinstall")
          .with_privacy_canaries()
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "TorchFilesIncomplete")
          .expect_field_contains("/message", "torch._utils_internal")
          .expect_field_contains("/message", "--force-reinstall"),
      env_case("python_torch_file_missing",
               python_env(kNothingLeftOut, torch_file_removed("_utils_internal.py")),
               "torch/_utils_internal.py removed (its wheel's RECORD lists it)")
          .guards("a torch file its wheel lists gone is TORCH_IMPORT_FAILED (4) naming the module")
          .with_privacy_canaries()
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "TorchFilesIncomplete")
          .expect_field_contains("/message", "torch._utils_internal"),
      env_case("python_torch_shadowed_by_torch_py", python_env(kNothingLeftOut),
               "a torch.py script in the folder the check runs from")
          .guards("a torch.py in the working folder, which the import finds before the "
                  "installed torch, is TORCH_IMPORT_FAILED (4) naming it, never a pass")
          .directory("work")
          .file("work/torch.py", "import torch\nprint(torch.ones(2))\n")
          .in_folder("work")
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "TorchShadowed")
          .expect_field_contains("/message", "a torch.py module in the working folder"),
      env_case("python_env_damaged_libc10", python_env(kNothingLeftOut, libc10_cut()),
               "torch/lib/libc10.so cut to its first 4 KiB, as an interrupted download leaves it")
          .guards("a damaged library of torch met through the interpreter's import keeps the "
                  "loader's look for a damaged file: CorruptLibrary naming libc10")
          .with_privacy_canaries()
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "CorruptLibrary")
          .expect_field("/error/evidence/library/found", "damaged")
          .expect_field_contains("/message", "libc10"),
  };
}

}  // namespace

KERNODECK_LAYER(interpreter, interpreter_cases());
