// Covers util/files.hpp: whole writes, bounded reads, names that exist, folders, file names, a
// wheel's metadata folder, the PATH lookup and names.
#include "util/files.hpp"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>
#include <string>

namespace kd {
namespace {

class Files : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/kd-util-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string write(const std::string& name, const std::string& content) {
    std::string path = dir_ + "/" + name;
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    EXPECT_GE(fd, 0) << path;
    EXPECT_EQ(write_all(fd, content), 0);
    close(fd);
    return path;
  }
  std::string dir_;
};

TEST_F(Files, WriteAllThenReadFileRoundTrips) {
  std::string big(300 * 1024, 'x');
  big[12345] = '\0';
  EXPECT_EQ(read_file(write("big", big)), big);
  EXPECT_EQ(read_file(write("empty", "")), "");
}

TEST_F(Files, ReadFileStopsAtTheLimit) {
  EXPECT_EQ(read_file(write("f", "0123456789"), 4), "0123");
  EXPECT_EQ(read_file(dir_ + "/f", 0), "");
}

// The limit is a bound, not a size to allocate: a reader that reserves it
// first fails here (length_error) instead of returning the file.
TEST_F(Files, ReadFileNeverAllocatesTheLimitUpFront) {
  const std::string path = write("small", "hello");
  EXPECT_EQ(read_file(path, std::numeric_limits<std::size_t>::max()), "hello");
  EXPECT_EQ(read_file(path, std::size_t{1} << 40), "hello");
}

TEST_F(Files, ReadFileOfNothingIsNullopt) {
  EXPECT_EQ(read_file(dir_ + "/missing"), std::nullopt);
}

TEST_F(Files, ReadTextIsTheBoundedTextOrNothing) {
  EXPECT_EQ(read_text(write("f", "0123456789"), 4), "0123");
  EXPECT_EQ(read_text(dir_ + "/f", kWholeFile), "0123456789");
  EXPECT_EQ(read_text(dir_ + "/missing"), "");
}

TEST(WriteAll, ReportsTheErrnoOfAFailedWrite) {
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(write_all(fd, "x"), EBADF);
  close(fd);
  int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (full >= 0) {
    EXPECT_EQ(write_all(full, "x"), ENOSPC);
    close(full);
  }
  EXPECT_EQ(write_all(fd, ""), 0) << "nothing to write is no failure";
}

TEST_F(Files, FolderEntriesAreSortedWithoutDots) {
  write("b", "");
  write("a", "");
  EXPECT_EQ(folder_entries(dir_), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(folder_entries(dir_ + "/missing").empty());
}

TEST_F(Files, PathExistsForAnyNameEvenADanglingLink) {
  write("file", "");
  ASSERT_EQ(symlink((dir_ + "/nowhere").c_str(), (dir_ + "/dangling").c_str()), 0);
  EXPECT_TRUE(path_exists(dir_ + "/file"));
  EXPECT_TRUE(path_exists(dir_));
  EXPECT_TRUE(path_exists(dir_ + "/dangling"));
  EXPECT_FALSE(path_exists(dir_ + "/nowhere"));
  EXPECT_FALSE(path_exists(dir_ + "/file/below"));
}

TEST(DirnameOf, TheFolderPart) {
  EXPECT_EQ(dirname_of("/usr/bin/kernodeck-diagnostic"), "/usr/bin");
  EXPECT_EQ(dirname_of("/kernodeck-diagnostic"), "/");
  EXPECT_EQ(dirname_of("kernodeck-diagnostic"), ".");
  EXPECT_EQ(dirname_of("bin/"), "bin");
}

TEST(FileName, ThePartAfterTheLastSlash) {
  EXPECT_EQ(file_name("/usr/lib/libc10.so"), "libc10.so");
  EXPECT_EQ(file_name("libc10.so"), "libc10.so");
  EXPECT_EQ(file_name("/libc10.so"), "libc10.so");
  EXPECT_EQ(file_name("lib/"), "");
  EXPECT_EQ(file_name(""), "");
}

TEST(IsDistInfo, AWheelsMetadataFolderAndNothingElse) {
  EXPECT_TRUE(is_dist_info("torch-2.10.0.dist-info"));
  EXPECT_TRUE(is_dist_info("x.dist-info"));
  EXPECT_FALSE(is_dist_info(".dist-info")) << "the suffix alone names no distribution";
  EXPECT_FALSE(is_dist_info("torch-2.10.0.dist-info/RECORD"));
  EXPECT_FALSE(is_dist_info("torch-2.10.0.egg-info"));
  EXPECT_FALSE(is_dist_info("torch"));
}

TEST(RandomName, HasTheLengthAndAlphabetAndVaries) {
  std::set<std::string> seen;
  for (int i = 0; i < 20; ++i) {
    std::string name = random_name(10);
    ASSERT_EQ(name.size(), 10u);
    for (char c : name) {
      EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) ||
                  std::isdigit(static_cast<unsigned char>(c)))
          << name;
    }
    seen.insert(name);
  }
  EXPECT_EQ(seen.size(), 20u);
  EXPECT_EQ(random_name(0), "");
}

// find_on_path: how the host check finds nvidia-smi.
class FindOnPath : public Files {
 protected:
  void make(const std::string& dir_name, const std::string& name, mode_t mode) {
    mkdir(dir(dir_name).c_str(), 0755);
    const std::string path = write(dir_name + "/" + name, "#!/bin/sh\nexit 0\n");
    ASSERT_EQ(chmod(path.c_str(), mode), 0);
  }
  std::string dir(const std::string& name) const { return dir_ + "/" + name; }
};

TEST_F(FindOnPath, FindsTheFirstExecutableInOrder) {
  make("a", "nvidia-smi", 0755);
  make("b", "nvidia-smi", 0755);
  std::string path = dir("missing") + ":" + dir("a") + ":" + dir("b");
  EXPECT_EQ(find_on_path("nvidia-smi", path), dir("a") + "/nvidia-smi");
  path = dir("b") + ":" + dir("a");
  EXPECT_EQ(find_on_path("nvidia-smi", path), dir("b") + "/nvidia-smi");
}

TEST_F(FindOnPath, SkipsFilesThatCannotRunAndFolders) {
  // 0644 has no execute bit, so even root may not run it.
  make("plain", "nvidia-smi", 0644);
  std::string folder = dir("folder");
  mkdir(folder.c_str(), 0755);
  mkdir((folder + "/nvidia-smi").c_str(), 0755);
  make("good", "nvidia-smi", 0755);
  EXPECT_EQ(find_on_path("nvidia-smi", dir("plain") + ":" + folder), std::nullopt);
  EXPECT_EQ(find_on_path("nvidia-smi", dir("plain") + ":" + folder + ":" + dir("good")),
            dir("good") + "/nvidia-smi");
}

TEST_F(FindOnPath, NotFound) {
  make("a", "other-tool", 0755);
  EXPECT_EQ(find_on_path("nvidia-smi", dir("a")), std::nullopt);
  EXPECT_EQ(find_on_path("nvidia-smi", "/nonexistent-kd-folder"), std::nullopt);
}

TEST_F(FindOnPath, EmptyElementsNeverMeanTheWorkingFolder) {
  // An nvidia-smi in the folder the check runs from must not be picked up
  // through an empty PATH element or an empty PATH.
  make("cwd", "nvidia-smi", 0755);
  char old[4096];
  ASSERT_NE(getcwd(old, sizeof old), nullptr);
  ASSERT_EQ(chdir(dir("cwd").c_str()), 0);
  EXPECT_EQ(find_on_path("nvidia-smi", ""), std::nullopt);
  EXPECT_EQ(find_on_path("nvidia-smi", "::/nonexistent-kd-folder:"), std::nullopt);
  ASSERT_EQ(chdir(old), 0);
}

}  // namespace
}  // namespace kd
