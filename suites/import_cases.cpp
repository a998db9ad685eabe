// Layer "import": finding and loading libtorch. A missing libtorch and a
// libtorch that fails to load are told apart from what the loader says.
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>
#include <stdlib.h>

#include <fstream>
#include <set>
#include <sstream>

#include "files.hpp"
#include "layer_test.hpp"
#include "process.hpp"
#include "runner.hpp"

namespace {

using kdh::Case;
using kdh::Need;

// Puts, under {tmp}/lib, a file under the name of every libc10 the check's
// probe module needs; LD_LIBRARY_PATH={tmp}/lib then makes the real libtorch
// load it instead of its own. `content` is what the file holds.
std::string shadow_libc10(const std::string& tmp, const std::string& content) {
  std::string dir = tmp + "/lib";
  mkdir(dir.c_str(), 0755);
  int shadowed = 0;
  for (const auto& lib : kdh::runner().probe_needs) {
    if (lib.rfind("libc10", 0) != 0 || lib.rfind("libc10_", 0) == 0) continue;
    std::ofstream out(dir + "/" + lib, std::ios::binary);
    out << content;
    if (!out) return "cannot write " + lib;
    ++shadowed;
  }
  return shadowed > 0 ? "" : "the probe module needs no libc10 to shadow";
}

// A real shared library without any of c10's symbols.
std::string symbol_less_libc10(const std::string& tmp) {
  auto standin = kdh::read_file(kdh::runner().fixtures_dir + "/libkd_c10_standin.so");
  return standin ? shadow_libc10(tmp, *standin) : "cannot read the libc10 stand-in";
}

// A truncated download: not even an ELF header.
std::string truncated_libc10(const std::string& tmp) {
  return shadow_libc10(tmp, "this is not an ELF object, it is a truncated download\n");
}

bool is_torch_library(const std::string& name) {
  return name.rfind("libtorch", 0) == 0 || name.rfind("libc10", 0) == 0;
}

// Hides every libtorch and libc10 library from the loader, for real: each
// folder that holds them (as the loader resolves them for the probe module,
// by ldd) is covered, in a private mount namespace, by a folder of links to
// everything else it holds. Writes {tmp}/hide.sh, which does the mounts and
// then runs its arguments.
std::string hide_libtorch(const std::string& tmp) {
  kd::SpawnSpec ldd;
  ldd.argv = {"/usr/bin/ldd", *kdh::runner().probe_module};
  kd::RunResult listed = kd::run_supervised(ldd, kd::deadline_in(20), {});
  std::set<std::string> folders;
  std::istringstream lines(listed.out.data);
  for (std::string line; std::getline(lines, line);) {
    size_t arrow = line.find(" => /");
    std::string name = line.substr(line.find_first_not_of(" \t"));
    if (arrow == std::string::npos || !is_torch_library(name)) continue;
    std::string path = line.substr(arrow + 4, line.find(" (", arrow) - arrow - 4);
    char real[PATH_MAX];
    if (realpath(path.substr(0, path.rfind('/')).c_str(), real) != nullptr) folders.insert(real);
  }
  if (folders.empty()) return "ldd finds no libtorch for the probe module: " + listed.out.data;
  std::ofstream script(tmp + "/hide.sh");
  script << "set -e\n";
  int n = 0;
  for (const auto& folder : folders) {
    std::string keep = tmp + "/real" + std::to_string(n);
    std::string cover = tmp + "/cover" + std::to_string(n++);
    mkdir(keep.c_str(), 0755);
    mkdir(cover.c_str(), 0755);
    for (const auto& name : kdh::folder_entries(folder)) {
      if (is_torch_library(name)) continue;
      if (symlink((keep + "/" + name).c_str(), (cover + "/" + name).c_str()) != 0) {
        return "cannot link " + name;
      }
    }
    script << "mount --bind '" << folder << "' '" << keep << "'\n"
           << "mount --bind '" << cover << "' '" << folder << "'\n";
  }
  script << "exec \"$@\"\n";
  return script ? "" : "cannot write hide.sh";
}

std::vector<Case> import_cases() {
  return {
      Case("torch_missing", "import")
          .guards("libtorch that cannot be found is TORCH_MISSING (3), told from the loader's words")
          .with_probe("{fixtures}/libkd_absent_torch_probe.so")
          .args({"--device", "cpu"})
          .outcome("TORCH_MISSING", "import")
          .expect_field("/error/type", "LoaderError")
          .expect_null("/pytorch/version")
          .expect_null("/execution/timings_ms/load")
          .expect_field_contains("/error/message",
                                 "libtorch_kernodeck_absent.so: cannot open shared object file")
          .expect_field_lacks("/error/message", "/"),
      Case("torch_unreachable", "import")
          .guards("libtorch that cannot be found is TORCH_MISSING (3): the real probe, with "
                  "libtorch's files hidden from the loader")
          .needs_(Need::ProbeModule)
          .needs_(Need::UserNamespaces)
          .prepare(hide_libtorch, "libtorch's folders covered, in a mount namespace, by links "
                                  "to everything but libtorch and libc10")
          .wrap({"/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh",
                 "{tmp}/hide.sh"},
                "")
          .args({"--device", "cpu"})
          .outcome("TORCH_MISSING", "import")
          .expect_field("/tool/probe", "libtorch")
          .expect_field_contains("/error/message", "cannot open shared object file")
          .expect_field_lacks("/error/message", "/"),
      Case("torch_unloadable_undefined_symbol", "import")
          .guards("libtorch found but failing to load (bad symbol) is TORCH_IMPORT_FAILED (4)")
          .needs_(Need::ProbeModule)
          .prepare(symbol_less_libc10, "a libc10 without its symbols first on LD_LIBRARY_PATH")
          .env("LD_LIBRARY_PATH", "{tmp}/lib")
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "LoaderError")
          .expect_field_contains("/error/message", "undefined symbol")
          .expect_field_lacks("/error/message", "/"),
      Case("torch_unloadable_not_elf", "import")
          .guards("a corrupt libtorch library file is TORCH_IMPORT_FAILED (4), never a pass")
          .needs_(Need::ProbeModule)
          .prepare(truncated_libc10, "a truncated libc10 file first on LD_LIBRARY_PATH")
          .env("LD_LIBRARY_PATH", "{tmp}/lib")
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field_contains("/error/message", "libc10")
          .expect_field_lacks("/error/message", "/"),
      Case("probe_module_missing", "import")
          .guards("a check without its probe module is INTERNAL_ERROR (1), not a libtorch problem")
          .with_probe("{tmp}/no-such-probe.so")
          .args({"--device", "cpu"})
          .outcome("INTERNAL_ERROR", "import"),
      Case("probe_module_not_a_probe", "import")
          .guards("a module without the probe interface is INTERNAL_ERROR (1)")
          .with_probe("{fixtures}/libkd_c10_standin.so")
          .args({"--device", "cpu"})
          .outcome("INTERNAL_ERROR", "import"),
  };
}

}  // namespace

KERNODECK_LAYER(import, import_cases());
