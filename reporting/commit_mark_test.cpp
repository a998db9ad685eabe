// Covers commit_mark.hpp: git asked about a throw-away work tree, clean and changed, a folder
// outside any git tree, no git at all, and a git that never answers.
#include "commit_mark.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "util/files.hpp"
#include "util/text.hpp"

namespace kd::junit {
namespace {

namespace fs = std::filesystem;

// PATH as it was, put back when the test ends.
class CommitMark : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = std::getenv("PATH");
    path_ = path != nullptr ? path : "";
    git_ = kd::find_on_path("git", path_).value_or("");
    if (git_.empty()) GTEST_SKIP() << "git is not on PATH: no work tree to ask about";
    char pattern[] = "/tmp/kd-commit-mark-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    setenv("PATH", path_.c_str(), 1);
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // `git -C DIR ARGS` quietly; its output, trimmed.
  std::string git(const fs::path& dir, const std::string& args) const {
    const fs::path out = dir_ / "git.out";
    const std::string command = "'" + git_ + "' -C '" + dir.string() + "' " + args + " >'" +
                                out.string() + "' 2>/dev/null";
    const int status = std::system(command.c_str());
    EXPECT_TRUE(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
    return std::string(kd::trim(kd::read_file(out.string()).value_or("")));
  }

  void write(const fs::path& path, const std::string& text) const {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  std::string path_, git_;
  fs::path dir_;
};

TEST_F(CommitMark, IsTheShortHeadAndSaysWhenTrackedFilesChanged) {
  const fs::path tree = dir_ / "tree";
  write(tree / "a.txt", "one\n");
  git(tree, "init -q");
  git(tree, "add a.txt");
  git(tree, "-c user.name=kd -c user.email=kd@example.invalid commit -q -m one");
  const std::string head = git(tree, "rev-parse --short=12 HEAD");
  ASSERT_EQ(head.size(), 12u) << head;
  EXPECT_EQ(commit_mark(tree), head);
  // A file git does not track changes nothing; a tracked file that differs does.
  write(tree / "new.txt", "untracked\n");
  EXPECT_EQ(commit_mark(tree), head);
  write(tree / "a.txt", "two\n");
  EXPECT_EQ(commit_mark(tree), head + "+changes");
  // From a folder below the top, the same.
  write(tree / "sub" / "b.txt", "");
  EXPECT_EQ(commit_mark(tree / "sub"), head + "+changes");
}

TEST_F(CommitMark, OutsideAGitTreeOrWithoutGitThereIsNone) {
  write(dir_ / "plain" / "a.txt", "");
  EXPECT_EQ(commit_mark(dir_ / "plain"), std::nullopt);
  EXPECT_EQ(commit_mark(dir_ / "absent"), std::nullopt);
  setenv("PATH", (dir_ / "no-such-folder").c_str(), 1);
  EXPECT_EQ(commit_mark(fs::current_path()), std::nullopt);
}

TEST_F(CommitMark, AGitThatNeverAnswersIsGivenUpAtTheDeadline) {
  write(dir_ / "bin" / "git", "#!/bin/sh\nexec /bin/sleep 60\n");
  fs::permissions(dir_ / "bin" / "git", fs::perms::owner_all);
  setenv("PATH", (dir_ / "bin").c_str(), 1);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(commit_mark(dir_, 0.5), std::nullopt);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 5.0) << "commit_mark waited " << seconds << " s for a hung git";
}

}  // namespace
}  // namespace kd::junit
