// Covers causes.hpp, the device and compute layers: which cause each runtime answer, device
// node, visibility variable, cgroup and driver file is, and a library shadowed from the
// library path.
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

// ---- the device layer ----

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


// ---- the causes users meet most ----

TEST(RecogniseDevice, TheDeviceCgroupsRefusalIsNotTheUsers) {
  for (int error : {100, 999, 3, 304}) {
    Evidence e = cuda_answer(error);
    e.device_nodes->nvidiactl = e.device_nodes->nvidia_uvm = NodeState::NotAccessible;
    e.device_nodes->nvidia_gpus_accessible = 0;
    e.device_cgroup = v1_cgroup_refusing_all();
    EXPECT_EQ(device(e), CauseId::DeviceCgroupDenied) << error;
    // The same nodes refused by their mode are the user's.
    e.device_cgroup = DeviceCgroup{};
    EXPECT_EQ(device(e), CauseId::DeviceNodesNotAccessible) << error;
  }
}

TEST(RecogniseDevice, EveryGpuRefusedTheControlNodeOpenIsNoGpuGranted) {
  Evidence e = cuda_answer(100);
  e.device_nodes->nvidia_gpus = 2;
  e.device_nodes->nvidia_gpus_accessible = 0;
  DeviceCgroup c;
  c.nvidia_gpus = 2;
  e.device_cgroup = c;
  EXPECT_EQ(device(e), CauseId::NoGpuGranted);
  // Only some GPUs refused, the control node open: a job given other GPUs, no fault, no cause.
  e.device_nodes->nvidia_gpus_accessible = 1;
  e.device_cgroup->nvidia_gpus = 1;
  EXPECT_EQ(device(e), CauseId::NoDevice);
  e.visible_devices->at(0).second = "index_list";
  EXPECT_EQ(device(e), CauseId::GpusHidden);
}

TEST(RecogniseDevice, HipsControlNodeIsKfd) {
  Evidence e;
  e.runtime = RuntimeAnswer{"hip", 100, "hipErrorNoDevice", std::string("6.2"), std::string("6.2")};
  DeviceNodes n;
  n.kfd = NodeState::NotAccessible;
  n.render_nodes = 1;
  e.device_nodes = n;
  DeviceCgroup c;
  c.kfd = true;
  c.render_nodes = 1;
  e.device_cgroup = c;
  EXPECT_EQ(device(e), CauseId::DeviceCgroupDenied);
}

TEST(RecogniseDevice, AGroupTheUserNamespaceLacks) {
  Evidence e = cuda_answer(100);
  e.device_nodes->nvidiactl = NodeState::NotAccessible;
  e.device_nodes->nvidia_gpus_accessible = 0;
  e.user_namespace = UserNamespace{false, 2};
  EXPECT_EQ(device(e), CauseId::NodeGroupUnmapped);
  e.user_namespace = UserNamespace{true, 0};
  EXPECT_EQ(device(e), CauseId::DeviceNodesNotAccessible);
}

TEST(RecogniseDevice, TheStubDriverByItsNumberAndItsFile) {
  Evidence e = cuda_answer(34, std::nullopt);
  DriverFiles stub;
  stub.libcuda_so_1 = true;
  stub.libcuda_file = "libcuda.so";
  stub.libcuda_folder = "stubs";
  e.driver_files = stub;
  EXPECT_EQ(device(e), CauseId::StubDriver);
  e.driver_files->libcuda_folder = "other";
  e.driver_files->libcuda_file = "libcuda.so.1";  // unversioned: a copy of the stub
  EXPECT_EQ(device(e), CauseId::StubDriver);
  // A driver with its version in its name answering 34 is not named a stub.
  e.driver_files->libcuda_file = "libcuda.so.550.54.15";
  EXPECT_EQ(device(e), CauseId::GpuUnavailable);
  e.driver_files.reset();
  EXPECT_EQ(device(e), CauseId::GpuUnavailable);
}

TEST(RecogniseDevice, NoDriverVersionTheFilesSayWhichPartIsMissing) {
  Evidence e = cuda_answer(35, std::nullopt);
  DriverFiles files;
  files.libcuda_version_without_link = "550.54.15";
  e.driver_files = files;
  EXPECT_EQ(device(e), CauseId::DriverLinkMissing);
  e.driver_files = DriverFiles{};
  e.driver_files->libnvidia_ml_so_1 = true;
  EXPECT_EQ(device(e), CauseId::DriverCapabilityMissing);
  // Without the GPUs' nodes, NVML alone is not the capability's sign.
  e.device_nodes = DeviceNodes{};
  EXPECT_EQ(device(e), CauseId::NoDriver);
  e = cuda_answer(35, std::nullopt);
  e.driver_files = DriverFiles{};
  EXPECT_EQ(device(e), CauseId::NoDriver);
}

TEST(RecogniseDevice, UuidsWithoutNodesAreTheDevicePluginWithoutTheRuntime) {
  for (int error : {35, 100, 999, 3}) {
    Evidence e = cuda_answer(error, std::nullopt);
    e.device_nodes = DeviceNodes{};
    e.visible_devices->at(1).second = "uuid_list";
    EXPECT_EQ(device(e), CauseId::GpusWithoutNvidiaRuntime) << error;
    e.visible_devices->at(1).second = "all";  // every CUDA base image sets it
    EXPECT_NE(device(e), CauseId::GpusWithoutNvidiaRuntime) << error;
  }
}

TEST(RecogniseDevice, Wsl2HasNoNvidiaNodes) {
  Evidence e = cuda_answer(35, std::nullopt);
  e.device_nodes = DeviceNodes{};
  e.device_nodes->dxg = NodeState::Accessible;
  e.wsl_kernel = true;
  EXPECT_EQ(device(e), CauseId::WslGpuNotReached);
  e.wsl_kernel = false;
  EXPECT_EQ(device(e), CauseId::NoDriver);
  e = cuda_answer(100);
  e.device_nodes = DeviceNodes{};
  e.wsl_kernel = true;
  EXPECT_EQ(device(e), CauseId::WslGpuNotReached);
}

TEST(RecogniseCompute, RocmArchitectureAndPtx) {
  Evidence e;
  e.runtime = RuntimeAnswer{"hip", 98, "hipErrorInvalidDeviceFunction", std::nullopt, std::nullopt};
  EXPECT_FALSE(recognise_compute(e));  // the target unknown: the backend's error stands
  e.rocm = RocmFacts{std::string("gfx1031"), std::nullopt};
  EXPECT_EQ(recognise_compute(e), CauseId::RocmArchitectureMissing);
  e.runtime->error = 209;
  EXPECT_EQ(recognise_compute(e), CauseId::RocmArchitectureMissing);
  e.rocm.reset();
  EXPECT_EQ(recognise_compute(e), CauseId::NoKernelImage);
  EXPECT_EQ(recognise_compute(cuda_answer(222)), CauseId::PtxTooNew);
  EXPECT_FALSE(recognise_compute(cuda_answer(98)));  // 98 of CUDA is another error
}

TEST(RecogniseShadowing, AVersionedLibraryFromTheLibraryPath) {
  const std::string words =
      "/w/nvidia/cu13/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_13_2, version "
      "libnvJitLink.so.13";
  LibraryCopy taken("libnvJitLink.so.13", CopyState::Readable);
  taken.folder = "cuda_toolkit";
  EXPECT_EQ(recognise_shadowing(words, taken), CauseId::CudaLibraryShadowed);
  taken.folder = "ld_library_path";
  EXPECT_EQ(recognise_shadowing(words, taken), CauseId::CudaLibraryShadowed);
  // Taken from its own folders, the library is not shadowed: the words keep their cause.
  taken.folder = "own_path";
  EXPECT_FALSE(recognise_shadowing(words, taken));
  taken.folder = "system";
  EXPECT_FALSE(recognise_shadowing(words, taken));
  // libtorch's own libraries shadowing each other are builds mixed.
  LibraryCopy c10("libc10.so", CopyState::Readable);
  c10.folder = "ld_library_path";
  EXPECT_FALSE(recognise_shadowing("/x/libtorch_cpu.so: undefined symbol: _ZN3c10, version libc10.so",
                                   c10));
  EXPECT_FALSE(recognise_shadowing("/x/libtorch_cpu.so: undefined symbol: _ZN3c10", taken));
  // Without the copy, the worker's answer is what it was.
  EXPECT_EQ(recognise_loader(words, std::nullopt), CauseId::MixedBuilds);
}

}  // namespace
}  // namespace kd
