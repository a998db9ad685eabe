// Covers causes.hpp, the import layer: which cause the loader's words and the library copy it
// skipped are.
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

TEST(RecogniseDamagedLibrary, ADamagedFileTheImportNeedsIsACorruptLibrary) {
  LibraryCopy damaged("libc10.so", CopyState::Damaged);
  damaged.size = 680;
  damaged.needed_size = 1671216;
  damaged.damage = "truncated";
  EXPECT_EQ(recognise_damaged_library(damaged), CauseId::CorruptLibrary);
  EXPECT_FALSE(recognise_damaged_library(LibraryCopy("libc10.so", CopyState::Readable)));
  EXPECT_FALSE(recognise_damaged_library(LibraryCopy("libc10.so", CopyState::Absent)));
  // The loader's words of a missing library stay what they were beside such a copy.
  EXPECT_EQ(loader("libc10.so: cannot open shared object file: No such file or directory",
                   LibraryCopy("libc10.so", CopyState::Absent)),
            CauseId::TorchNotFound);
}

TEST(RecogniseLoader, RunningOutOfMemoryIsToldApart) {
  EXPECT_EQ(loader("libcodec2.so.1.0: failed to map segment from shared object"),
            CauseId::AddressSpaceLimit);
  EXPECT_EQ(loader("/x/libc10.so: cannot map zero-fill pages"), CauseId::AddressSpaceLimit);
  EXPECT_EQ(loader("/x/libgomp.so.1: cannot allocate memory in static TLS block"),
            CauseId::LoaderError);
}

}  // namespace
}  // namespace kd
