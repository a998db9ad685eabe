#include "runner.hpp"

#include <dirent.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>

#include "util/elf.hpp"
#include "util/files.hpp"
#include "kd/supervisor.hpp"
#include "torch_location.hpp"

namespace kdh {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

std::string absolute(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

int count_entries(const std::string& list) {
  int n = 0;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) ++n;
    start = comma + 1;
  }
  return n;
}

int count_dev_nodes(const std::regex& pattern, const std::string& dir) {
  int n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (std::regex_match(e->d_name, pattern)) ++n;
    }
    closedir(d);
  }
  return n;
}

// A wheel's torch/version.py records `cuda = '13.2'`; the library it sits
// beside is the one the loader resolves for the import (ldd).
std::string torch_cuda_version(const std::string& probe) {
  kd::SpawnSpec ldd;
  ldd.argv = {"/usr/bin/ldd", probe};
  kd::RunResult listed = kd::run_supervised(ldd, kd::deadline_in(20), {});
  std::smatch m;
  const std::regex resolved("libtorch_cuda\\.so => (/[^ ]+)/libtorch_cuda\\.so");
  if (!std::regex_search(listed.out.data, m, resolved)) return "";
  std::optional<std::string> version_py = kd::read_file(m[1].str() + "/../version.py", 1 << 16);
  const std::regex cuda("(^|\\n)cuda(: *[A-Za-z\\[\\]]+)? *= *'([0-9.]+)'");
  if (!version_py || !std::regex_search(*version_py, m, cuda)) return "";
  return m[3].str();
}

// CTest resource groups: CTEST_RESOURCE_GROUP_0_GPUS="id:3,slots:1".
std::optional<int> allocated_gpu() {
  const char* count = std::getenv("CTEST_RESOURCE_GROUP_COUNT");
  if (count == nullptr || std::atoi(count) < 1) return std::nullopt;
  const char* spec = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (spec == nullptr) return std::nullopt;
  std::smatch m;
  std::string s(spec);
  if (std::regex_search(s, m, std::regex("id:([0-9]+)"))) return std::stoi(m[1]);
  return std::nullopt;
}

// The install layout puts the probe modules at a fixed place relative to the binary
// (docs/architecture.md, "Layout of an installation"); which probe serves the check is the
// check's own rule (torch_location.hpp, probe_for). The libtorch it loads is the one the check
// will find, looked for as it looks (torch_location.hpp), in the variables the suite passes it.
void find_probe(Runner& r) {
  const std::string dir = kd::dirname_of(r.check) + "/";
  const std::string compiled = dir + KERNODECK_PROBE_RELATIVE_PATH;
  const std::string stable = dir + KERNODECK_STABLE_PROBE_RELATIVE_PATH;
  r.compiled_probe_installed = kd::path_exists(compiled);
  const kd::ProbeKind kind = kd::probe_for(r.compiled_probe_installed);
  if (kind == kd::ProbeKind::Compiled) {
    r.probe_module = absolute(compiled);
    r.probe_kind = "libtorch";
    r.import_root = r.probe_module;
    return;
  }
  if (!kd::path_exists(stable)) return;
  r.probe_module = absolute(stable);
  r.probe_kind = kind == kd::ProbeKind::Stable ? "stable_abi" : "python";
  if (kind == kd::ProbeKind::Python) {
    if (std::string python = kd::locate_python(kd::dirname_of(r.check)).python; !python.empty()) {
      r.python = python;
    }
  }
  kd::TorchLocation where = kd::locate_torch(kd::dirname_of(r.check), kd::deadline_in(60));
  if (where.found == kd::TorchLocation::Found::Torch) {
    r.import_root = absolute(kd::torch_library(where.dir));
  }
}

Runner discover() {
  Runner r;
  r.check = absolute(env_or("KERNODECK_CHECK", KERNODECK_BUILT_CHECK));
  // A packed suite (ci/gpu-proof) runs from another folder than it was built in.
  r.fixtures_dir = env_or("KERNODECK_FIXTURES_DIR", KERNODECK_FIXTURES_DIR);
  r.reports_dir = env_or("KERNODECK_REPORTS_DIR", KERNODECK_DEFAULT_REPORTS_DIR);
  r.expect_gpu = env_or("KERNODECK_EXPECT_GPU", "0") == "1";

  find_probe(r);
  if (r.import_root) {
    if (auto dynamic = kd::read_elf_dynamic(*r.import_root)) r.import_needs = dynamic->needed;
    bool cuda = false, hip = false, torch = false;
    for (const auto& lib : r.import_needs) {
      cuda = cuda || lib.rfind("libtorch_cuda", 0) == 0 || lib.rfind("libc10_cuda", 0) == 0;
      hip = hip || lib.rfind("libtorch_hip", 0) == 0 || lib.rfind("libc10_hip", 0) == 0;
      torch = torch || lib.rfind("libtorch", 0) == 0;
    }
    r.backend = hip ? "rocm" : cuda ? "cuda" : torch ? "none" : "unknown";
    if (r.backend == "cuda") r.torch_cuda_version = torch_cuda_version(*r.import_root);
  }

  // A GPU is present when the kernel exposes one to this container.
  int nvidia = count_dev_nodes(std::regex("nvidia[0-9]+"), "/dev");
  int amd = kd::path_exists("/dev/kfd") ? count_dev_nodes(std::regex("renderD[0-9]+"), "/dev/dri") : 0;
  r.gpu_present = nvidia > 0 || amd > 0;
  r.visible_gpus = nvidia > 0 ? nvidia : amd;
  r.gpu_evidence = nvidia > 0   ? std::to_string(nvidia) + " /dev/nvidiaN node(s)"
                   : amd > 0    ? std::to_string(amd) + " render node(s) with /dev/kfd"
                                : "no /dev/nvidiaN or /dev/kfd";
  for (const char* var : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}) {
    if (const char* v = std::getenv(var); v != nullptr && r.gpu_present) {
      r.visible_gpus = std::min(r.visible_gpus, count_entries(v));
      r.gpu_evidence += std::string(", ") + var + " lists " + std::to_string(count_entries(v));
    }
  }
  const char* path = std::getenv("PATH");
  r.nvidia_smi = kd::find_on_path("nvidia-smi", path != nullptr ? path : "");
  r.allocated_gpu = allocated_gpu();

  return r;
}

}  // namespace

std::string Runner::summary() const {
  return "probe " + (probe_kind.empty() ? std::string("none") : probe_kind) + ", backend " +
         backend + ", " + (gpu_present ? "GPU present" : "no GPU") + " (" +
         gpu_evidence + "), KERNODECK_EXPECT_GPU=" + (expect_gpu ? "1" : "0");
}

const Runner& runner() {
  static const Runner r = discover();
  return r;
}

}  // namespace kdh
