// Layer "import": finding and loading libtorch. A missing libtorch and a
// libtorch that fails to load are told apart from what the loader says.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "files.hpp"
#include "layer_test.hpp"
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
