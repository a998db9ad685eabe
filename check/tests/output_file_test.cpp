// Covers output_file.hpp: a report file is created new and whole, or not at all, and nothing else is left.
#include "run/output_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "kd/supervisor.hpp"
#include "util/tests/temp_dir.hpp"

namespace kd {
namespace {

using test::TempDir;
using Names = std::vector<std::string>;

const std::string kReport = "{\n  \"schema_version\": 1\n}\n";

bool exists_at(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

TEST(OutputFile, CreatesANewFileWithExactContent) {
  TempDir dir;
  std::string path = dir.file("report.json");
  EXPECT_EQ(preflight_new_file(path), std::nullopt);
  auto problem = write_new_file(path, kReport);
  ASSERT_FALSE(problem.has_value()) << problem->reason;
  EXPECT_EQ(test::read_file(path), kReport);
  // Nothing beside it: no temporary left over.
  EXPECT_EQ(dir.entries(), Names{"report.json"});
}

TEST(OutputFile, EmptyAndLargeContent) {
  TempDir dir;
  ASSERT_FALSE(write_new_file(dir.file("empty.json"), "").has_value());
  EXPECT_EQ(test::read_file(dir.file("empty.json")), "");
  std::string big(3 * 1024 * 1024 + 17, 'r');
  ASSERT_FALSE(write_new_file(dir.file("big.json"), big).has_value());
  EXPECT_EQ(test::read_file(dir.file("big.json")), big);
  EXPECT_EQ(dir.entries(), (Names{"big.json", "empty.json"}));
}

TEST(OutputFile, AnExistingFileIsNeverTouched) {
  TempDir dir;
  std::string path = dir.file("report.json");
  test::write_file(path, "precious");
  // An old, exact mtime: any rewrite would change it.
  timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  struct stat before {};
  ASSERT_EQ(stat(path.c_str(), &before), 0);

  auto pre = preflight_new_file(path);
  ASSERT_TRUE(pre.has_value());
  EXPECT_NE(pre->reason.find("exists"), std::string::npos) << pre->reason;
  auto problem = write_new_file(path, kReport);
  ASSERT_TRUE(problem.has_value());

  struct stat after {};
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  EXPECT_EQ(test::read_file(path), "precious");
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(dir.entries(), Names{"report.json"});
}

TEST(OutputFile, AnEmptyExistingFileCountsAsExisting) {
  TempDir dir;
  std::string path = dir.file("report.json");
  test::write_file(path, "");
  EXPECT_TRUE(write_new_file(path, kReport).has_value());
  EXPECT_EQ(test::read_file(path), "");
}

TEST(OutputFile, ADanglingSymlinkCountsAsExisting) {
  TempDir dir;
  std::string link = dir.file("report.json");
  std::string target = dir.file("target.json");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);

  EXPECT_TRUE(preflight_new_file(link).has_value());
  EXPECT_TRUE(write_new_file(link, kReport).has_value());
  // Writing through the link would have created the target.
  EXPECT_FALSE(exists_at(target));
  char buf[4096] = {};
  ASSERT_GT(readlink(link.c_str(), buf, sizeof buf - 1), 0);
  EXPECT_EQ(std::string(buf), target);
  EXPECT_EQ(dir.entries(), Names{"report.json"});
}

TEST(OutputFile, ASymlinkToAFileCountsAsExisting) {
  TempDir dir;
  test::write_file(dir.file("target.json"), "kept");
  ASSERT_EQ(symlink("target.json", dir.file("report.json").c_str()), 0);
  EXPECT_TRUE(preflight_new_file(dir.file("report.json")).has_value());
  EXPECT_TRUE(write_new_file(dir.file("report.json"), kReport).has_value());
  EXPECT_EQ(test::read_file(dir.file("target.json")), "kept");
}

TEST(OutputFile, AFolderThatIsAFileIsRefusedAsSuch) {
  TempDir dir;
  test::write_file(dir.file("plain"), "a file");
  for (const char* name : {"plain/report.json", "plain/sub/report.json"}) {
    auto pre = preflight_new_file(dir.file(name));
    ASSERT_TRUE(pre.has_value()) << name;
    EXPECT_NE(pre->reason.find("folder is not a folder"), std::string::npos) << pre->reason;
  }
  EXPECT_EQ(test::read_file(dir.file("plain")), "a file");
}

TEST(OutputFile, AMissingFolderIsRefused) {
  TempDir dir;
  std::string path = dir.file("missing/sub/report.json");
  auto pre = preflight_new_file(path);
  ASSERT_TRUE(pre.has_value());
  EXPECT_NE(pre->reason.find("folder does not exist"), std::string::npos) << pre->reason;
  EXPECT_TRUE(write_new_file(path, kReport).has_value());
  EXPECT_TRUE(dir.entries().empty());
}

TEST(OutputFile, ANameTooLongToCheckIsRefusedWithTheSystemsReason) {
  // lstat fails with neither ENOENT nor ENOTDIR: the name cannot even be looked up.
  TempDir dir;
  std::string path = dir.file(std::string(300, 'n') + ".json");
  auto pre = preflight_new_file(path);
  ASSERT_TRUE(pre.has_value());
  EXPECT_EQ(pre->error_number, ENAMETOOLONG) << pre->reason;
  EXPECT_NE(pre->reason.find("cannot be checked"), std::string::npos) << pre->reason;
  EXPECT_TRUE(write_new_file(path, kReport).has_value());
  EXPECT_TRUE(dir.entries().empty());
}

TEST(OutputFile, AFileUsedAsAFolderIsRefused) {
  TempDir dir;
  test::write_file(dir.file("plain"), "x");
  std::string path = dir.file("plain/report.json");
  EXPECT_TRUE(preflight_new_file(path).has_value());
  EXPECT_TRUE(write_new_file(path, kReport).has_value());
  EXPECT_EQ(test::read_file(dir.file("plain")), "x");
}

TEST(OutputFile, APathEndingInSlashIsRefused) {
  TempDir dir;
  for (const std::string& path : {dir.file("report.json/"), dir.path() + "/"}) {
    auto pre = preflight_new_file(path);
    ASSERT_TRUE(pre.has_value()) << path;
    EXPECT_TRUE(write_new_file(path, kReport).has_value()) << path;
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(OutputFile, AnExistingFolderIsRefused) {
  TempDir dir;
  ASSERT_EQ(mkdir(dir.file("sub").c_str(), 0755), 0);
  EXPECT_TRUE(preflight_new_file(dir.file("sub")).has_value());
  EXPECT_TRUE(write_new_file(dir.file("sub"), kReport).has_value());
}

TEST(OutputFile, AnEmptyNameIsRefused) {
  EXPECT_TRUE(preflight_new_file("").has_value());
  EXPECT_TRUE(write_new_file("", kReport).has_value());
}

TEST(OutputFile, ReasonsSayNothingOfThePath) {
  TempDir dir;
  test::write_file(dir.file("report.json"), "x");
  for (const std::string& path : {dir.file("report.json"), dir.file("missing/report.json")}) {
    auto problem = write_new_file(path, kReport);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->reason.find(dir.path()), std::string::npos) << problem->reason;
    EXPECT_EQ(problem->reason.find("report.json"), std::string::npos) << problem->reason;
  }
}

TEST(OutputFile, ARelativeNameLandsInTheWorkingDirectory) {
  TempDir dir;
  int saved = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(chdir(dir.path().c_str()), 0);
  auto problem = write_new_file("relative.json", kReport);
  ASSERT_EQ(fchdir(saved), 0);
  close(saved);
  ASSERT_FALSE(problem.has_value()) << problem->reason;
  EXPECT_EQ(test::read_file(dir.file("relative.json")), kReport);
}

TEST(OutputFile, AFolderThatRefusesNewFilesIsRefusedBeforehand) {
  if (geteuid() == 0) GTEST_SKIP() << "root may write into any folder";
  TempDir dir;
  std::string locked = dir.file("locked");
  ASSERT_EQ(mkdir(locked.c_str(), 0555), 0);
  EXPECT_TRUE(preflight_new_file(locked + "/report.json").has_value());
  EXPECT_TRUE(write_new_file(locked + "/report.json", kReport).has_value());
  chmod(locked.c_str(), 0755);
}

TEST(OutputFile, AWriteThatFailsMidwayLeavesNothing) {
  TempDir dir;
  std::string path = dir.file("report.json");
  // A file-size limit makes write() fail partway, like a full disk. The limit
  // and the ignored SIGXFSZ it needs are confined to a child process.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    install_signal_handling(false);
    rlimit limit{4096, 4096};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(10);
    std::string content(256 * 1024, 'z');
    auto problem = write_new_file(path, content);
    if (!problem) _exit(11);
    if (problem->error_number != EFBIG) _exit(12);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "10: setrlimit failed, 11: the write succeeded, 12: another error";
  EXPECT_FALSE(exists_at(path));
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace kd
