// Covers loader_error.hpp: what is read from the loader's words (which
// library, which version, which needs it), file names only. Which cause that
// is, causes_import_test.cpp covers.
#include "facts/loader_error.hpp"

#include <gtest/gtest.h>

namespace kd {
namespace {

TEST(LoaderWords, TheLibraryThatCannotBeOpened) {
  EXPECT_EQ(read_loader_words("/opt/kd/lib/kernodeck-diagnostic/libkernodeck_probe_torch.so: "
                              "libc10.so: cannot open shared object file: No such file or directory")
                .missing,
            "libc10.so");
  EXPECT_EQ(read_loader_words("/opt/libtorch/lib/libcudnn.so.8: cannot open shared object file: "
                              "No such file or directory")
                .missing,
            "libcudnn.so.8");
  EXPECT_EQ(read_loader_words("/opt/libtorch/lib/libtorch_cuda.so: libnvrtc.so.12: cannot open "
                              "shared object file: No such file or directory")
                .missing,
            "libnvrtc.so.12");
  EXPECT_EQ(read_loader_words("/x/libc10.so: undefined symbol: _ZN3c10").missing, "");
  EXPECT_EQ(read_loader_words(": cannot open shared object file").missing, "");
}

TEST(LoaderWords, ALibtorchLibraryInAChainIsTheOneNamed) {
  EXPECT_EQ(read_loader_words("libfoo.so: cannot open shared object file: No such file; "
                              "libc10_cuda.so: cannot open shared object file: No such file")
                .missing,
            "libc10_cuda.so");
}

TEST(LoaderWords, AVersionNeededAndWhoNeedsIt) {
  LoaderWords w = read_loader_words(
      "/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by "
      "/usr/lib/x86_64-linux-gnu/libc10.so)");
  EXPECT_EQ(w.needed, "GLIBCXX_3.4.32");
  EXPECT_EQ(w.needer, "libc10.so");
  EXPECT_EQ(w.provider, "libstdc++.so.6");
}

TEST(LoaderWords, UndefinedSymbolAndWrongClass) {
  EXPECT_EQ(read_loader_words("/x/libtorch_cpu.so: undefined symbol: _ZN3c10").needer,
            "libtorch_cpu.so");
  EXPECT_EQ(read_loader_words("/x/libtorch_cpu.so: undefined symbol: _ZN3c10").symbol, "_ZN3c10");
  EXPECT_EQ(read_loader_words("/x/libc10.so: undefined symbol: _ZTVN10__cxxabiv117__class_type_infoE, "
                              "version ").symbol,
            "_ZTVN10__cxxabiv117__class_type_infoE");
  EXPECT_EQ(read_loader_words("/x/libc10.so: file too short").symbol, "");
  // The version a symbol was asked of names the library that should have had it.
  LoaderWords v = read_loader_words(
      "/w/nvidia/cu13/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_13_2, version "
      "libnvJitLink.so.13");
  EXPECT_EQ(v.symbol, "__nvJitLinkAddData_13_2");
  EXPECT_EQ(v.symbol_version, "libnvJitLink.so.13");
  EXPECT_EQ(v.needer, "libcusparse.so.12");
  EXPECT_EQ(read_loader_words("/x/libc10.so: undefined symbol: _ZN3c10").symbol_version, "");
  LoaderWords w = read_loader_words("libc10.so: wrong ELF class: ELFCLASS32");
  EXPECT_EQ(w.subject, "libc10.so");
  EXPECT_EQ(w.elf_class, "ELFCLASS32");
}

TEST(LoaderWords, TorchLibrariesByName) {
  EXPECT_TRUE(is_torch_library("libtorch_cpu.so"));
  EXPECT_TRUE(is_torch_library("libc10_cuda.so"));
  EXPECT_TRUE(is_torch_library("libcaffe2_nvrtc.so"));
  EXPECT_FALSE(is_torch_library("libcudart.so.13"));
  EXPECT_FALSE(is_torch_library(""));
}

TEST(LoaderWords, RunningOutOfMemoryIsToldApart) {
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
