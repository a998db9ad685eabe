// Covers util/files.hpp: whole writes, bounded reads, folders and names.
#include "util/files.hpp"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
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
    for (const auto& name : folder_entries(dir_)) unlink((dir_ + "/" + name).c_str());
    rmdir(dir_.c_str());
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

TEST(DirnameOf, TheFolderPart) {
  EXPECT_EQ(dirname_of("/usr/bin/kernodeck-diagnostic"), "/usr/bin");
  EXPECT_EQ(dirname_of("/kernodeck-diagnostic"), "/");
  EXPECT_EQ(dirname_of("kernodeck-diagnostic"), ".");
  EXPECT_EQ(dirname_of("bin/"), "bin");
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

}  // namespace
}  // namespace kd
