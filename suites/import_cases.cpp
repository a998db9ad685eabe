// Layer "import": finding and loading libtorch. A missing libtorch and a
// libtorch that fails to load are told apart from what the loader says.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "layer_test.hpp"
#include "runner.hpp"

namespace {

using kdh::Case;
using kdh::Need;

// Puts, under {tmp}/lib, a symbol-less stand-in under the file name of every
// libc10 the check's probe module needs; LD_LIBRARY_PATH={tmp}/lib then makes
// the real libtorch load it.
std::string shadow_libc10(const std::string& tmp) {
  const auto& needs = kdh::runner().probe_needs;
  std::string dir = tmp + "/lib";
  mkdir(dir.c_str(), 0755);
  int shadowed = 0;
  for (const auto& lib : needs) {
    if (lib.rfind("libc10", 0) != 0 || lib.rfind("libc10_", 0) == 0) continue;
    std::ifstream in(kdh::runner().fixtures_dir + "/libkd_c10_stub.so", std::ios::binary);
    std::ofstream out(dir + "/" + lib, std::ios::binary);
    out << in.rdbuf();
    if (!in || !out) return "cannot copy the libc10 stand-in";
    ++shadowed;
  }
  return shadowed > 0 ? "" : "the probe module needs no libc10 to shadow";
}

std::string garbage_libc10(const std::string& tmp) {
  std::string dir = tmp + "/lib";
  mkdir(dir.c_str(), 0755);
  for (const auto& lib : kdh::runner().probe_needs) {
    if (lib.rfind("libc10", 0) != 0 || lib.rfind("libc10_", 0) == 0) continue;
    std::ofstream out(dir + "/" + lib, std::ios::binary);
    out << "this is not an ELF object, it is a truncated download\n";
  }
  return "";
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
          .also([](const kdh::CaseRun& run, std::vector<std::string>& problems) {
            const auto& r = run.main().report;
            std::string msg = r ? r->value("/error/message"_json_pointer, std::string()) : "";
            if (msg.find("libtorch_kernodeck_absent.so") == std::string::npos ||
                msg.find("cannot open shared object file") == std::string::npos) {
              problems.push_back("/error/message does not keep the loader's first line");
            }
            if (msg.find('/') != std::string::npos) {
              problems.push_back("/error/message keeps a path: " + msg);
            }
          }),
      Case("torch_unloadable_undefined_symbol", "import")
          .guards("libtorch found but failing to load (bad symbol) is TORCH_IMPORT_FAILED (4)")
          .needs_(Need::ProbeModule)
          .prepare(shadow_libc10, "a libc10 without its symbols first on LD_LIBRARY_PATH")
          .env("LD_LIBRARY_PATH", "{tmp}/lib")
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "LoaderError")
          .also([](const kdh::CaseRun& run, std::vector<std::string>& problems) {
            const auto& r = run.main().report;
            std::string msg = r ? r->value("/error/message"_json_pointer, std::string()) : "";
            if (msg.find("undefined symbol") == std::string::npos) {
              problems.push_back("/error/message does not say which symbol is undefined: " + msg);
            }
            if (msg.find('/') != std::string::npos) {
              problems.push_back("/error/message keeps a path: " + msg);
            }
          }),
      Case("torch_unloadable_not_elf", "import")
          .guards("a corrupt libtorch library file is TORCH_IMPORT_FAILED (4), never a pass")
          .needs_(Need::ProbeModule)
          .prepare(garbage_libc10, "a truncated libc10 file first on LD_LIBRARY_PATH")
          .env("LD_LIBRARY_PATH", "{tmp}/lib")
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .also([](const kdh::CaseRun& run, std::vector<std::string>& problems) {
            const auto& r = run.main().report;
            std::string msg = r ? r->value("/error/message"_json_pointer, std::string()) : "";
            if (msg.rfind("libc10", 0) != 0) {
              problems.push_back("/error/message does not start with the library's name: " + msg);
            }
          }),
      Case("probe_module_missing", "import")
          .guards("a check without its probe module is INTERNAL_ERROR (1), not a libtorch problem")
          .with_probe("{tmp}/no-such-probe.so")
          .args({"--device", "cpu"})
          .outcome("INTERNAL_ERROR", "import"),
      Case("probe_module_not_a_probe", "import")
          .guards("a module without the probe interface is INTERNAL_ERROR (1)")
          .with_probe("{fixtures}/libkd_c10_stub.so")
          .args({"--device", "cpu"})
          .outcome("INTERNAL_ERROR", "import"),
  };
}

}  // namespace

KERNODECK_LAYER(import, import_cases());
