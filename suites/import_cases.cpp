// Layer "import": finding and loading libtorch. A missing libtorch and a
// libtorch that fails to load are told apart from what the loader says.
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>
#include <stdlib.h>

#include <fstream>
#include <map>
#include <functional>
#include <set>
#include <sstream>

#include "util/files.hpp"
#include "layer_test.hpp"
#include "kd/supervisor.hpp"
#include "runner.hpp"

namespace {

using kdh::Case;
using kdh::Requirement;

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
  auto standin = kd::read_file(kdh::runner().fixtures_dir + "/libkd_c10_standin.so");
  return standin ? shadow_libc10(tmp, *standin) : "cannot read the libc10 stand-in";
}

// A truncated download: not even an ELF header.
std::string truncated_libc10(const std::string& tmp) {
  return shadow_libc10(tmp, "this is not an ELF object, it is a truncated download\n");
}

bool is_torch_library(const std::string& name) {
  return name.rfind("libtorch", 0) == 0 || name.rfind("libc10", 0) == 0;
}

using LibraryFilter = std::function<bool(const std::string& name)>;

// Folders where the loader resolves, for the probe module, a library that
// `hidden` selects: `ldd`'s answer, run through `wrapper` (empty: directly).
std::set<std::string> resolving_folders(const LibraryFilter& hidden,
                                        const std::vector<std::string>& wrapper,
                                        std::string& listing) {
  kd::SpawnSpec ldd;
  ldd.argv = wrapper;
  ldd.argv.push_back("/usr/bin/ldd");
  ldd.argv.push_back(*kdh::runner().probe_module);
  kd::RunResult listed = kd::run_supervised(ldd, kd::deadline_in(20), {});
  listing = listed.out.data;
  std::set<std::string> folders;
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    size_t arrow = line.find(" => /");
    size_t start = line.find_first_not_of(" \t");
    if (arrow == std::string::npos || start == std::string::npos) continue;
    if (!hidden(line.substr(start, line.find(' ', start) - start))) continue;
    std::string path = line.substr(arrow + 4, line.find(" (", arrow) - arrow - 4);
    char real[PATH_MAX];
    if (realpath(path.substr(0, path.rfind('/')).c_str(), real) != nullptr) folders.insert(real);
  }
  return folders;
}

// Hides the libraries `hidden` selects from the loader, for real: each folder
// where the loader finds one for the probe module is covered, in a private
// mount namespace, by a folder of links to everything else it holds. Hiding
// one copy can reveal another (a CUDA toolkit's beside the wheel's), so the
// covering is repeated until `ldd` inside the namespace finds none. Writes
// {tmp}/hide.sh, which does the mounts and then runs its arguments.
std::string hide_libraries(const std::string& tmp, const LibraryFilter& hidden) {
  const std::vector<std::string> inside = {"/usr/bin/unshare", "--user", "--map-root-user",
                                           "--mount", "/bin/sh", tmp + "/hide.sh"};
  std::map<std::string, int> covered;  // folder -> the number of its keep/cover pair
  std::string listing;
  std::set<std::string> found = resolving_folders(hidden, {}, listing);
  if (found.empty()) return "ldd finds none of the libraries to hide for the probe module: " + listing;
  for (int round = 0; !found.empty(); ++round) {
    if (round == 4) return "the libraries are still found after covering 4 times: " + listing;
    for (const auto& folder : found) {
      if (covered.count(folder) != 0) return "covering " + folder + " did not hide: " + listing;
      int n = static_cast<int>(covered.size());
      covered[folder] = n;
      std::string keep = tmp + "/real" + std::to_string(n);
      std::string cover = tmp + "/cover" + std::to_string(n);
      if (mkdir(keep.c_str(), 0755) != 0 || mkdir(cover.c_str(), 0755) != 0) {
        return "cannot make the folders to cover " + folder;
      }
      for (const auto& name : kd::folder_entries(folder)) {
        if (hidden(name)) continue;
        if (symlink((keep + "/" + name).c_str(), (cover + "/" + name).c_str()) != 0) {
          return "cannot link " + name;
        }
      }
    }
    std::ofstream script(tmp + "/hide.sh");
    script << "set -e\n";
    for (const auto& [folder, n] : covered) {
      script << "mount --bind '" << folder << "' '" << tmp << "/real" << n << "'\n"
             << "mount --bind '" << tmp << "/cover" << n << "' '" << folder << "'\n";
    }
    script << "exec \"$@\"\n";
    if (!script.flush()) return "cannot write hide.sh";
    script.close();
    found = resolving_folders(hidden, inside, listing);
  }
  return "";
}

std::string hide_libtorch(const std::string& tmp) { return hide_libraries(tmp, is_torch_library); }

// The CUDA runtime or cuBLAS of a CUDA libtorch, hidden the same way.
std::string hide_cuda_runtime(const std::string& tmp) {
  return hide_libraries(tmp, [](const std::string& name) { return name.rfind("libcudart.so", 0) == 0; });
}
std::string hide_cublas(const std::string& tmp) {
  return hide_libraries(tmp, [](const std::string& name) { return name.rfind("libcublas", 0) == 0; });
}

// A CUDA libtorch whose `library` is hidden: TORCH_IMPORT_FAILED whatever the
// device, the message naming the missing file and no folder.
Case cuda_dependency_hidden(const std::string& id, const std::string& what,
                            std::string (*hide)(const std::string&), const std::string& library,
                            std::vector<std::string> args,
                            kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .guards("a CUDA libtorch whose " + what +
              " cannot be found is TORCH_IMPORT_FAILED (4), naming the missing library by "
              "file name, whatever the device asked")
      .needs(Requirement::ProbeModule)
      .needs(Requirement::CudaBackend)
      .needs(Requirement::UserNamespaces)
      .prepare(hide, "every " + library + "* the loader could find for the probe covered, in "
                     "a mount namespace, by links to everything else")
      .wrap({"/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh",
             "{tmp}/hide.sh"},
            "")
      .args(std::move(args))
      .outcome("TORCH_IMPORT_FAILED", "import")
      .expect_field("/error/type", "LoaderError")
      .expect_field_contains("/error/message", library)
      .expect_field_contains("/error/message", "cannot open shared object file")
      .expect_field_lacks("/error/message", "/");
}

std::vector<Case> import_cases() {
  return {
      Case("torch_missing")
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
      Case("torch_unreachable")
          .guards("libtorch that cannot be found is TORCH_MISSING (3): the real probe, with "
                  "libtorch's files hidden from the loader")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::UserNamespaces)
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
      Case("torch_unloadable_undefined_symbol")
          .guards("libtorch found but failing to load (bad symbol) is TORCH_IMPORT_FAILED (4)")
          .needs(Requirement::ProbeModule)
          .prepare(symbol_less_libc10, "a libc10 without its symbols first on LD_LIBRARY_PATH")
          .env("LD_LIBRARY_PATH", "{tmp}/lib")
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "LoaderError")
          .expect_field_contains("/error/message", "undefined symbol")
          .expect_field_lacks("/error/message", "/"),
      Case("torch_unloadable_not_elf")
          .guards("a corrupt libtorch library file is TORCH_IMPORT_FAILED (4), never a pass")
          .needs(Requirement::ProbeModule)
          .prepare(truncated_libc10, "a truncated libc10 file first on LD_LIBRARY_PATH")
          .env("LD_LIBRARY_PATH", "{tmp}/lib")
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field_contains("/error/message", "libc10")
          .expect_field_lacks("/error/message", "/"),
      cuda_dependency_hidden("cuda_runtime_hidden", "CUDA runtime (libcudart)",
                             hide_cuda_runtime, "libcudart.so", {}),
      cuda_dependency_hidden("cuda_runtime_hidden_cpu_mode", "CUDA runtime (libcudart)",
                             hide_cuda_runtime, "libcudart.so", {"--device", "cpu"}),
      cuda_dependency_hidden("cublas_hidden", "cuBLAS", hide_cublas, "libcublas", {}),
      cuda_dependency_hidden("cublas_hidden_cpu_mode", "cuBLAS", hide_cublas, "libcublas",
                             {"--device", "cpu"}),
      Case("probe_module_missing")
          .guards("a check without its probe module is INTERNAL_ERROR (1), not a libtorch problem")
          .with_probe("{tmp}/no-such-probe.so")
          .args({"--device", "cpu"})
          .outcome("INTERNAL_ERROR", "import"),
      Case("probe_module_not_a_probe")
          .guards("a module without the probe interface is INTERNAL_ERROR (1)")
          .with_probe("{fixtures}/libkd_c10_standin.so")
          .args({"--device", "cpu"})
          .outcome("INTERNAL_ERROR", "import"),
  };
}

}  // namespace

KERNODECK_LAYER(import, import_cases());
