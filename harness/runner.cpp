#include "runner.hpp"

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>

#include "util/elf.hpp"
#include "util/files.hpp"
#include "supervisor.hpp"

namespace kdh {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

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
// beside is the one the loader resolves for the probe module (ldd).
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

Runner discover() {
  Runner r;
  r.check = absolute(env_or("KERNODECK_CHECK", KERNODECK_BUILT_CHECK));
  // A packed suite (ci/gpu-proof) runs from another folder than it was built in.
  r.fixtures_dir = env_or("KERNODECK_FIXTURES_DIR", KERNODECK_FIXTURES_DIR);
  r.reports_dir = env_or("KERNODECK_REPORTS_DIR", KERNODECK_DEFAULT_REPORTS_DIR);
  r.expect_gpu = env_or("KERNODECK_EXPECT_GPU", "0") == "1";

  // The install layout puts the probe module at a fixed place relative to
  // the binary (docs/architecture.md, "Layout of an installation").
  std::string probe = kd::dirname_of(r.check) + "/" + KERNODECK_PROBE_RELATIVE_PATH;
  if (exists(probe)) {
    r.probe_module = absolute(probe);
    if (auto dynamic = kd::read_elf_dynamic(*r.probe_module)) r.probe_needs = dynamic->needed;
    bool cuda = false, hip = false, torch = false;
    for (const auto& lib : r.probe_needs) {
      cuda = cuda || lib.rfind("libtorch_cuda", 0) == 0 || lib.rfind("libc10_cuda", 0) == 0;
      hip = hip || lib.rfind("libtorch_hip", 0) == 0 || lib.rfind("libc10_hip", 0) == 0;
      torch = torch || lib.rfind("libtorch", 0) == 0;
    }
    r.backend = hip ? "rocm" : cuda ? "cuda" : torch ? "none" : "unknown";
    if (r.backend == "cuda") r.torch_cuda_version = torch_cuda_version(*r.probe_module);
  }

  // A GPU is present when the kernel exposes one to this container.
  int nvidia = count_dev_nodes(std::regex("nvidia[0-9]+"), "/dev");
  int amd = exists("/dev/kfd") ? count_dev_nodes(std::regex("renderD[0-9]+"), "/dev/dri") : 0;
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

// Mount namespaces let a case shrink a filesystem for real; asked only by
// the cases that need them.
bool user_namespaces_work() {
  static const bool works = [] {
    kd::SpawnSpec spec;
    spec.argv = {"/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/true"};
    if (!exists(spec.argv[0])) return false;
    kd::RunResult run = kd::run_supervised(spec, kd::deadline_in(5), {});
    return run.status.exited() && run.status.code == 0;
  }();
  return works;
}

// Runs `argv` to its end within `seconds`; its output, "" when it exited 0.
std::string why_it_failed(const std::vector<std::string>& argv, double seconds) {
  kd::SpawnSpec spec;
  spec.argv = argv;
  spec.merge_err_into_out = true;
  kd::RunResult run = kd::run_supervised(spec, kd::deadline_in(seconds), {});
  if (run.status.exited() && run.status.code == 0) return "";
  std::string out = run.out.data.substr(0, run.out.data.find('\n'));
  return out.empty() ? run.status.describe() : out;
}

// Root can become nobody; the check, its probe module and the libraries the
// probe needs must then be reachable for that user (a build under a home that
// is closed to others is not).
std::string why_not_another_user() {
  static const std::string why_not = []() -> std::string {
    if (getuid() != 0) {
      return "becoming another user needs root; the suite runs as uid " + std::to_string(getuid());
    }
    if (!exists("/usr/bin/setpriv")) return "needs /usr/bin/setpriv (util-linux)";
    const Runner& r = runner();
    if (!r.probe_module) return "the check's probe module is not beside it";
    std::string failed = why_it_failed(
        {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", "/bin/sh",
         "-c",
         "test -x \"$1\" || { echo \"cannot run $1\"; exit 1; }; "
         "test -r \"$2\" || { echo \"cannot read $2\"; exit 1; }; "
         "/usr/bin/ldd \"$2\" | grep 'not found' && exit 1; exit 0",
         "sh", r.check, *r.probe_module},
        20);
    if (failed.empty()) return "";
    return "as the user nobody the check or its libraries cannot be reached, a folder above them "
           "being closed to others (" + failed + ")";
  }();
  return why_not;
}

// mknod of a character device in a tmpfs of a private mount namespace: real
// root with CAP_MKNOD (a user namespace may not make device nodes).
std::string why_not_device_nodes() {
  static const std::string why_not = []() -> std::string {
    if (getuid() != 0) return "making device nodes needs real root; the suite runs as uid " +
                              std::to_string(getuid());
    std::string failed = why_it_failed(
        {"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
         "mount -t tmpfs kd-dev /mnt && mknod /mnt/null c 1 3 && test -c /mnt/null"},
        10);
    if (failed.empty()) return "";
    return "needs real root that may make device nodes (mknod) in a private mount namespace "
           "(unshare --mount); here: " + failed;
  }();
  return why_not;
}

#ifdef KERNODECK_SANITIZED
// The asan build (cmake/KernodeckSanitizers.cmake) checks a check that carries
// AddressSanitizer and LeakSanitizer. What they need, a few cases take away on purpose; those
// cases are skipped in this build, with the reason, and run in the debian and pypi builds.
std::string sanitizer_clash(const Case& c) {
  const std::string elsewhere = "; the debian and pypi builds run this case";
  for (const auto& [resource, value] : c.limits) {
    if (resource == RLIMIT_AS) {
      return "the check of the asan build cannot start under an address-space limit: "
             "AddressSanitizer reserves terabytes of addresses for its shadow memory before "
             "main()" + elsewhere;
    }
    if (resource == RLIMIT_NPROC && value < 2) {
      return "under a process limit of 1 the check of the asan build ends in LeakSanitizer's "
             "own error: its leak check at exit starts a thread, which the limit refuses" +
             elsewhere;
    }
  }
  if (c.hides_proc) {
    return "the case hides /proc, which the asan build's check needs for LeakSanitizer's "
           "check at exit (/proc/<pid>/task) and AddressSanitizer's stack bounds "
           "(/proc/self/maps)" + elsewhere;
  }
  return {};
}
#endif

}  // namespace

std::string Runner::summary() const {
  return "backend " + backend + ", " + (gpu_present ? "GPU present" : "no GPU") + " (" +
         gpu_evidence + "), KERNODECK_EXPECT_GPU=" + (expect_gpu ? "1" : "0");
}

const Runner& runner() {
  static const Runner r = discover();
  return r;
}

namespace {

std::optional<Unmet> unmet_gpu(const Case& c, const Runner& r) {
  if (!r.gpu_present) {
    return Unmet{"needs a GPU; this runner has none (" + r.gpu_evidence + ")", r.expect_gpu};
  }
  if (c.needs_gpu_index && *c.needs_gpu_index >= r.visible_gpus) {
    return Unmet{"needs GPU index " + std::to_string(*c.needs_gpu_index) +
                     "; this runner shows " + std::to_string(r.visible_gpus) + " GPU(s)",
                 false};
  }
  return std::nullopt;
}

// What the check's libtorch must be built with.
std::optional<Unmet> unmet_backend(Need need, const Runner& r) {
  // The libtorch the probe module links, as a skip reason names it.
  const std::string links =
      "; the check's probe module links " +
      (r.backend == "none"      ? std::string("a CPU-only libtorch")
       : r.backend == "unknown" ? std::string("a libtorch of unknown backend")
                                : "a libtorch built for " + r.backend);
  if (need == Need::GpuBackend && r.backend != "cuda" && r.backend != "rocm") {
    return Unmet{"needs a libtorch built with CUDA or HIP" + links, r.expect_gpu};
  }
  if (need == Need::CpuOnlyBackend && r.backend != "none") {
    return Unmet{"needs a CPU-only libtorch" + links, false};
  }
  if (need == Need::CudaBackend && r.backend != "cuda") {
    return Unmet{"needs a CUDA libtorch (the pypi variant: KERNODECK_TORCH=pypi)" + links, false};
  }
  return std::nullopt;
}

std::optional<Unmet> unmet_need(Need need, const Case& c, const Runner& r) {
  switch (need) {
    case Need::Gpu:
      return unmet_gpu(c, r);
    case Need::GpuBackend:
    case Need::CpuOnlyBackend:
    case Need::CudaBackend:
      return unmet_backend(need, r);
    case Need::NoGpu:
      if (!r.gpu_present) return std::nullopt;
      return Unmet{"shows what a machine without a GPU answers; this runner has one (" +
                       r.gpu_evidence + ")",
                   false};
    case Need::NvidiaSmi:
      if (r.nvidia_smi) return std::nullopt;
      return Unmet{"needs nvidia-smi on PATH; none here", r.expect_gpu && r.backend != "rocm"};
    case Need::UserNamespaces:
      if (user_namespaces_work()) return std::nullopt;
      return Unmet{"needs `unshare --user --map-root-user --mount` (user and mount "
                   "namespaces), which this runner refuses",
                   false};
    case Need::AnotherUser:
      if (std::string why_not = why_not_another_user(); !why_not.empty()) {
        return Unmet{why_not, false};
      }
      return std::nullopt;
    case Need::DeviceNodes:
      if (std::string why_not = why_not_device_nodes(); !why_not.empty()) {
        return Unmet{why_not, false};
      }
      return std::nullopt;
    case Need::ProbeModule:
      if (r.probe_module) return std::nullopt;
      return Unmet{"needs the check's probe module beside it (" +
                       std::string(KERNODECK_PROBE_RELATIVE_PATH) +
                       " relative to the binary); not found for " + r.check,
                   true};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Unmet> unmet_needs(const Case& c) {
  const Runner& r = runner();
  for (Need need : c.needs) {
    if (auto unmet = unmet_need(need, c, r)) return unmet;
  }
  for (const auto& condition : c.runner_conditions) {
    if (std::string why_not = condition(); !why_not.empty()) return Unmet{why_not, false};
  }
#ifdef KERNODECK_SANITIZED
  if (std::string why_not = sanitizer_clash(c); !why_not.empty()) return Unmet{why_not, false};
#endif
  return std::nullopt;
}

}  // namespace kdh
