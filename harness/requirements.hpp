// What a runner must offer for a case to be meaningful, as named requirements (as LLVM lit's
// REQUIRES: features): a case table only declares them,
//
//   Case("nobody_user").needs(Requirement::AnotherUser) ...
//
// and this registry probes each one once per run, and owns its skip reason. No suite probes the
// runner, skips by itself or guesses from a case's manipulation; `kernodeck-requirements` prints
// the registry and what this runner meets.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kdh {

struct Case;
struct Runner;

enum class Requirement {
  Gpu,              // a GPU device node; KERNODECK_EXPECT_GPU=1 turns "missing" into a failure
  GpuBackend,       // the check's libtorch was built with CUDA or HIP
  CpuOnlyBackend,   // the check's libtorch was built with neither
  CudaBackend,      // the check's libtorch was built with CUDA (not HIP)
  NoGpu,            // no GPU on the runner: shows what a GPU-less machine answers
  NvidiaSmi,        // nvidia-smi on the runner's PATH
  ProbeModule,      // the check's probe module can be found beside it, with its libtorch
  CompiledProbe,    // the check loads its compiled probe (built against a libtorch's headers)
  StableProbe,      // the check carries its stable probe and no compiled one (a torch folder named)
  PythonProbe,      // the check's worker is the interpreter importing torch (the python probe)
  WheelRecord,      // the import's libc10 is a wheel's, its RECORD listing its SHA-256
  TorchWheelSite,   // the site-packages folder of the torch wheel the check's libtorch comes from
  OtherPythonTorch,  // the same torch's files for another CPython (other_python_torch_site)
  ApplicationDistributions,  // torchvision for the check's torch and for another, pillow, numpy
  BuiltExtensions,   // extensions built with torch.utils.cpp_extension against the wheel's torch
  DistributionTorch,  // another torch than the wheel's for the same CPython: Debian's python3-torch
  GitLfs,           // git and git-lfs, to clone a repository without fetching its LFS objects
  SystemCudnn,      // a cuDNN in the system's library path (ld.so.cache), as a CUDA toolkit has
  CxxCompiler,      // a C++ compiler on PATH (CXX, g++ or c++), as torch.compile's inductor calls
  TorchCompile,     // the python probe's torch has torch.compile (torch 2.0 and later)
  DistributionTorchWithoutCompile,  // Debian's python3-torch, older than torch.compile (1.13)
  TorchPrecisionsOnCpu,  // the python probe's torch computes in float16, bfloat16 and float8 on the CPU
  DistributionTorchOfOlderPrecisions,  // Debian's python3-torch: no float16 on its CPU, no float8 (1.13)
  UserNamespaces,   // `unshare --user --map-root-user --mount` works here
  AnotherUser,      // root, able to run the check as another user who can reach it
  DeviceNodes,      // real root, able to make device nodes (mknod) in a private mount namespace
  MemoryCgroup,     // a memory cgroup can be made (and left) here
  DeviceCgroupV1,   // a child of this process's cgroup v1 devices cgroup can be made and entered
  UnprivilegedUserNamespaces,  // a user other than root may make a user namespace
  CudaToolkitStub,  // the CUDA toolkit's stub driver library (lib64/stubs/libcuda.so)
  DecimalCommaLocale,  // the locale de_DE.UTF-8 is installed
  // What the sanitizers' own runtime needs, and a case takes away on purpose:
  StartsUnderAddressSpaceLimit,  // the check can start under RLIMIT_AS
  ExitsUnderProcessLimitOfOne,   // the check can end under RLIMIT_NPROC 1
  RunsWithoutProc,               // the check can run without /proc
};

// A requirement's name (as `kernodeck-requirements` and the docs show it) and what it asks of
// the runner, in words.
struct RequirementInfo {
  Requirement requirement;
  const char* name;
  const char* asks;
};

// Every requirement, in declaration order.
const std::vector<RequirementInfo>& all_requirements();
const RequirementInfo& info(Requirement requirement);

struct Unmet {
  std::string reason;
  bool fatal = false;  // a declared GPU runner that lacks what a GPU case needs
};

// Whether this runner meets `requirement`, probed once per process (a case's GPU index, when it
// names one, is judged per case).
std::optional<Unmet> unmet(Requirement requirement);

// The site-packages folder of the torch wheel whose libtorch the check loads (torch, its
// *.dist-info and its dependencies, as pip installed them); "" where it is no wheel's.
std::string torch_wheel_site_packages(const Runner& r);

// The files of a torch wheel for another CPython than the one the check's python probe runs,
// unpacked as pip installs them (the build's KERNODECK_OTHER_PYTHON_TORCH: ci/setup --torch pypi
// downloads the same release for Python 3.12, or 3.13 beside a 3.12), and that CPython's
// version as torch's _C extension is tagged ("3.12"); both "" where there are none.
struct OtherPythonTorch {
  std::string site;
  std::string python_version;
};
const OtherPythonTorch& other_python_torch();

// A distribution of the application layer installed into a folder of its own, as pip installs
// it: one of the build's KERNODECK_EXTENSIONS_DIR ("torchvision-0.29.2", as ci/setup --torch pypi
// names them), or an extension the fixtures built against the wheel's torch ("kd-twice"); ""
// where there is none.
std::string application_distribution(const std::string& folder);
std::string built_extension(const std::string& name);

// The interpreter of another torch than the wheel's, for the same CPython: Debian's
// /usr/bin/python3 importing its python3-torch from /usr/lib/python3/dist-packages; "" where it
// does not.
const std::string& distribution_torch_python();

// Why `c` cannot run here (its first unmet requirement), or nullopt.
std::optional<Unmet> unmet_requirements(const Case& c);

}  // namespace kdh
