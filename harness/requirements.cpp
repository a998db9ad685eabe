#include "requirements.hpp"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <regex>

#include "case.hpp"
#include "manipulations.hpp"
#include "runner.hpp"
#include "kd/supervisor.hpp"
#include "util/files.hpp"

namespace kdh {
namespace {

using Probe = std::optional<Unmet> (*)(const Runner&);

struct Entry {
  RequirementInfo info;
  Probe probe;
};

std::optional<Unmet> met() { return std::nullopt; }
std::optional<Unmet> skip(std::string reason) { return Unmet{std::move(reason), false}; }

// ---- the GPU and the libtorch -----------------------------------------------------------------

std::optional<Unmet> probe_gpu(const Runner& r) {
  if (r.gpu_present) return met();
  return Unmet{"needs a GPU; this runner has none (" + r.gpu_evidence + ")", r.expect_gpu};
}

// The libtorch the probe module links, as a skip reason names it.
std::string links(const Runner& r) {
  return "; the check's probe module links " +
         (r.backend == "none"      ? std::string("a CPU-only libtorch")
          : r.backend == "unknown" ? std::string("a libtorch of unknown backend")
                                   : "a libtorch built for " + r.backend);
}

std::optional<Unmet> probe_gpu_backend(const Runner& r) {
  if (r.backend == "cuda" || r.backend == "rocm") return met();
  return Unmet{"needs a libtorch built with CUDA or HIP" + links(r), r.expect_gpu};
}

std::optional<Unmet> probe_cpu_only_backend(const Runner& r) {
  if (r.backend == "none") return met();
  return skip("needs a CPU-only libtorch" + links(r));
}

std::optional<Unmet> probe_cuda_backend(const Runner& r) {
  if (r.backend == "cuda") return met();
  return skip("needs a CUDA libtorch (the pypi variant: KERNODECK_TORCH=pypi)" + links(r));
}

std::optional<Unmet> probe_no_gpu(const Runner& r) {
  if (!r.gpu_present) return met();
  return skip("shows what a machine without a GPU answers; this runner has one (" +
              r.gpu_evidence + ")");
}

std::optional<Unmet> probe_nvidia_smi(const Runner& r) {
  if (r.nvidia_smi) return met();
  return Unmet{"needs nvidia-smi on PATH; none here", r.expect_gpu && r.backend != "rocm"};
}

std::optional<Unmet> probe_probe_module(const Runner& r) {
  if (r.probe_module && r.import_root) return met();
  if (r.probe_module) {
    return Unmet{"needs the libtorch the check's stable probe loads, and it finds no torch "
                 "(KERNODECK_TORCH_DIR, KERNODECK_TORCH_PYTHON, python3 beside the check or on "
                 "PATH with a torch package): every case of the real probe fails with the check's "
                 "own TORCH_MISSING",
                 true};
  }
  return Unmet{"needs the check's probe module beside it (" +
                   std::string(KERNODECK_PROBE_RELATIVE_PATH) + " or " +
                   KERNODECK_STABLE_PROBE_RELATIVE_PATH + " relative to the binary); not found for " +
                   r.check,
               true};
}

std::optional<Unmet> probe_compiled_probe(const Runner& r) {
  if (r.probe_kind == "libtorch") return met();
  return skip("needs the compiled probe, built against a libtorch's headers; this check loads "
              "its stable probe (no compiled probe is installed beside it)");
}

std::optional<Unmet> probe_stable_probe(const Runner& r) {
  if (!r.compiled_probe_installed && (r.probe_kind == "stable_abi" || r.probe_kind == "python")) {
    return met();
  }
  return skip("needs the stable probe, which the check loads for a torch folder "
              "KERNODECK_TORCH_DIR names where no compiled probe is installed beside it "
              "(ci/gpu-proof's kit, the wheel); this check has its compiled probe beside it");
}

std::optional<Unmet> probe_python_probe(const Runner& r) {
  if (r.probe_kind == "python") return met();
  return skip("needs the python probe (the interpreter importing torch), which the check runs "
              "where no compiled probe is installed beside it and no torch folder is named "
              "(ci/gpu-proof's kit, the wheel); this check loads its " +
              std::string(r.probe_kind == "libtorch" ? "compiled" : "stable") + " probe");
}

// The folder of *.dist-info folders above `file`, within `depth` folders; "" where none is.
std::string site_packages_of(const std::string& file, int depth) {
  std::string folder = kd::dirname_of(file);
  for (int i = 0; i < depth && folder.size() > 1; ++i, folder = kd::dirname_of(folder)) {
    for (const auto& name : kd::folder_entries(folder)) {
      if (kd::is_dist_info(name)) return folder;
    }
  }
  return "";
}

// The libc10 the loader resolves for the import (ldd), its real path; "" where none is, with
// why in `why_not`.
std::string import_libc10(const Runner& r, std::string& why_not) {
  if (!r.import_root) {
    why_not = "needs the libtorch the check loads; none is found";
    return "";
  }
  kd::SpawnSpec ldd;
  ldd.argv = {"/usr/bin/ldd", *r.import_root};
  std::smatch m;
  const std::string listing = kd::run_supervised(ldd, kd::deadline_in(20), {}).out.data;
  if (!std::regex_search(listing, m, std::regex("libc10\\.so[^ ]* => (/[^ ]+)"))) {
    why_not = "the loader finds no libc10 for the import (ldd)";
    return "";
  }
  char real[PATH_MAX];
  if (realpath(m[1].str().c_str(), real) == nullptr) {
    why_not = "cannot resolve " + m[1].str();
    return "";
  }
  return real;
}

// A RECORD of the site-packages folder above the import's libc10 that lists it with a SHA-256.
std::optional<Unmet> probe_wheel_record(const Runner& r) {
  std::string why_not;
  const std::string real = import_libc10(r, why_not);
  if (real.empty()) return skip(why_not);
  const std::string site = site_packages_of(real, 5);
  if (!site.empty()) {
    const std::string listed = real.substr(site.size() + 1) + ",sha256=";
    for (const auto& name : kd::folder_entries(site)) {
      if (!kd::is_dist_info(name)) continue;
      auto record = kd::read_file(site + "/" + name + "/RECORD");
      if (record && record->find("\n" + listed) != std::string::npos) return met();
    }
  }
  return skip("needs a libtorch installed from a wheel whose RECORD lists its libc10 with a "
              "SHA-256 (the pypi variant: KERNODECK_TORCH=pypi); the import's libc10 is " + real);
}

std::optional<Unmet> probe_torch_wheel_site(const Runner& r) {
  if (!torch_wheel_site_packages(r).empty()) return met();
  return skip("needs the site-packages folder of a torch wheel (torch, its *.dist-info and its "
              "dependencies) for the check's libtorch, to make Python environments from (the "
              "pypi variant: KERNODECK_TORCH=pypi)");
}

// The application layer's distributions of ci/setup, each in its folder.
const char* const kApplicationDistributions[] = {"torchvision-0.29.2", "torchvision-0.24.1",
                                                 "pillow-13.0.0", "numpy-2.4.6",
                                                 "safetensors-0.8.0",
                                                 "nvidia-cudnn-cu13-9.24.1.1"};

std::optional<Unmet> probe_application_distributions(const Runner&) {
  for (const char* folder : kApplicationDistributions) {
    if (application_distribution(folder).empty()) {
      return skip(std::string("needs ") + folder + " installed into a folder of its own as pip "
                  "installs it (ci/setup --torch pypi: .tools/extensions, the build's "
                  "KERNODECK_EXTENSIONS_DIR); here: " +
                  (*KERNODECK_EXTENSIONS_DIR == 0 ? "none named" : "not there"));
    }
  }
  return met();
}

std::optional<Unmet> probe_built_extensions(const Runner&) {
  for (const char* name : {"kd-twice", "kd-twice-abi0", "kd-cuda-version"}) {
    if (built_extension(name).empty()) {
      return skip(std::string("needs the extension ") + name + " built with "
                  "torch.utils.cpp_extension against the check's torch wheel (the pypi "
                  "variant's fixtures: a C++ compiler, the Python headers and the CUDA 12 "
                  "runtime wheel of ci/setup --torch pypi)");
    }
  }
  return met();
}

std::optional<Unmet> probe_distribution_torch(const Runner&) {
  if (!distribution_torch_python().empty()) return met();
  return skip("needs another torch than the wheel's for the same CPython: Debian's "
              "python3-torch, imported by /usr/bin/python3 (ci/setup --torch pypi)");
}

kd::RunResult run_briefly(std::vector<std::string> argv, bool merge_err) {
  kd::SpawnSpec spec;
  spec.argv = std::move(argv);
  spec.merge_err_into_out = merge_err;
  return kd::run_supervised(spec, kd::deadline_in(20), {});
}

// Whether the shell command `script` ends with 0 within run_briefly's time.
bool shell_succeeds(const std::string& script) {
  kd::RunResult run = run_briefly({"/bin/sh", "-c", script}, true);
  return run.status.exited() && run.status.code == 0;
}

std::optional<Unmet> probe_git_lfs(const Runner&) {
  if (shell_succeeds("git lfs version")) return met();
  return skip("needs git and git-lfs on PATH (Debian's git-lfs, ci/setup --torch pypi)");
}

std::optional<Unmet> probe_system_cudnn(const Runner&) {
  if (shell_succeeds("/sbin/ldconfig -p | grep -q 'libcudnn\\.so\\.9 '")) return met();
  return skip("needs a cuDNN 9 in the system's library path (ld.so.cache: the CUDA toolkit's "
              "libcudnn.so.9), which torch finds without its wheel's");
}

std::optional<Unmet> probe_cxx_compiler(const Runner&) {
  if (shell_succeeds("command -v \"${CXX:-g++}\" || command -v c++")) return met();
  return skip("needs a C++ compiler on PATH (CXX, g++ or c++), which torch.compile's inductor "
              "calls on the CPU; without one, --compile fails as compile_without_a_cxx_compiler "
              "shows");
}

// What PYTHON's `import torch` says of itself: the package's file, its release, whether it has
// torch.compile (which came with torch 2.0; Debian 12's python3-torch 1.13 has none), and whether
// its CPU computes a product in float16 and in float8 (torch._scaled_mm; Debian 12's 1.13 has
// neither: "addmm_impl_cpu_" not implemented for 'Half', no float8 dtype). Empty, with the reason
// in WHY, where it does not import.
struct TorchAnswer {
  std::string file;
  std::string release;
  bool has_compile = false;
  bool half_on_cpu = false;
  bool float8_on_cpu = false;
  bool has_float8 = false;  // the float8 dtypes (torch 2.1 and later)
};
const char* const kAskTorch =
    "import torch\n"
    "def works(step):\n"
    "    try:\n"
    "        step()\n"
    "        return 1\n"
    "    except Exception:\n"
    "        return 0\n"
    "half = works(lambda: torch.ones(2, 2, dtype=torch.float16) @ torch.ones(2, 2, dtype=torch.float16))\n"
    "f8 = getattr(torch, 'float8_e4m3fn', None)\n"
    "one = torch.tensor(1.0)\n"
    "scaled = f8 is not None and works(lambda: torch._scaled_mm(torch.ones(16, 16).to(f8), "
    "torch.ones(16, 16).to(f8).t().contiguous().t(), scale_a=one, scale_b=one, "
    "out_dtype=torch.float32))\n"
    "print(torch.__file__)\n"
    "print(torch.__version__, int(callable(getattr(torch, 'compile', None))), half, int(scaled), "
    "int(f8 is not None))\n";
std::optional<TorchAnswer> ask_torch(const std::string& python, std::string* why) {
  kd::SpawnSpec spec;
  spec.argv = {python, "-B", "-c", kAskTorch};
  spec.out = kd::CaptureSpec{true, 64 * 1024, true};
  kd::RunResult run = kd::run_supervised(spec, kd::deadline_in(60), {});
  // Its first two lines; whatever follows (nothing, unless torch prints on import) is not read.
  std::smatch m;
  if (!run.status.exited() || run.status.code != 0 ||
      !std::regex_search(run.out.data, m,
                         std::regex("([^\n]*)\n([^ \n]+) ([01]) ([01]) ([01]) ([01])\n"),
                         std::regex_constants::match_continuous)) {
    *why = run.status.describe();
    return std::nullopt;
  }
  return TorchAnswer{m[1].str(), m[2].str(), m[3] == "1", m[4] == "1", m[5] == "1", m[6] == "1"};
}

// Debian's python3-torch as /usr/bin/python3 imports it (its package under
// /usr/lib/python3/dist-packages), asked once: the interpreter ("" where there is none) and
// what its torch says of itself.
struct DistributionTorchFacts {
  std::string python;
  TorchAnswer torch;
};
const DistributionTorchFacts& distribution_torch() {
  static const DistributionTorchFacts facts = [] {
    const std::string interpreter = "/usr/bin/python3";
    if (!kd::path_exists(interpreter)) return DistributionTorchFacts{};
    std::string why;
    const std::optional<TorchAnswer> answer = ask_torch(interpreter, &why);
    if (!answer || answer->file.rfind("/usr/lib/python3/dist-packages/torch/", 0) != 0) {
      return DistributionTorchFacts{};
    }
    return DistributionTorchFacts{interpreter, *answer};
  }();
  return facts;
}

// The python probe's interpreter imports its torch and says whether it has torch.compile.
std::optional<Unmet> probe_torch_compile(const Runner& r) {
  if (!r.python) {
    return skip("needs the python probe's interpreter, whose torch torch.compile is of; this "
                "check has none");
  }
  std::string why;
  const std::optional<TorchAnswer> answer = ask_torch(*r.python, &why);
  if (!answer) {
    return skip("needs a torch that has torch.compile (2.0 and later); the python probe's "
                "interpreter did not import its torch (" + why + ")");
  }
  if (answer->has_compile) return met();
  return skip("needs a torch that has torch.compile (2.0 and later); the check's torch is " +
              answer->release + ", which has none: compile.run/compile_not_in_this_torch shows "
              "what the check answers there");
}

// Debian's python3-torch, of a release older than torch.compile (Debian 12's 1.13; Debian 13's
// 2.6 has it).
std::optional<Unmet> probe_distribution_torch_without_compile(const Runner&) {
  const DistributionTorchFacts& distribution = distribution_torch();
  if (distribution.python.empty()) {
    return skip("needs Debian's python3-torch of a release older than torch.compile (Debian "
                "12's 1.13), imported by /usr/bin/python3; there is none");
  }
  if (!distribution.torch.has_compile) return met();
  return skip("needs Debian's python3-torch of a release older than torch.compile (Debian 12's "
              "1.13); this one is " + distribution.torch.release + ", which has torch.compile");
}

// The python probe's interpreter imports its torch and computes in float16 and float8 on the CPU.
std::optional<Unmet> probe_torch_precisions_on_cpu(const Runner& r) {
  if (!r.python) {
    return skip("needs the python probe's interpreter, whose torch computes in the precisions "
                "asked; this check has none");
  }
  std::string why;
  const std::optional<TorchAnswer> answer = ask_torch(*r.python, &why);
  if (!answer) {
    return skip("needs a torch that computes in float16 and float8 on the CPU; the python "
                "probe's interpreter did not import its torch (" + why + ")");
  }
  if (answer->half_on_cpu && answer->float8_on_cpu) return met();
  return skip("needs a torch that computes in float16 and float8 (torch._scaled_mm) on the CPU; "
              "the check's torch is " + answer->release + ", whose CPU has " +
              (answer->half_on_cpu ? "no float8 scaled product" : "no float16 product") +
              ": application.run/precision_float16_without_a_cpu_kernel shows what the check "
              "answers there");
}

// Debian's python3-torch of a release older than the precisions applications use now: its CPU
// has no float16 product and it has no float8 dtypes (Debian 12's 1.13).
std::optional<Unmet> probe_distribution_torch_of_older_precisions(const Runner&) {
  const DistributionTorchFacts& distribution = distribution_torch();
  const std::string wanted = "needs Debian's python3-torch whose CPU has no float16 product and "
                             "which has no float8 dtypes (Debian 12's 1.13)";
  if (distribution.python.empty()) {
    return skip(wanted + ", imported by /usr/bin/python3; there is none");
  }
  if (!distribution.torch.half_on_cpu && !distribution.torch.has_float8) return met();
  return skip(wanted + "; this one is " + distribution.torch.release + ", which has " +
              (distribution.torch.half_on_cpu ? "a float16 product on its CPU" : "float8 dtypes"));
}

std::optional<Unmet> probe_other_python_torch(const Runner&) {
  if (!other_python_torch().site.empty()) return met();
  return skip(std::string("needs a torch wheel's files for another CPython, unpacked as pip "
                          "installs them (ci/setup --torch pypi: .tools/other-python-torch, the "
                          "build's KERNODECK_OTHER_PYTHON_TORCH); here: ") +
              (*KERNODECK_OTHER_PYTHON_TORCH == 0 ? "none named" : "none with a torch/_C extension"));
}

// ---- what the runner lets a case change -------------------------------------------------------

std::optional<Unmet> probe_user_namespaces(const Runner&) {
  if (kd::path_exists(kUnshare)) {
    kd::RunResult run =
        run_briefly({kUnshare, "--user", "--map-root-user", "--mount", "/bin/true"}, false);
    if (run.status.exited() && run.status.code == 0) return met();
  }
  return skip("needs `unshare --user --map-root-user --mount` (user and mount namespaces), "
              "which this runner refuses");
}

// The line of `ldd`'s answer that says what is missing, or its first one.
std::string telling_line(const std::string& out) {
  size_t start = 0;
  if (size_t missing = out.find("not found"); missing != std::string::npos) {
    size_t newline = out.rfind('\n', missing);
    start = newline == std::string::npos ? 0 : newline + 1;
  }
  return out.substr(start, out.find('\n', start) - start);
}

// Root can become another user; the check, its probe module and the libraries the probe needs
// must then be reachable for that user (a build under a home closed to others is not), and so
// must the interpreter the python probe runs, with its standard library (a virtual environment
// made from a Python under /root is not).
std::optional<Unmet> probe_another_user(const Runner& r) {
  if (getuid() != 0) {
    return skip("becoming another user needs root; the suite runs as uid " +
                std::to_string(getuid()));
  }
  if (!kd::path_exists(kSetpriv)) return skip(std::string("needs ") + kSetpriv + " (util-linux)");
  if (!r.import_root) return skip("the check's probe module or its libtorch is not found");
  if (r.probe_kind == "python" && !r.python) return skip("the python probe's interpreter is not found");
  std::vector<std::string> argv = as_user(kNobody);
  argv.insert(argv.end(),
              {"/bin/sh", "-c",
               "test -x \"$1\" || { echo \"cannot run $1\"; exit 1; }; "
               "test -r \"$2\" || { echo \"cannot read $2\"; exit 1; }; "
               "if [ -n \"$3\" ]; then \"$3\" -c 'import sys' >/dev/null 2>&1 || "
               "{ echo \"cannot run the interpreter $3\"; exit 1; }; fi; "
               "exec /usr/bin/ldd \"$2\"",
               "sh", r.check, *r.import_root, r.python.value_or("")});
  kd::RunResult run = run_briefly(argv, true);
  const std::string& out = run.out.data;
  if (run.status.exited() && run.status.code == 0 && out.find("not found") == std::string::npos) {
    return met();
  }
  std::string line = telling_line(out);
  return skip("as another user (uid " + std::to_string(kNobody) +
              ") the check, its libraries or its interpreter cannot be reached, a folder above "
              "them being closed to others (" +
              (line.empty() ? run.status.describe() : line) + ")");
}

// mknod of a character device in a tmpfs of a private mount namespace: real root with CAP_MKNOD
// (a user namespace may not make device nodes).
std::optional<Unmet> probe_device_nodes(const Runner&) {
  if (getuid() != 0) {
    return skip("making device nodes needs real root; the suite runs as uid " +
                std::to_string(getuid()));
  }
  kd::RunResult run = run_briefly(
      {kUnshare, "--mount", "--propagation", "private", "/bin/sh", "-c",
       "mount -t tmpfs kd-dev /mnt && mknod /mnt/null c 1 3 && test -c /mnt/null"},
      true);
  if (run.status.exited() && run.status.code == 0) return met();
  std::string line = run.out.data.substr(0, run.out.data.find('\n'));
  return skip("needs real root that may make device nodes (mknod) in a private mount namespace "
              "(unshare --mount); here: " + (line.empty() ? run.status.describe() : line));
}

std::optional<Unmet> probe_memory_cgroup(const Runner&) {
  std::string reason;
  auto place = cgroup_place(reason);
  if (!place) return skip(reason);
  std::string probe = place->root + "/kd-probe-" + std::to_string(getpid());
  if (mkdir(probe.c_str(), 0755) != 0) {
    return skip("cannot make a cgroup under " + place->root + ": " + strerror(errno) +
                " (the runner does not delegate cgroups)");
  }
  bool limited = kd::path_exists(probe + "/" + place->limit_file);
  rmdir(probe.c_str());
  if (!limited) return skip("a new cgroup under " + place->root + " has no " + place->limit_file);
  if (!kd::path_exists(place->home_procs)) {
    return skip("cannot find this process's own cgroup to return to");
  }
  return met();
}

// A child of this process's devices cgroup that denies every device, made and removed: v1's
// devices hierarchy, and root to write it.
std::optional<Unmet> probe_device_cgroup_v1(const Runner&) {
  if (getuid() != 0) {
    return skip("making a devices cgroup needs root; the suite runs as uid " +
                std::to_string(getuid()));
  }
  std::string reason;
  auto home = devices_cgroup_home(reason);
  if (!home) return skip(reason);
  const std::string probe = *home + "/kd-probe-" + std::to_string(getpid());
  if (mkdir(probe.c_str(), 0755) != 0) {
    return skip("cannot make a cgroup under " + *home + ": " + strerror(errno) +
                " (the runner does not delegate the devices hierarchy)");
  }
  const bool denied = write_text_file(probe + "/devices.deny", "a\n").empty();
  rmdir(probe.c_str());
  if (!denied) return skip("a new devices cgroup under " + *home + " refuses devices.deny");
  return met();
}

// As nobody, `unshare --user --map-root-user`: a rootless container's own user namespace, with
// only the user's own id mapped.
std::optional<Unmet> probe_unprivileged_user_namespaces(const Runner&) {
  if (getuid() != 0 || !kd::path_exists(kSetpriv) || !kd::path_exists(kUnshare)) {
    return skip("becoming another user who then makes a user namespace needs root and " +
                std::string(kSetpriv));
  }
  std::vector<std::string> argv = as_user(kNobody);
  argv.insert(argv.end(), {kUnshare, "--user", "--map-root-user", "/bin/true"});
  kd::RunResult run = run_briefly(argv, true);
  if (run.status.exited() && run.status.code == 0) return met();
  std::string line = run.out.data.substr(0, run.out.data.find('\n'));
  return skip("a user other than root may not make a user namespace here "
              "(kernel.unprivileged_userns_clone, user.max_user_namespaces): " +
              (line.empty() ? run.status.describe() : line));
}

std::optional<Unmet> probe_cuda_toolkit_stub(const Runner&) {
  const std::string stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (access(stub.c_str(), R_OK) == 0) return met();
  return skip("needs the CUDA toolkit's stub driver library, " + stub + " (a CUDA toolkit in "
              "/usr/local/cuda); none here");
}

std::optional<Unmet> probe_decimal_comma_locale(const Runner&) {
  std::string list = run_briefly({"/usr/bin/locale", "-a"}, false).out.data;
  std::transform(list.begin(), list.end(), list.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (list.find("de_de.utf8") != std::string::npos) return met();
  return skip("the locale de_DE.UTF-8 is not installed here (./ci/setup generates it)");
}

// ---- what the sanitizers' runtime needs --------------------------------------------------------

// The asan build (cmake/KernodeckSanitizers.cmake) checks a check that carries AddressSanitizer
// and LeakSanitizer: a case that takes away what they need is skipped there, and runs in the
// debian and pypi builds.
std::optional<Unmet> unsanitized(const char* reason) {
#ifdef KERNODECK_SANITIZED
  return skip(std::string(reason) + "; the debian and pypi builds run this case");
#else
  (void)reason;
  return met();
#endif
}

std::optional<Unmet> probe_address_space_limit(const Runner&) {
  return unsanitized("the check of the asan build cannot start under an address-space limit: "
                     "AddressSanitizer reserves terabytes of addresses for its shadow memory "
                     "before main()");
}

std::optional<Unmet> probe_process_limit_of_one(const Runner&) {
  return unsanitized("under a process limit of 1 the check of the asan build ends in "
                     "LeakSanitizer's own error: its leak check at exit starts a thread, which "
                     "the limit refuses");
}

std::optional<Unmet> probe_without_proc(const Runner&) {
  return unsanitized("the case hides /proc, which the asan build's check needs for "
                     "LeakSanitizer's check at exit (/proc/<pid>/task) and AddressSanitizer's "
                     "stack bounds (/proc/self/maps)");
}

}  // namespace

const OtherPythonTorch& other_python_torch() {
  static const OtherPythonTorch other = [] {
    OtherPythonTorch found;
    const std::string site = KERNODECK_OTHER_PYTHON_TORCH;
    if (site.empty()) return found;
    for (const std::string& name : kd::folder_entries(site + "/torch")) {
      // _C.cpython-312-x86_64-linux-gnu.so: CPython 3.12's.
      const std::string prefix = "_C.cpython-3";
      if (name.rfind(prefix, 0) != 0) continue;
      const size_t dash = name.find('-', prefix.size());
      if (dash == std::string::npos || dash == prefix.size()) continue;
      found.site = site;
      found.python_version = "3." + name.substr(prefix.size(), dash - prefix.size());
    }
    return found;
  }();
  return other;
}

std::string application_distribution(const std::string& folder) {
  const std::string root = KERNODECK_EXTENSIONS_DIR;
  if (root.empty() || folder.empty()) return "";
  const std::string path = root + "/" + folder;
  return kd::path_exists(path + "/.complete") ? path : "";
}

std::string built_extension(const std::string& name) {
  const std::string path = std::string(KERNODECK_BUILT_EXTENSIONS_DIR) + "/" + name;
  return kd::path_exists(path + ".installed") ? path : "";
}

const std::string& distribution_torch_python() { return distribution_torch().python; }

std::string torch_wheel_site_packages(const Runner& r) {
  static const std::string site = [&r] {
    std::string why_not;
    const std::string libc10 = import_libc10(r, why_not);
    const std::string folder = libc10.empty() ? "" : site_packages_of(libc10, 5);
    if (folder.empty() || !kd::path_exists(folder + "/torch/__init__.py")) return std::string();
    for (const auto& name : kd::folder_entries(folder)) {
      if (name.rfind("torch-", 0) == 0 && kd::is_dist_info(name)) return folder;
    }
    return std::string();
  }();
  return site;
}

namespace {

using R = Requirement;

// What the runner has and the check under test is: its GPU, its torch, its probe.
std::vector<Entry> runner_and_check_entries() {
  return {
      {{R::Gpu, "gpu", "a GPU device node (/dev/nvidiaN, or /dev/kfd with a render node)"},
       probe_gpu},
      {{R::GpuBackend, "gpu-backend", "the check's libtorch built with CUDA or HIP"},
       probe_gpu_backend},
      {{R::CpuOnlyBackend, "cpu-only-backend", "the check's libtorch built with neither"},
       probe_cpu_only_backend},
      {{R::CudaBackend, "cuda-backend", "the check's libtorch built with CUDA"},
       probe_cuda_backend},
      {{R::NoGpu, "no-gpu", "no GPU device node on the runner"}, probe_no_gpu},
      {{R::NvidiaSmi, "nvidia-smi", "nvidia-smi on the runner's PATH"}, probe_nvidia_smi},
      {{R::ProbeModule, "probe-module", "the check's probe module beside it, and its libtorch"},
       probe_probe_module},
      {{R::CompiledProbe, "compiled-probe", "the check loads its compiled probe"},
       probe_compiled_probe},
      {{R::StableProbe, "stable-probe", "the check carries its stable probe and no compiled one"},
       probe_stable_probe},
      {{R::PythonProbe, "python-probe", "the interpreter importing torch serves the check"},
       probe_python_probe},
      {{R::WheelRecord, "wheel-record",
        "the import's libc10 installed from a wheel whose RECORD lists its SHA-256"},
       probe_wheel_record},
      {{R::TorchWheelSite, "torch-wheel-site", "the site-packages of the check's torch wheel"},
       probe_torch_wheel_site},
      {{R::OtherPythonTorch, "other-python-torch",
        "a torch wheel's files for another CPython, unpacked (ci/setup --torch pypi)"},
       probe_other_python_torch},
      {{R::ApplicationDistributions, "application-distributions",
        "torchvision for the check's torch and for another, pillow, numpy and safetensors, each "
        "installed into a folder of its own (ci/setup --torch pypi)"},
       probe_application_distributions},
      {{R::BuiltExtensions, "built-extensions",
        "extensions built with torch.utils.cpp_extension against the check's torch wheel"},
       probe_built_extensions},
      {{R::DistributionTorch, "distribution-torch",
        "another torch than the wheel's for the same CPython: Debian's python3-torch"},
       probe_distribution_torch},
      {{R::GitLfs, "git-lfs", "git and git-lfs, to clone a repository without its LFS objects"},
       probe_git_lfs},
      {{R::SystemCudnn, "system-cudnn",
        "a cuDNN 9 in the system's library path (ld.so.cache), as a CUDA toolkit installs it"},
       probe_system_cudnn},
      {{R::CxxCompiler, "cxx-compiler",
        "a C++ compiler on PATH (CXX, g++ or c++), which torch.compile's inductor calls"},
       probe_cxx_compiler},
  };
}

// What the check's torch can do, and Debian's: torch.compile, the precisions on the CPU.
std::vector<Entry> torch_feature_entries() {
  return {
      {{R::TorchCompile, "torch-compile",
        "the python probe's torch has torch.compile (torch 2.0 and later)"},
       probe_torch_compile},
      {{R::DistributionTorchWithoutCompile, "distribution-torch-without-compile",
        "Debian's python3-torch of a release older than torch.compile (Debian 12's 1.13)"},
       probe_distribution_torch_without_compile},
      {{R::TorchPrecisionsOnCpu, "torch-precisions-on-cpu",
        "the python probe's torch computes in float16, bfloat16 and float8 on the CPU"},
       probe_torch_precisions_on_cpu},
      {{R::DistributionTorchOfOlderPrecisions, "distribution-torch-of-older-precisions",
        "Debian's python3-torch whose CPU has no float16 product and which has no float8 dtypes "
        "(Debian 12's 1.13)"},
       probe_distribution_torch_of_older_precisions},
  };
}

// What the runner lets a case change: users, namespaces, device nodes, cgroups, limits.
std::vector<Entry> manipulation_entries() {
  return {
      {{R::UserNamespaces, "user-namespaces",
        "`unshare --user --map-root-user --mount` works"},
       probe_user_namespaces},
      {{R::AnotherUser, "another-user",
        "root, and the check, its libraries and its interpreter reachable for the user nobody"},
       probe_another_user},
      {{R::DeviceNodes, "device-nodes",
        "real root, which may make device nodes (mknod) in a private mount namespace"},
       probe_device_nodes},
      {{R::MemoryCgroup, "memory-cgroup", "a memory cgroup of the case's own can be made"},
       probe_memory_cgroup},
      {{R::DeviceCgroupV1, "device-cgroup-v1",
        "root, and a child of its cgroup v1 devices cgroup can be made (/sys/fs/cgroup/devices)"},
       probe_device_cgroup_v1},
      {{R::UnprivilegedUserNamespaces, "unprivileged-user-namespaces",
        "root, and the user nobody may make a user namespace (unshare --user --map-root-user)"},
       probe_unprivileged_user_namespaces},
      {{R::CudaToolkitStub, "cuda-toolkit-stub",
        "the CUDA toolkit's stub driver library, /usr/local/cuda/lib64/stubs/libcuda.so"},
       probe_cuda_toolkit_stub},
      {{R::DecimalCommaLocale, "decimal-comma-locale", "the locale de_DE.UTF-8 installed"},
       probe_decimal_comma_locale},
      {{R::StartsUnderAddressSpaceLimit, "starts-under-address-space-limit",
        "a check that can start under an address-space limit (not the asan build)"},
       probe_address_space_limit},
      {{R::ExitsUnderProcessLimitOfOne, "exits-under-process-limit-of-one",
        "a check that can end under a process limit of 1 (not the asan build)"},
       probe_process_limit_of_one},
      {{R::RunsWithoutProc, "runs-without-proc",
        "a check that can run without /proc (not the asan build)"},
       probe_without_proc},
  };
}

// Every requirement's row, in the enumeration's order.
const std::vector<Entry>& registry() {
  static const std::vector<Entry> entries = [] {
    std::vector<Entry> all = runner_and_check_entries();
    for (Entry& e : torch_feature_entries()) all.push_back(std::move(e));
    for (Entry& e : manipulation_entries()) all.push_back(std::move(e));
    return all;
  }();
  return entries;
}

const Entry& entry(Requirement requirement) {
  for (const Entry& e : registry()) {
    if (e.info.requirement == requirement) return e;
  }
  std::abort();  // every enumerator has its row (the registry's unit test holds it)
}

}  // namespace

const std::vector<RequirementInfo>& all_requirements() {
  static const std::vector<RequirementInfo> infos = [] {
    std::vector<RequirementInfo> all;
    for (const Entry& e : registry()) all.push_back(e.info);
    return all;
  }();
  return infos;
}

const RequirementInfo& info(Requirement requirement) { return entry(requirement).info; }

std::optional<Unmet> unmet(Requirement requirement) {
  // Probed once each, whichever thread asks first.
  static std::mutex mutex;
  static std::map<Requirement, std::optional<Unmet>> probed;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = probed.find(requirement);
  if (found == probed.end()) {
    found = probed.emplace(requirement, entry(requirement).probe(runner())).first;
  }
  return found->second;
}

std::optional<Unmet> unmet_requirements(const Case& c) {
  for (Requirement requirement : c.requirements) {
    if (auto why_not = unmet(requirement)) return why_not;
  }
  const Runner& r = runner();
  if (c.needs_gpu_index && *c.needs_gpu_index >= r.visible_gpus) {
    return skip("needs GPU index " + std::to_string(*c.needs_gpu_index) + "; this runner shows " +
                std::to_string(r.visible_gpus) + " GPU(s)");
  }
  return met();
}

}  // namespace kdh
