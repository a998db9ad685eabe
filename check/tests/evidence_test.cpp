// Covers evidence.hpp: the shapes of visibility variables (never their values),
// the versions read from files and names, the evidence's JSON and what the
// parent refuses of it, device nodes and library copies read from a folder.
#include "facts/evidence.hpp"

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
  DeviceCgroup c;
  c.hierarchy = "v1";
  c.devices_list = "denies";
  c.nvidiactl = true;
  c.nvidia_gpus = 1;
  e.device_cgroup = c;
  e.user_namespace = UserNamespace{false, 1};
  DriverFiles d;
  d.libcuda_so_1 = true;
  d.libcuda_file = "libcuda.so";
  d.libcuda_folder = "stubs";
  d.libnvidia_ml_so_1 = true;
  e.driver_files = d;
  e.wsl_kernel = false;
  e.rocm = RocmFacts{std::string("gfx1031"), std::string("version")};
  return e;
}

TEST(EvidenceJson, EveryKeyAlwaysNullWhereNotLookedAt) {
  auto j = evidence_json(Evidence{});
  EXPECT_EQ(j.dump(), "{\"runtime\":null,\"driver_library\":null,\"kernel_module\":null,"
                      "\"device_nodes\":null,\"visible_devices\":null,\"library\":null,"
                      "\"device_cgroup\":null,\"user_namespace\":null,\"driver_files\":null,"
                      "\"wsl_kernel\":null,\"rocm\":null}");
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
                                 "\"size\":680,\"needed_size\":1671216,\"damage\":\"truncated\","
                                 "\"folder\":null}");
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
  EXPECT_TRUE(refused("/library/folder", "/usr/local/cuda/lib64"));
  EXPECT_TRUE(refused("/device_nodes/dxg", "open"));
  EXPECT_TRUE(refused("/device_cgroup/hierarchy", "v3"));
  EXPECT_TRUE(refused("/device_cgroup/nvidiactl_refused", "yes"));
  EXPECT_TRUE(refused("/device_cgroup/path", "/sys/fs/cgroup/devices/x"));
  EXPECT_TRUE(refused("/user_namespace/gid_map", "0 1000 1"));
  EXPECT_TRUE(refused("/driver_files/libcuda_file", "/usr/local/cuda/lib64/stubs/libcuda.so"));
  EXPECT_TRUE(refused("/driver_files/libcuda_folder", "lib64"));
  EXPECT_TRUE(refused("/wsl_kernel", "5.15.153.1-microsoft-standard-WSL2"));
  EXPECT_TRUE(refused("/rocm/hsa_override_gfx_version", "10.3.0"));
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

TEST(DevicesList, WhatACgroupV1ListAllows) {
  EXPECT_TRUE(devices_list_allows("a *:* rwm\n", 195, 255));
  const std::string runc = "c *:* m\nb *:* m\nc 1:3 rwm\nc 1:5 rwm\nc 136:* rwm\nc 5:2 rwm\n";
  EXPECT_FALSE(devices_list_allows(runc, 195, 255));
  EXPECT_TRUE(devices_list_allows(runc, 1, 3));
  EXPECT_TRUE(devices_list_allows(runc + "c 195:* rw\n", 195, 0));
  EXPECT_FALSE(devices_list_allows("c 195:* r\n", 195, 0));  // reading alone is not enough
  EXPECT_FALSE(devices_list_allows("c 195:0 rw\n", 195, 1));
  EXPECT_FALSE(devices_list_allows("b 195:* rwm\n", 195, 0));
  EXPECT_FALSE(devices_list_allows("", 195, 0));
}

TEST(DevicesCgroupFolder, WhereTheHierarchyIsMountedAndItsRoot) {
  const std::string mountinfo =
      "30 24 0:26 / /sys/fs/cgroup/devices rw,nosuid shared:13 - cgroup cgroup rw,devices\n"
      "31 24 0:27 / /sys/fs/cgroup/memory rw,nosuid shared:14 - cgroup cgroup rw,memory\n";
  EXPECT_EQ(devices_cgroup_folder("5:devices:/kd-case\n4:memory:/\n", mountinfo),
            "/sys/fs/cgroup/devices/kd-case");
  EXPECT_EQ(devices_cgroup_folder("5:devices:/\n", mountinfo), "/sys/fs/cgroup/devices");
  // A container sees its own cgroup as the mount's root.
  const std::string container =
      "900 800 0:26 /docker/abc /sys/fs/cgroup/devices ro - cgroup cgroup rw,devices\n";
  EXPECT_EQ(devices_cgroup_folder("5:devices:/docker/abc\n", container), "/sys/fs/cgroup/devices");
  // cgroup v2 alone: no devices hierarchy.
  EXPECT_EQ(devices_cgroup_folder("0::/user.slice\n",
                                  "30 24 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"),
            "");
}

TEST(GidMap, WhatAUserNamespaceMaps) {
  EXPECT_TRUE(gid_map_is_identity("         0          0 4294967295\n"));
  EXPECT_FALSE(gid_map_is_identity("         0    1234567          1\n"));
  EXPECT_TRUE(gid_map_covers("0 1234567 1\n", 0));
  EXPECT_FALSE(gid_map_covers("0 1234567 1\n", 65534));
  EXPECT_TRUE(gid_map_covers("0 1000 1\n1 100000 65536\n", 65534));
  EXPECT_FALSE(gid_map_covers("zero one two\n99999999999999999999 0 1\n", 0));  // no throw
}

TEST(GfxTarget, TheKfdVersionAsATargetsName) {
  EXPECT_EQ(gfx_target_name(90010), "gfx90a");
  EXPECT_EQ(gfx_target_name(90402), "gfx942");
  EXPECT_EQ(gfx_target_name(100301), "gfx1031");
  EXPECT_EQ(gfx_target_name(110000), "gfx1100");
  EXPECT_FALSE(gfx_target_name(0));
  EXPECT_EQ(gfx_override_shape("10.3.0"), "version");
  EXPECT_EQ(gfx_override_shape(" "), "empty");
  EXPECT_EQ(gfx_override_shape("/tmp/x"), "other");
}

TEST(GfxTarget, ReadFromAKfdTopology) {
  test::TempDir sys;
  const std::string nodes = sys.file("class/kfd/kfd/topology/nodes");
  for (const char* n : {"0", "1"}) {
    ASSERT_EQ(system(("mkdir -p " + nodes + "/" + n).c_str()), 0);
  }
  std::ofstream(nodes + "/0/properties") << "cpu_cores_count 16\ngfx_target_version 0\n";
  std::ofstream(nodes + "/1/properties") << "simd_count 40\ngfx_target_version 100301\nmax_waves 32\n";
  EXPECT_EQ(rocm_facts(0, sys.path()).gfx_target, "gfx1031");
  EXPECT_FALSE(rocm_facts(0, sys.file("none")).gfx_target);
}

TEST(LibraryPathRole, ACudaToolkitsFolderByItsShape) {
  EXPECT_EQ(library_path_role("/usr/local/cuda/lib64"), "cuda_toolkit");
  EXPECT_EQ(library_path_role("/usr/local/cuda-13.0/lib64/"), "cuda_toolkit");
  EXPECT_EQ(library_path_role("/opt/cuda/targets/x86_64-linux/lib"), "cuda_toolkit");
  EXPECT_EQ(library_path_role("/usr/local/lib"), "ld_library_path");
  EXPECT_EQ(library_path_role("/home/me/cuda-tools/lib64"), "ld_library_path");
}

TEST(DriverFilesIn, TheLinkTheVersionedFileAndNvml) {
  test::TempDir a, b;
  EXPECT_FALSE(driver_files_in({a.path()}).libcuda_so_1);
  touch(b.file("libcuda.so.550.54.15"), 0644);
  DriverFiles d = driver_files_in({a.path(), b.path()});
  EXPECT_FALSE(d.libcuda_so_1);
  EXPECT_EQ(d.libcuda_version_without_link, "550.54.15");
  ASSERT_EQ(symlink("libcuda.so.550.54.15", b.file("libcuda.so.1").c_str()), 0);
  d = driver_files_in({a.path(), b.path()});
  EXPECT_TRUE(d.libcuda_so_1);
  EXPECT_EQ(d.libcuda_file, "libcuda.so.550.54.15");
  EXPECT_EQ(d.libcuda_folder, "other");
  EXPECT_FALSE(d.libcuda_version_without_link);
  mkdir(a.file("stubs").c_str(), 0755);
  touch(a.file("stubs/libcuda.so"), 0644);
  ASSERT_EQ(symlink((a.file("stubs") + "/libcuda.so").c_str(), a.file("libcuda.so.1").c_str()), 0);
  touch(a.file("libnvidia-ml.so.1"), 0644);
  d = driver_files_in({a.path(), b.path()});
  EXPECT_EQ(d.libcuda_file, "libcuda.so");
  EXPECT_EQ(d.libcuda_folder, "stubs");
  EXPECT_TRUE(d.libnvidia_ml_so_1);
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
