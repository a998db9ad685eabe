// Covers causes.hpp, the words a cause is given: placeholders filled with the facts of the run,
// machine details named and never valued, each limit named with its value.
#include <errno.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "causes_test_support.hpp"

namespace kd {
namespace {

// ---- the words ----

TEST(CauseWords, PlaceholdersAreFilledAndMissingOnesSaySo) {
  EXPECT_EQ(fill("a {x} b {y}.", {{"x", "1"}}), "a 1 b unknown.");
  EXPECT_EQ(fill("no placeholder", {}), "no placeholder");
  EXPECT_EQ(fill("open { only", {}), "open { only");
}

TEST(CauseWords, DriverMismatchNamesBothVersions) {
  Evidence e = cuda_answer(803);
  e.driver_library = "libcuda.so.550.54.15";
  e.kernel_module = "535.104.05";
  Cause c = cause_words(CauseId::DriverMismatch, facts_for(&e, ""));
  EXPECT_TRUE(has(c.what, "libcuda.so.550.54.15, version 550.54.15")) << c.what;
  EXPECT_TRUE(has(c.what, "version 535.104.05")) << c.what;
  e.kernel_module.reset();
  c = cause_words(CauseId::DriverMismatch, facts_for(&e, ""));
  EXPECT_TRUE(has(c.what, "/proc/driver/nvidia/version cannot be read")) << c.what;
}

TEST(CauseWords, NodesAndVariablesAreNamedNeverValued) {
  Evidence e = cuda_answer(100);
  e.device_nodes->nvidiactl = NodeState::NotAccessible;
  e.device_nodes->nvidia_gpus_accessible = 0;
  e.visible_devices->at(0).second = "uuid_list";
  Facts f = facts_for(&e, "");
  EXPECT_EQ(f["closed_nodes"], "/dev/nvidiactl and /dev/nvidiaN");
  EXPECT_EQ(f["variables"], "CUDA_VISIBLE_DEVICES (uuid_list)");
  Cause c = cause_words(CauseId::NoDeviceNodes, f);
  EXPECT_TRUE(has(c.what, "no NVIDIA device node in this container (started without --gpus"))
      << c.what;
}

TEST(CauseWords, TheLoadersNamesBecomeFileNames) {
  Facts f = facts_for(nullptr,
                      "/lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by "
                      "/opt/secret/place/libc10.so)");
  Cause c = cause_words(CauseId::CxxRuntimeTooOld, f);
  EXPECT_EQ(c.what, "libtorch was found but libc10.so needs GLIBCXX_3.4.32 of the C++ runtime, "
                    "which this image's libstdc++.so.6 is too old to have.");
  EXPECT_TRUE(has(c.next_action, "newer libstdc++")) << c.next_action;
  EXPECT_FALSE(has(c.what, "/")) << c.what;
}

TEST(CauseWords, ADamagedFileIsTheLibraryNamedWhateverTheLoaderSaid) {
  Evidence e;
  e.library = LibraryCopy("libtorch_cpu.so.1.13.0", CopyState::Damaged);
  e.library->damage = "truncated";
  Facts f = facts_for(&e, "/opt/torch/lib/libc10_cuda.so: undefined symbol: _ZTIN3c105ErrorE");
  Cause c = cause_words(CauseId::CorruptLibrary, f);
  EXPECT_EQ(c.what, "libtorch was found but libtorch_cpu.so.1.13.0 is not a valid shared library: "
                    "a truncated download or an overwritten file.");
}

TEST(CauseWords, TheAddressSpaceLimitIsNamed) {
  Cause c = cause_words(CauseId::AddressSpaceLimit,
                        facts_for(nullptr, "x: failed to map segment from shared object",
                                  address_space(256 * kMiB)));
  EXPECT_EQ(c.what, "libtorch was found but could not be mapped into memory; the address-space "
                    "limit (ulimit -v) is 256 MiB.");
  EXPECT_TRUE(has(c.next_action, "raise it")) << c.next_action;
  c = cause_words(CauseId::AddressSpaceLimit, facts_for(nullptr, "x: failed to map segment"));
  EXPECT_EQ(c.what, "libtorch was found but could not be mapped into memory.");
}

TEST(CauseWords, NoKernelImageNamesTheCapability) {
  Evidence e = cuda_answer(209);
  Cause c = cause_words(CauseId::NoKernelImage, facts_for(&e, ""));
  EXPECT_TRUE(has(c.what, "compute capability 9.0")) << c.what;
  EXPECT_TRUE(has(c.next_action, "compute capability 9.0")) << c.next_action;
}

// The words of a worker's cause, with the limits of this run and its stage.
Cause worker_words(CauseId id, const ResourceLimits& limits, std::string_view stage = "import",
                   std::string_view how = "") {
  FactSources sources;
  sources.limits = &limits;
  sources.stage = stage;
  sources.how = how;
  return cause_words(id, cause_facts(sources, Sanitizer({})));
}

TEST(CauseWords, AProcessLimitNamesUlimitAndItsValue) {
  ResourceLimits limits;
  limits.processes = 1;
  Cause c = worker_words(CauseId::ProcessLimitAtStart, limits);
  EXPECT_EQ(c.what, "The worker process could not be started: a process limit is reached; the "
                    "process limit (ulimit -u) is 1.");
  EXPECT_TRUE(has(c.next_action, "Raise the process limit (ulimit -u")) << c.next_action;
  EXPECT_TRUE(has(c.next_action, "two processes")) << c.next_action;
  limits.cgroup_pids = 4;
  c = worker_words(CauseId::ProcessLimitAtStart, limits);
  EXPECT_TRUE(has(c.what, "and the pids limit of this cgroup is 4.")) << c.what;
}

TEST(CauseWords, WithoutAKnownLimitTheSentenceStillEnds) {
  for (CauseId id : {CauseId::ProcessLimitAtStart, CauseId::OutOfMemoryAtStart,
                     CauseId::OpenFileLimitAtStart, CauseId::KilledForMemory,
                     CauseId::KilledFromOutside,
                     CauseId::DiedForLackOfMemory, CauseId::ThreadStartFailed}) {
    Cause c = worker_words(id, ResourceLimits{});
    EXPECT_EQ(c.what.back(), '.') << c.what;
    EXPECT_FALSE(has(c.what, ";")) << c.what;
    EXPECT_FALSE(has(c.what, "unknown")) << c.what;
  }
}

TEST(CauseWords, LackOfMemoryAtStartNamesTheMemoryLimits) {
  ResourceLimits limits = address_space(64 * kMiB);
  limits.cgroup_memory = 32 * kMiB;
  Cause c = worker_words(CauseId::OutOfMemoryAtStart, limits);
  EXPECT_EQ(c.what, "The worker process could not be started for lack of memory; the "
                    "address-space limit (ulimit -v) is 64 MiB and the memory limit of this "
                    "cgroup is 32 MiB.");
  EXPECT_TRUE(has(c.next_action, "Raise the memory or address-space limit")) << c.next_action;
}

TEST(CauseWords, TooManyOpenFilesNamesTheOpenFileLimit) {
  ResourceLimits limits;
  limits.open_files = 8;
  Cause c = worker_words(CauseId::OpenFileLimitAtStart, limits);
  EXPECT_EQ(c.what, "The worker process could not be started: too many files are open; the "
                    "open-file limit (ulimit -n) is 8.");
  EXPECT_TRUE(has(c.next_action, "Raise the open-file limit (ulimit -n)")) << c.next_action;
}

TEST(CauseWords, AnOutsideSigkillPointsAtTheOutOfMemoryKiller) {
  ResourceLimits limits;
  limits.cgroup_memory = 16 * kMiB;
  Cause c = worker_words(CauseId::KilledFromOutside, limits, "import");
  EXPECT_EQ(c.what, "The worker process was killed by SIGKILL from outside the check during the "
                    "import stage, most often by the out-of-memory killer of a memory limit; the "
                    "memory limit of this cgroup is 16 MiB.");
  EXPECT_TRUE(has(c.next_action, "Raise the memory or address-space limit")) << c.next_action;
}

// The out-of-memory killer keeps the cgroup's limit, not the address-space one: the message names
// the one that binds, and the way out is more of it, or weights that need less.
TEST(CauseWords, TheOutOfMemoryKillerNamesTheCgroupsLimitAndWhatToRaise) {
  ResourceLimits limits = address_space(8192 * kMiB);
  limits.cgroup_memory = 16 * kMiB;
  limits.oom_kills_while_running = 1;
  Cause c = worker_words(CauseId::KilledForMemory, limits, "import");
  EXPECT_EQ(c.what, "The worker process was killed by the out-of-memory killer during the import "
                    "stage: its memory cgroup counted an out-of-memory kill while it ran; the "
                    "memory limit of this cgroup is 16 MiB.");
  for (const char* words : {"resources.limits.memory", "docker run --memory", "mmap=True",
                            "smaller dtype"}) {
    EXPECT_TRUE(has(c.next_action, words)) << c.next_action;
  }
}

TEST(CauseWords, LastWordsOfLackOfMemoryOrThreadsNameTheirLimits) {
  Cause c = worker_words(CauseId::DiedForLackOfMemory, address_space(500 * kMiB), "device");
  EXPECT_EQ(c.what, "The worker process died for lack of memory during the device stage; the "
                    "address-space limit (ulimit -v) is 500 MiB.");
  ResourceLimits limits;
  limits.processes = 3;
  c = worker_words(CauseId::ThreadStartFailed, limits, "compute");
  EXPECT_EQ(c.what, "The worker process died when it could not start a thread during the "
                    "compute stage; the process limit (ulimit -u) is 3.");
  EXPECT_TRUE(has(c.next_action, "Raise the process limit")) << c.next_action;
}

TEST(CauseWords, AnUnrecognisedEndSaysHowTheWorkerEnded) {
  Cause c = worker_words(CauseId::WorkerFailed, ResourceLimits{}, "compute",
                         "killed by signal SIGSEGV");
  EXPECT_EQ(c.what, "The worker process died or left no usable report during the compute stage "
                    "(killed by signal SIGSEGV).");
  c = worker_words(CauseId::WorkerFailed, ResourceLimits{}, "backend");
  EXPECT_EQ(c.what, "The worker process died or left no usable report during the backend stage.");
}

TEST(CauseWords, AnAllocationNamesTheAddressSpaceLimit) {
  Cause c = worker_words(CauseId::AllocationUnderAddressSpaceLimit, address_space(256 * kMiB));
  EXPECT_EQ(c.what, "An allocation failed; the address-space limit (ulimit -v) is 256 MiB, a "
                    "likely cause.");
  EXPECT_TRUE(has(c.next_action, "Raise the address-space limit (ulimit -v)")) << c.next_action;
}

TEST(CauseWords, StandardOutputSaysWhyItRefused) {
  FactSources sources;
  sources.write_error = "No space left on device";
  Cause c = cause_words(CauseId::StdoutWriteFailed, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(c.what, "The report could not be written whole to standard output (No space left on "
                    "device).");
  EXPECT_TRUE(has(c.next_action, "or use --output.")) << c.next_action;
}

TEST(CauseWords, TheNewCausesNameTheirFactsNeverAPath) {
  Evidence e = cuda_answer(999);
  e.device_cgroup = v1_cgroup_refusing_all();
  Cause words = cause_words(CauseId::DeviceCgroupDenied, facts_for(&e, ""));
  EXPECT_TRUE(has(words.what, "(/dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidiaN: EPERM)"))
      << words.what;
  EXPECT_TRUE(has(words.what, "device cgroup (its devices.list lacks them) no longer")) << words.what;
  EXPECT_TRUE(has(words.next_action, "Recreate the container")) << words.next_action;
  e.device_cgroup = DeviceCgroup{};
  e.device_cgroup->nvidia_gpus = 1;
  words = cause_words(CauseId::NoGpuGranted, facts_for(&e, ""));
  EXPECT_TRUE(has(words.what, "(1 of 1 /dev/nvidiaN refused: EPERM)")) << words.what;
  DriverFiles stub;
  stub.libcuda_so_1 = true;
  stub.libcuda_file = "libcuda.so";
  stub.libcuda_folder = "stubs";
  e.driver_files = stub;
  words = cause_words(CauseId::StubDriver, facts_for(&e, ""));
  EXPECT_TRUE(has(words.what, "(libcuda.so of a stubs folder; error 34)")) << words.what;
  e.driver_files = DriverFiles{};
  e.driver_files->libcuda_version_without_link = "550.54.15";
  words = cause_words(CauseId::DriverLinkMissing, facts_for(&e, ""));
  EXPECT_TRUE(has(words.next_action, "links to libcuda.so.550.54.15")) << words.next_action;
  e.rocm = RocmFacts{std::string("gfx1031"), std::string("version")};
  e.runtime->error = 98;
  words = cause_words(CauseId::RocmArchitectureMissing, facts_for(&e, ""));
  EXPECT_TRUE(has(words.what, "architecture, gfx1031 (error 98); HSA_OVERRIDE_GFX_VERSION is set"))
      << words.what;
  EXPECT_TRUE(has(words.next_action, "PYTORCH_ROCM_ARCH=gfx1031")) << words.next_action;
  Evidence shadow;
  shadow.library = LibraryCopy("libnvJitLink.so.13", CopyState::Readable);
  shadow.library->folder = "cuda_toolkit";
  words = cause_words(CauseId::CudaLibraryShadowed,
                      facts_for(&shadow, "/w/lib/libcusparse.so.12: undefined symbol: "
                                         "__nvJitLinkAddData_13_2, version libnvJitLink.so.13"));
  EXPECT_EQ(words.what, "libtorch was found but libcusparse.so.12 needs a newer libnvJitLink.so.13 "
                        "than the one the loader takes first, from the image's CUDA toolkit folder "
                        "that LD_LIBRARY_PATH names: the image's own CUDA libraries shadow those "
                        "libtorch came with.");
}

}  // namespace
}  // namespace kd
