// Covers loader_error.hpp: which dlopen messages mean TORCH_MISSING and which TORCH_IMPORT_FAILED.
#include "loader_error.hpp"

#include <gtest/gtest.h>

namespace kd {
namespace {

TEST(LoaderError, MissingTorchLibraryIsTorchMissing) {
  EXPECT_EQ(classify_loader_error(
                "libtorch_cpu.so: cannot open shared object file: No such file or directory"),
            Outcome::TorchMissing);
  EXPECT_EQ(classify_loader_error(
                "libtorch.so: cannot open shared object file: No such file or directory"),
            Outcome::TorchMissing);
  EXPECT_EQ(classify_loader_error(
                "libcaffe2_nvrtc.so: cannot open shared object file: No such file or directory"),
            Outcome::TorchMissing);
}

TEST(LoaderError, MissingTorchDependencyOfTheProbeIsTorchMissing) {
  // What glibc says when the probe exists but libc10 is not on the path.
  EXPECT_EQ(classify_loader_error("/opt/kd/lib/kernodeck-diagnostic/libkernodeck_probe_torch.so: "
                                  "libc10.so: cannot open shared object file: No such file or "
                                  "directory"),
            Outcome::TorchMissing);
}

TEST(LoaderError, MissingNonTorchLibraryIsImportFailed) {
  // libtorch was found; its CUDA runtime was not.
  EXPECT_EQ(classify_loader_error("libcudart.so.12: cannot open shared object file: No such file "
                                  "or directory"),
            Outcome::TorchImportFailed);
  EXPECT_EQ(classify_loader_error("/x/libkernodeck_probe_torch.so: libamdhip64.so.6: cannot open "
                                  "shared object file: No such file or directory"),
            Outcome::TorchImportFailed);
}

TEST(LoaderError, AFolderNamedLibtorchDoesNotMakeItMissing) {
  EXPECT_EQ(classify_loader_error("/opt/libtorch/lib/libcudnn.so.8: cannot open shared object "
                                  "file: No such file or directory"),
            Outcome::TorchImportFailed);
}

TEST(LoaderError, TheLibraryThatCannotBeOpenedDecidesNotTheFirstNamed) {
  EXPECT_EQ(classify_loader_error("/opt/libtorch/lib/libtorch_cuda.so: libnvrtc.so.12: cannot "
                                  "open shared object file: No such file or directory"),
            Outcome::TorchImportFailed);
}

TEST(LoaderError, OtherLoaderFailuresAreImportFailed) {
  EXPECT_EQ(classify_loader_error("/x/libtorch_cpu.so: undefined symbol: _ZN3c106detail14torch_"
                                  "check_failEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_"
                                  "traitsIcESaIcEEE"),
            Outcome::TorchImportFailed);
  EXPECT_EQ(classify_loader_error("/x/libc10.so: wrong ELF class: ELFCLASS32"),
            Outcome::TorchImportFailed);
  EXPECT_EQ(classify_loader_error("/x/libkernodeck_probe_torch.so: invalid ELF header"),
            Outcome::TorchImportFailed);
  EXPECT_EQ(classify_loader_error(""), Outcome::TorchImportFailed);
  EXPECT_EQ(classify_loader_error(": cannot open shared object file"),
            Outcome::TorchImportFailed);
}

TEST(LoaderError, ASecondMissingLibraryInTheMessageIsLookedAt) {
  EXPECT_EQ(classify_loader_error("libfoo.so: cannot open shared object file: No such file; "
                                  "libc10_cuda.so: cannot open shared object file: No such file"),
            Outcome::TorchMissing);
}

TEST(LoaderError, RunningOutOfMemoryIsToldApart) {
  EXPECT_TRUE(loader_ran_out_of_memory(
      "libcodec2.so.1.0: failed to map segment from shared object"));
  EXPECT_TRUE(loader_ran_out_of_memory(
      "/x/libtorch_cpu.so: failed to map segment from shared object: Cannot allocate memory"));
  EXPECT_TRUE(loader_ran_out_of_memory("/x/libc10.so: cannot map zero-fill pages"));
  EXPECT_FALSE(loader_ran_out_of_memory(
      "/x/libgomp.so.1: cannot allocate memory in static TLS block"));
  EXPECT_FALSE(loader_ran_out_of_memory("/x/libc10.so: undefined symbol: _ZN3c10"));
  EXPECT_FALSE(loader_ran_out_of_memory(
      "libtorch.so: cannot open shared object file: No such file or directory"));
}

}  // namespace
}  // namespace kd
