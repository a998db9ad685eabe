// Covers evidence.hpp: the shapes of visibility variables (never their values),
// the versions read from files and names, the evidence's JSON and what the
// parent refuses of it, device nodes and library copies read from a folder.
#include "evidence.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "util/tests/temp_dir.hpp"
#include "util/elf.hpp"

namespace kd {
namespace {

TEST(VisibilityShape, NamesTheShapeNeverTheValue) {
  EXPECT_EQ(visibility_shape(""), "empty");
  EXPECT_EQ(visibility_shape("  "), "empty");
  EXPECT_EQ(visibility_shape("-1"), "-1");
  EXPECT_EQ(visibility_shape("-1,0"), "-1");
  EXPECT_EQ(visibility_shape("void"), "void");
  EXPECT_EQ(visibility_shape("NONE"), "none");
  EXPECT_EQ(visibility_shape("all"), "all");
  EXPECT_EQ(visibility_shape("0"), "index_list");
  EXPECT_EQ(visibility_shape("0,2,3"), "index_list");
  EXPECT_EQ(visibility_shape("GPU-8f2c1e9a-3b4d-4c5e-9f60-7a8b9c0d1e2f"), "uuid_list");
  EXPECT_EQ(visibility_shape("GPU-8f2c1e9a,MIG-1a2b3c4d/1/0"), "uuid_list");
  EXPECT_EQ(visibility_shape("/home/alice/secret"), "other");
  EXPECT_EQ(visibility_shape("0,GPU-1234"), "other");
}

TEST(RuntimeVersions, CudaAndHipNumbersAsVersions) {
  EXPECT_EQ(runtime_version_text("cuda", 13020), "13.2");
  EXPECT_EQ(runtime_version_text("cuda", 11080), "11.8");
  EXPECT_EQ(runtime_version_text("hip", 60241133), "6.2");
  EXPECT_FALSE(runtime_version_text("cuda", 0));
  EXPECT_FALSE(runtime_version_text("cuda", -1));
}

TEST(RuntimeAnswerOf, TheProbesStatusInTheReportsWords) {
  kd_runtime_status s{};
  EXPECT_FALSE(runtime_answer(s));
  s.api = KD_API_CUDA;
  s.error_number = 803;
  s.driver_version = 0;
  s.runtime_version = 13020;
  std::strcpy(s.error_name, "cudaErrorSystemDriverMismatch");
  auto r = runtime_answer(s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->api, "cuda");
  EXPECT_EQ(r->error, 803);
  EXPECT_EQ(r->error_name, "cudaErrorSystemDriverMismatch");
  EXPECT_FALSE(r->driver_version);
  EXPECT_EQ(r->runtime_version, "13.2");
  std::strcpy(s.error_name, "not a token/");
  EXPECT_EQ(runtime_answer(s)->error_name, "");
}

TEST(KernelModuleVersion, BothKindsOfModule) {
  EXPECT_EQ(kernel_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  "
                                  "Sat Aug 19 01:15:15 UTC 2023\nGCC version:  gcc 12\n"),
            "535.104.05");
  EXPECT_EQ(kernel_module_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                                  "550.54.15  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Mar  "
                                  "5 19:55:11 UTC 2024\n"),
            "550.54.15");
  EXPECT_FALSE(kernel_module_version("GCC version: 12.2.0\n"));
  EXPECT_FALSE(kernel_module_version(""));
}

TEST(LibraryFileVersion, TheDriversVersionNotItsSoname) {
  EXPECT_EQ(library_file_version("libcuda.so.550.54.15"), "550.54.15");
  EXPECT_FALSE(library_file_version("libcuda.so.1"));
  EXPECT_FALSE(library_file_version("libcuda.so"));
}

Evidence full() {
  Evidence e;
  e.runtime = RuntimeAnswer{"cuda", 803, "cudaErrorSystemDriverMismatch", std::string("13.2"),
                            std::string("13.2")};
  e.driver_library = "libcuda.so.550.54.15";
  e.kernel_module = "535.104.05";
  DeviceNodes n;
  n.nvidia_gpus = 2;
  n.nvidia_gpus_accessible = 1;
  n.nvidiactl = NodeState::NotAccessible;
  e.device_nodes = n;
  VisibleDevices v;
  for (const auto& name : visibility_variables()) v.emplace_back(name, std::nullopt);
  v[0].second = "uuid_list";
  e.visible_devices = v;
  e.library = LibraryCopy{"libc10.so", CopyState::OtherMachine, "aarch64"};
  return e;
}

TEST(EvidenceJson, EveryKeyAlwaysNullWhereNotLookedAt) {
  auto j = evidence_json(Evidence{});
  EXPECT_EQ(j.dump(), "{\"runtime\":null,\"driver_library\":null,\"kernel_module\":null,"
                      "\"device_nodes\":null,\"visible_devices\":null,\"library\":null}");
  j = evidence_json(full());
  EXPECT_EQ(j["device_nodes"]["nvidiactl"], "not_accessible");
  EXPECT_EQ(j["visible_devices"]["CUDA_VISIBLE_DEVICES"], "uuid_list");
  EXPECT_TRUE(j["visible_devices"]["HIP_VISIBLE_DEVICES"].is_null());
  EXPECT_EQ(j["library"]["found"], "other_machine");
}

TEST(EvidenceJson, RoundTrips) {
  std::string problem;
  auto back = evidence_from_json(nlohmann::json::parse(evidence_json(full()).dump()), problem);
  ASSERT_TRUE(back) << problem;
  EXPECT_EQ(evidence_json(*back).dump(), evidence_json(full()).dump());
  back = evidence_from_json(nlohmann::json::parse(evidence_json(Evidence{}).dump()), problem);
  ASSERT_TRUE(back) << problem;
}

TEST(EvidenceJson, ADamagedLibraryKeepsItsSizesAndHowItIsDamaged) {
  Evidence e;
  e.library = LibraryCopy("libc10.so", CopyState::Damaged);
  e.library->size = 680;
  e.library->needed_size = 1671216;
  e.library->damage = "truncated";
  auto j = evidence_json(e);
  EXPECT_EQ(j["library"].dump(), "{\"name\":\"libc10.so\",\"found\":\"damaged\",\"machine\":null,"
                                 "\"size\":680,\"needed_size\":1671216,\"damage\":\"truncated\"}");
  std::string problem;
  auto back = evidence_from_json(nlohmann::json::parse(j.dump()), problem);
  ASSERT_TRUE(back) << problem;
  EXPECT_EQ(evidence_json(*back).dump(), j.dump());
  // A missing library's copy has no sizes.
  EXPECT_TRUE(evidence_json(full())["library"]["size"].is_null());
  auto refused = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json bad = nlohmann::json::parse(j.dump());
    bad["library"][key] = value;
    std::string why;
    return !evidence_from_json(bad, why) && !why.empty();
  };
  EXPECT_TRUE(refused("damage", "shredded"));
  EXPECT_TRUE(refused("size", -1));
  EXPECT_TRUE(refused("needed_size", "1671216"));
  EXPECT_TRUE(refused("extra", 1));
}

// The parent takes nothing but the evidence the check writes.
TEST(EvidenceJson, ThePathsAndValuesOfAConfusedWorkerAreRefused) {
  auto refused = [](const std::string& pointer, const nlohmann::json& value) {
    nlohmann::json j = nlohmann::json::parse(evidence_json(full()).dump());
    j[nlohmann::json::json_pointer(pointer)] = value;
    std::string problem;
    return !evidence_from_json(j, problem) && !problem.empty();
  };
  EXPECT_TRUE(refused("/driver_library", "/usr/lib/libcuda.so.550"));
  EXPECT_TRUE(refused("/kernel_module", "535 built by alice@host"));
  EXPECT_TRUE(refused("/visible_devices/CUDA_VISIBLE_DEVICES", "GPU-1234"));
  EXPECT_TRUE(refused("/device_nodes/nvidiactl", "open"));
  EXPECT_TRUE(refused("/device_nodes/nvidia_gpus", -1));
  EXPECT_TRUE(refused("/runtime/api", "metal"));
  EXPECT_TRUE(refused("/runtime/extra", 1));
  EXPECT_TRUE(refused("/library/name", "/opt/x/libc10.so"));
  EXPECT_TRUE(refused("/library/found", "somewhere"));
  EXPECT_TRUE(refused("/cwd", "/home/alice"));
  std::string problem;
  EXPECT_FALSE(evidence_from_json(nlohmann::json::array(), problem));
}

void touch(const std::string& path, mode_t mode) {
  std::ofstream(path) << "x";
  chmod(path.c_str(), mode);
}

TEST(DeviceNodesOf, CountsNodesByName) {
  test::TempDir dev;
  touch(dev.file("nvidiactl"), 0666);
  touch(dev.file("nvidia0"), 0666);
  touch(dev.file("nvidia1"), 0666);
  touch(dev.file("nvidia-modeset"), 0666);  // not a GPU
  mkdir(dev.file("dri").c_str(), 0755);
  touch(dev.file("dri/renderD128"), 0666);
  touch(dev.file("dri/card0"), 0666);
  DeviceNodes n = read_device_nodes(dev.path());
  EXPECT_EQ(n.nvidiactl, NodeState::Accessible);
  EXPECT_EQ(n.nvidia_uvm, NodeState::Absent);
  EXPECT_EQ(n.nvidia_gpus, 2);
  EXPECT_EQ(n.nvidia_gpus_accessible, 2);
  EXPECT_EQ(n.kfd, NodeState::Absent);
  EXPECT_EQ(n.render_nodes, 1);
  if (geteuid() != 0) {  // root may open anything: the suite shows it as nobody
    chmod(dev.file("nvidia0").c_str(), 0600);
    chmod(dev.file("nvidiactl").c_str(), 0);
    n = read_device_nodes(dev.path());
    EXPECT_EQ(n.nvidiactl, NodeState::NotAccessible);
  }
}

// A file whose header says ELF of `machine`, 64-bit, little-endian.
void elf_file(const std::string& path, unsigned machine) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_machine = static_cast<Elf64_Half>(machine);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(&eh), sizeof eh);
}

TEST(FindLibraryCopy, TheFirstCopyWhereTheLoaderLooks) {
  test::TempDir a, b;
  EXPECT_EQ(find_library_copy("libc10.so", {a.path(), b.path()}).found, CopyState::Absent);
  elf_file(b.file("libc10.so"), EM_AARCH64 == host_elf_machine() ? EM_X86_64 : EM_AARCH64);
  LibraryCopy c = find_library_copy("libc10.so", {a.path(), b.path()});
  EXPECT_EQ(c.found, CopyState::OtherMachine);
  EXPECT_EQ(c.machine, elf_machine_name(EM_AARCH64 == host_elf_machine() ? EM_X86_64 : EM_AARCH64));
  elf_file(a.file("libc10.so"), host_elf_machine());
  EXPECT_EQ(find_library_copy("libc10.so", {a.path(), b.path()}).found, CopyState::Readable);
}

TEST(LoaderFolders, TheLibraryPathFirstThenTheSystemsFolders) {
  const char* saved = getenv("LD_LIBRARY_PATH");
  std::string keep = saved != nullptr ? saved : "";
  setenv("LD_LIBRARY_PATH", "/kd/one::/kd/two", 1);
  auto folders = loader_folders("/no/such/probe.so");
  if (saved != nullptr) setenv("LD_LIBRARY_PATH", keep.c_str(), 1); else unsetenv("LD_LIBRARY_PATH");
  ASSERT_GE(folders.size(), 3u);
  EXPECT_EQ(folders[0], "/kd/one");
  EXPECT_EQ(folders[1], "/kd/two");
  EXPECT_EQ(folders.back(), "/usr/lib");
}

}  // namespace
}  // namespace kd
