// Layer "compile": the contract's computation a second time through torch.compile (--compile),
// after the eager one, with the torch the check certifies and the toolchain of the machine as it
// is, or as a runtime image leaves it: no C++ compiler on PATH, no Python headers. Its caches
// and temporary files go to the check's private folder, never elsewhere.
#include <string>
#include <vector>

#include "layer_test.hpp"
#include "manipulations.hpp"
#include "requirements.hpp"
#include "run_case.hpp"
#include "runner.hpp"
#include "util/files.hpp"

namespace {

using kdh::Case;
using kdh::Requirement;

// A first compile on a small machine takes tens of seconds (docs: README, "--compile").
Case compile_case(const std::string& id, kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .needs(Requirement::PythonProbe)
      .directory("tmpdir")
      .env("TMPDIR", "{tmp}/tmpdir")
      .expect_field("/tool/probe", "python")
      .expect_field("/requested/compile", true)
      .also([](const kdh::CaseRun& run, std::vector<std::string>& problems) {
        // Inductor's and triton's caches and temporary files stayed in the check's private
        // folder, which it removed.
        for (const std::string& left : kd::folder_entries(run.tmp + "/tmpdir")) {
          problems.push_back("left in TMPDIR: " + left);
        }
      });
}

std::vector<Case> compile_cases() {
  return {
      compile_case("compile_passes")
          .guards("--compile: the product, loss and autograd gradient through torch.compile and "
                  "its default backend are verified as the eager ones, and nothing is left behind")
          .needs(Requirement::TorchCompile)
          .needs(Requirement::CxxCompiler)
          .args({"--device", "cpu", "--compile", "--timeout", "120"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/execution/compile/backend", "inductor")
          .expect_field("/execution/compile/verified", true)
          .expect_not_null("/execution/compile/seconds"),
      compile_case("compile_without_a_cxx_compiler")
          .guards("torch.compile without a C++ compiler on PATH, as in a runtime image, is "
                  "COMPILE_FAILED (16) at the compile stage naming what to install")
          .needs(Requirement::TorchCompile)
          // The interpreter named, as an application's start script names it: PATH is empty.
          .env("KERNODECK_TORCH_PYTHON", "{python}")
          .env("PATH", "{tmp}/empty-bin")
          .directory("empty-bin")
          .args({"--device", "cpu", "--compile", "--timeout", "120"})
          .outcome("COMPILE_FAILED", "compile")
          .expect_field("/error/type", "CompileNoCxxCompiler")
          .expect_field("/execution/compile/verified", false)
          .expect_field_contains("/message", "apt-get install g++"),
      compile_case("compile_without_the_python_headers")
          .guards("torch.compile without the interpreter's Python headers is COMPILE_FAILED (16) "
                  "naming them")
          .needs(Requirement::TorchCompile)
          .needs(Requirement::UserNamespaces)
          .needs(Requirement::CxxCompiler)
          .wrap(kdh::in_mount_namespace(
                    "include=$(\"${KERNODECK_TORCH_PYTHON:-python3}\" -c 'import sysconfig; "
                    "print(sysconfig.get_paths()[\"include\"])') && "
                    "{ [ ! -e \"$include\" ] || mount -t tmpfs kd-headers \"$include\"; }"),
                "in a private mount namespace, the interpreter's include folder (Python.h) "
                "covered by an empty tmpfs (an image without it left as it is)")
          .args({"--device", "cpu", "--compile", "--timeout", "120"})
          .outcome("COMPILE_FAILED", "compile")
          .expect_field("/error/type", "CompilePythonHeadersMissing")
          .expect_field_contains("/message", "fatal error: Python.h: No such file")
          .expect_field_contains("/message", "python3-dev"),
      compile_case("compile_not_in_this_torch")
          .guards("--compile with a torch older than torch.compile is COMPILE_FAILED (16) naming "
                  "that torch's release, the one torch.compile came with and the next action, "
                  "never the toolchain")
          .needs(Requirement::DistributionTorchWithoutCompile)
          // Debian 12's python3-torch 1.13, imported by Debian's own interpreter (the
          // requirement's), whatever torch the check was built with.
          .env("KERNODECK_TORCH_PYTHON", "/usr/bin/python3")
          .args({"--device", "cpu", "--compile", "--timeout", "120"})
          .outcome("COMPILE_FAILED", "compile")
          .expect_field("/error/type", "CompileNotInTorch")
          .expect_field("/execution/compile/verified", false)
          .expect_field_contains("/message", "torch 1.13")
          .expect_field_contains("/message", "torch.compile came with torch 2.0")
          .expect_field_contains("/message", "run the check without --compile"),
  };
}

}  // namespace

KERNODECK_LAYER(compile, compile_cases());
