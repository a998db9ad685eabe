// Covers causes.hpp: the catalogue's rules (one type per cause, each row's
// numbers and words in its description), which cause each runtime answer,
// evidence and loader message is, and the words a cause is given.
#include "causes.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace kd {

// A cause in a failure message: its error.type.
void PrintTo(CauseId id, std::ostream* os) { *os << cause_info(id).type; }

namespace {

bool has(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

// ---- the table ----

TEST(Catalogue, EveryCauseHasItsOwnTypeAndKey) {
  std::set<std::string_view> types, keys;
  for (CauseId id : all_causes()) {
    EXPECT_TRUE(types.insert(cause_info(id).type).second) << cause_info(id).type;
    EXPECT_TRUE(keys.insert(cause_info(id).key).second) << cause_info(id).key;
    EXPECT_EQ(cause_from_type(cause_info(id).type), id);
  }
  EXPECT_FALSE(cause_from_type("c10::Error"));
}

TEST(Catalogue, EveryRowSaysWhatAndWhatToDo) {
  for (CauseId id : all_causes()) {
    const CauseInfo& c = cause_info(id);
    EXPECT_FALSE(c.title.empty()) << c.key;
    EXPECT_FALSE(c.recognised.empty()) << c.key;
    EXPECT_EQ(c.what.back(), '.') << c.key;
    EXPECT_EQ(c.next_action.back(), '.') << c.key;
  }
}

// The description a reader sees names what the code matches on.
TEST(Catalogue, TheDescriptionNamesEveryNumberAndWord) {
  for (CauseId id : all_causes()) {
    const CauseInfo& c = cause_info(id);
    const std::string recognised(c.recognised);
    for (int n : c.numbers) {
      if (n != 0) {
        EXPECT_TRUE(has(recognised, std::to_string(n))) << c.key << ": " << n;
      }
    }
    for (std::string_view w : c.words) {
      // "version `GLIBCXX_" is described as "`GLIBCXX_...'".
      std::string word(w.rfind("version `", 0) == 0 ? w.substr(9) : w);
      if (!word.empty()) {
        EXPECT_TRUE(has(recognised, word)) << c.key << ": " << word;
      }
    }
  }
}

TEST(Catalogue, LayersAndOutcomesAgree) {
  for (CauseId id : all_causes()) {
    const CauseInfo& c = cause_info(id);
    if (c.stage == Stage::Device) {
      EXPECT_EQ(c.outcome, Outcome::GpuUnavailable) << c.key;
    }
    if (c.stage == Stage::Compute) {
      EXPECT_EQ(c.outcome, Outcome::RuntimeError) << c.key;
    }
    if (c.stage == Stage::Import) {
      EXPECT_TRUE(c.outcome == Outcome::TorchMissing || c.outcome == Outcome::TorchImportFailed)
          << c.key;
    }
  }
}

// ---- the device layer ----

Evidence cuda_answer(int error, std::optional<std::string> driver = std::string("13.2")) {
  Evidence e;
  e.runtime = RuntimeAnswer{"cuda", error, "cudaErrorX", std::move(driver), std::string("13.2")};
  DeviceNodes n;
  n.nvidiactl = NodeState::Accessible;
  n.nvidia_uvm = NodeState::Accessible;
  n.nvidia_gpus = n.nvidia_gpus_accessible = 1;
  e.device_nodes = n;
  VisibleDevices none;
  for (const auto& v : visibility_variables()) none.emplace_back(v, std::nullopt);
  e.visible_devices = none;
  return e;
}

CauseId device(const Evidence& e, std::string_view words = "") {
  return recognise_device(e, words, kDeviceCount).value_or(CauseId::GpuUnavailable);
}

TEST(RecogniseDevice, EachRuntimeNumberIsItsCause) {
  EXPECT_EQ(device(cuda_answer(802)), CauseId::FabricManagerNotRunning);
  EXPECT_EQ(device(cuda_answer(803)), CauseId::DriverMismatch);
  EXPECT_EQ(device(cuda_answer(804)), CauseId::CompatNotSupported);
  EXPECT_EQ(device(cuda_answer(46)), CauseId::DevicesBusy);
  EXPECT_EQ(device(cuda_answer(304)), CauseId::OsCallRefused);
  EXPECT_EQ(device(cuda_answer(3)), CauseId::DriverInitFailed);
  EXPECT_EQ(device(cuda_answer(2)), CauseId::OutOfMemoryAtInit);
  EXPECT_EQ(device(cuda_answer(999)), CauseId::UnknownDriverError);
  EXPECT_EQ(device(cuda_answer(100)), CauseId::NoDevice);
  EXPECT_EQ(device(cuda_answer(35)), CauseId::DriverTooOld);
  EXPECT_EQ(device(cuda_answer(35, std::nullopt)), CauseId::NoDriver);
  EXPECT_EQ(device(cuda_answer(801)), CauseId::GpuUnavailable);
}

TEST(RecogniseDevice, TheNumberWinsOverLibtorchsWords) {
  EXPECT_EQ(device(cuda_answer(803), "Found no NVIDIA driver on your system"),
            CauseId::DriverMismatch);
}

TEST(RecogniseDevice, WithoutARuntimeLibtorchsWordsAreRead) {
  Evidence none;
  EXPECT_EQ(device(none, "Found no NVIDIA driver on your system."), CauseId::NoDriver);
  EXPECT_EQ(device(none, "The NVIDIA driver on your system is too old (found version 11080)"),
            CauseId::DriverTooOld);
  EXPECT_EQ(device(none, "No HIP GPUs are available"), CauseId::NoDevice);
  EXPECT_EQ(device(none, "libtorch reports the GPU unavailable with 0 visible device(s)"),
            CauseId::GpuUnavailable);
}

TEST(RecogniseDevice, NoNodesAtAllIsNamedBeforeTheNumber) {
  for (int error : {100, 999, 3, 304}) {
    Evidence e = cuda_answer(error);
    e.device_nodes = DeviceNodes{};
    EXPECT_EQ(device(e), CauseId::NoDeviceNodes) << error;
  }
  Evidence fabric = cuda_answer(802);
  fabric.device_nodes = DeviceNodes{};
  EXPECT_EQ(device(fabric), CauseId::FabricManagerNotRunning);
}

TEST(RecogniseDevice, NodesThisUserMayNotOpen) {
  Evidence e = cuda_answer(100);
  e.device_nodes->nvidia_gpus_accessible = 0;
  EXPECT_EQ(device(e), CauseId::DeviceNodesNotAccessible);
  e = cuda_answer(999);
  e.device_nodes->nvidiactl = NodeState::NotAccessible;
  EXPECT_EQ(device(e), CauseId::DeviceNodesNotAccessible);
}

TEST(RecogniseDevice, AVisibilityVariableHidesGpusWhoseNodesExist) {
  Evidence e = cuda_answer(100);
  e.visible_devices->at(0).second = "-1";
  EXPECT_EQ(device(e), CauseId::GpusHidden);
  // NVIDIA_VISIBLE_DEVICES is the container runtime's, not the driver's.
  e = cuda_answer(100);
  e.visible_devices->at(1).second = "void";
  EXPECT_EQ(device(e), CauseId::NoDevice);
  // Without nodes, the variable is not why.
  e = cuda_answer(100);
  e.visible_devices->at(0).second = "-1";
  e.device_nodes = DeviceNodes{};
  EXPECT_EQ(device(e), CauseId::NoDeviceNodes);
}

TEST(RecogniseDevice, UnknownErrorWithoutNvidiaUvm) {
  Evidence e = cuda_answer(999);
  e.device_nodes->nvidia_uvm = NodeState::Absent;
  EXPECT_EQ(device(e), CauseId::UvmMissing);
}

TEST(RecogniseDevice, HipNumbersAndNodes) {
  Evidence e;
  e.runtime = RuntimeAnswer{"hip", 100, "hipErrorNoDevice", std::string("6.2"), std::string("6.2")};
  DeviceNodes n;  // an NVIDIA node means nothing to HIP
  n.nvidia_gpus = 1;
  e.device_nodes = n;
  EXPECT_EQ(device(e), CauseId::NoDeviceNodes);
  e.device_nodes->kfd = NodeState::Accessible;
  e.device_nodes->render_nodes = e.device_nodes->render_nodes_accessible = 1;
  EXPECT_EQ(device(e), CauseId::NoDevice);
  e.device_nodes->kfd = NodeState::NotAccessible;
  EXPECT_EQ(device(e), CauseId::DeviceNodesNotAccessible);
  e.device_nodes->kfd = NodeState::Accessible;
  e.runtime->error = 803;  // a CUDA number only
  EXPECT_EQ(device(e), CauseId::GpuUnavailable);
  e.runtime->error = 2;
  EXPECT_EQ(device(e), CauseId::OutOfMemoryAtInit);
}

TEST(RecogniseDevice, StartingTheDeviceHasItsOwnFewCauses) {
  EXPECT_EQ(recognise_device(cuda_answer(46), "", kDeviceStart), CauseId::DevicesBusy);
  EXPECT_FALSE(recognise_device(cuda_answer(2), "", kDeviceStart));
  EXPECT_FALSE(recognise_device(Evidence{}, "", kDeviceStart));
}

TEST(RecogniseCompute, GpuFaultsByNumber) {
  EXPECT_EQ(recognise_compute(cuda_answer(209)), CauseId::NoKernelImage);
  EXPECT_EQ(recognise_compute(cuda_answer(700)), CauseId::GpuFault);
  EXPECT_EQ(recognise_compute(cuda_answer(719)), CauseId::GpuFault);
  EXPECT_EQ(recognise_compute(cuda_answer(214)), CauseId::UncorrectableEcc);
  EXPECT_FALSE(recognise_compute(cuda_answer(2)));
  EXPECT_FALSE(recognise_compute(cuda_answer(0)));
  EXPECT_FALSE(recognise_compute(Evidence{}));
}

// ---- the import layer ----

CauseId loader(std::string_view words, std::optional<LibraryCopy> copy = std::nullopt) {
  return recognise_loader(words, copy);
}

TEST(RecogniseLoader, MissingLibraries) {
  EXPECT_EQ(loader("/x/probe.so: libc10.so: cannot open shared object file: No such file or directory"),
            CauseId::TorchNotFound);
  EXPECT_EQ(cause_info(CauseId::TorchNotFound).outcome, Outcome::TorchMissing);
  EXPECT_EQ(loader("libcudart.so.13: cannot open shared object file: No such file or directory"),
            CauseId::DependencyNotFound);
  EXPECT_EQ(loader("/opt/libtorch/lib/libcudnn.so.8: cannot open shared object file: No such file"),
            CauseId::DependencyNotFound);
  EXPECT_EQ(loader("libfoo.so: cannot open shared object file: No such file; "
                   "libc10_cuda.so: cannot open shared object file: No such file"),
            CauseId::TorchNotFound);
}

TEST(RecogniseLoader, ACopyTheLoaderSkippedIsTheCause) {
  const std::string words = "libc10.so: cannot open shared object file: No such file or directory";
  EXPECT_EQ(loader(words, LibraryCopy{"libc10.so", CopyState::NotReadable, std::nullopt}),
            CauseId::LibraryUnreadable);
  EXPECT_EQ(loader(words, LibraryCopy{"libc10.so", CopyState::OtherMachine, "aarch64"}),
            CauseId::WrongArchitecture);
  EXPECT_EQ(loader(words, LibraryCopy{"libc10.so", CopyState::Absent, std::nullopt}),
            CauseId::TorchNotFound);
  EXPECT_EQ(loader("/x/libc10.so: cannot open shared object file: Permission denied"),
            CauseId::LibraryUnreadable);
}

TEST(RecogniseLoader, TheLoadersWordsNameTheRest) {
  EXPECT_EQ(loader("/lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by "
                   "/x/libc10.so)"),
            CauseId::CxxRuntimeTooOld);
  EXPECT_EQ(loader("/lib/libstdc++.so.6: version `CXXABI_1.3.15' not found (required by /x/a.so)"),
            CauseId::CxxRuntimeTooOld);
  EXPECT_EQ(loader("/lib/libc.so.6: version `GLIBC_2.38' not found (required by /x/libc10.so)"),
            CauseId::CLibraryTooOld);
  EXPECT_EQ(loader("/x/libtorch_cpu.so: undefined symbol: _ZN3c10"), CauseId::MixedBuilds);
  EXPECT_EQ(loader("libc10.so: wrong ELF class: ELFCLASS32"), CauseId::WrongArchitecture);
  EXPECT_EQ(loader("/x/libc10.so: invalid ELF header"), CauseId::CorruptLibrary);
  EXPECT_EQ(loader("/x/libc10.so: file too short"), CauseId::CorruptLibrary);
  EXPECT_EQ(loader("/x/libc10.so: cannot read file data"), CauseId::CorruptLibrary);
  EXPECT_EQ(loader("something else entirely"), CauseId::LoaderError);
  EXPECT_EQ(loader(""), CauseId::LoaderError);
}

TEST(RecogniseLoader, RunningOutOfMemoryIsToldApart) {
  EXPECT_EQ(loader("libcodec2.so.1.0: failed to map segment from shared object"),
            CauseId::AddressSpaceLimit);
  EXPECT_EQ(loader("/x/libc10.so: cannot map zero-fill pages"), CauseId::AddressSpaceLimit);
  EXPECT_EQ(loader("/x/libgomp.so.1: cannot allocate memory in static TLS block"),
            CauseId::LoaderError);
}

// ---- the words ----

TEST(CauseWords, PlaceholdersAreFilledAndMissingOnesSaySo) {
  EXPECT_EQ(fill("a {x} b {y}.", {{"x", "1"}}), "a 1 b unknown.");
  EXPECT_EQ(fill("no placeholder", {}), "no placeholder");
  EXPECT_EQ(fill("open { only", {}), "open { only");
}

Facts facts_for(const Evidence* e, std::string_view words, std::string limits = "") {
  return cause_facts(FactSources{e, words, "cuda", "9.0", std::move(limits)}, Sanitizer({}));
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

TEST(CauseWords, TheAddressSpaceLimitIsNamed) {
  Cause c = cause_words(CauseId::AddressSpaceLimit,
                        facts_for(nullptr, "x: failed to map segment from shared object",
                                  "the address-space limit (ulimit -v) is 256 MiB"));
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

// The {name}s of a row's sentences.
std::vector<std::string> placeholders(std::string_view text) {
  std::vector<std::string> names;
  for (size_t open = text.find('{'); open != std::string_view::npos; open = text.find('{', open + 1)) {
    size_t close = text.find('}', open);
    if (close != std::string_view::npos) names.emplace_back(text.substr(open + 1, close - open - 1));
  }
  return names;
}

TEST(CauseWords, EveryPlaceholderOfEveryRowIsAFactTheCheckGives) {
  Evidence e = cuda_answer(803);
  e.device_nodes->nvidiactl = NodeState::NotAccessible;
  e.visible_devices->at(0).second = "-1";
  e.driver_library = "libcuda.so.550.54.15";
  e.kernel_module = "535.104.05";
  e.library = LibraryCopy{"libc10.so", CopyState::OtherMachine, "aarch64"};
  Facts f = facts_for(&e, "/lib/libc.so.6: version `GLIBC_2.99' not found (required by /x/libc10.so)",
                      "the address-space limit (ulimit -v) is 1 GiB");
  for (CauseId id : all_causes()) {
    const CauseInfo& c = cause_info(id);
    for (const auto& name : placeholders(std::string(c.what) + std::string(c.next_action))) {
      EXPECT_TRUE(f.count(name)) << c.key << " names {" << name << "}, which no fact gives";
    }
  }
}

}  // namespace
}  // namespace kd
