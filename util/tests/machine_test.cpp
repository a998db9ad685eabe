#include "util/machine.hpp"

#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace {

TEST(MachineStrings, HomeUnlessItHidesNothing) {
  const char* saved = std::getenv("HOME");
  const std::string before = saved != nullptr ? saved : "";
  setenv("HOME", "/srv/someone", 1);
  EXPECT_EQ(kd::machine_strings().home, "/srv/someone");
  setenv("HOME", "/", 1);
  EXPECT_EQ(kd::machine_strings().home, "");
  unsetenv("HOME");
  EXPECT_EQ(kd::machine_strings().home, "");
  if (saved != nullptr) setenv("HOME", before.c_str(), 1);
}

TEST(MachineStrings, TheHostNameAndTheUserUnlessRoot) {
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  const kd::MachineStrings machine = kd::machine_strings();
  EXPECT_EQ(machine.host, host);
  const passwd* user = getpwuid(geteuid());
  EXPECT_EQ(machine.user, geteuid() == 0 || user == nullptr ? "" : user->pw_name);
}

// A child started with `assignment` in its environment, sleeping until killed.
pid_t sleeper(const std::string& assignment) {
  const pid_t pid = fork();
  if (pid == 0) {
    char* const args[] = {const_cast<char*>("sleep"), const_cast<char*>("30"), nullptr};
    char* const env[] = {const_cast<char*>(assignment.c_str()), nullptr};
    execve("/bin/sleep", args, env);
    _exit(127);
  }
  return pid;
}

bool found(const std::string& assignment, pid_t pid) {
  const std::vector<int> pids = kd::processes_carrying(assignment);
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

TEST(ProcessesCarrying, FindsTheExactAssignmentOnly) {
  const std::string mark = "KD_MACHINE_TEST_MARK=" + std::to_string(getpid()) + ".1";
  const pid_t child = sleeper(mark);
  ASSERT_GT(child, 0);
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i, usleep(10 * 1000)) seen = found(mark, child);
  EXPECT_TRUE(seen);
  // Neither a prefix of the value nor a longer value is the same mark.
  EXPECT_FALSE(found(mark.substr(0, mark.size() - 1), child));
  EXPECT_FALSE(found(mark + "0", child));
  kill(child, SIGKILL);
  // Killed, not yet waited for: no process left behind.
  for (int i = 0; i < 200 && found(mark, child); ++i) usleep(10 * 1000);
  EXPECT_FALSE(found(mark, child));
  int status = 0;
  waitpid(child, &status, 0);
}

}  // namespace

TEST(ProcessStat, ThisProcessAndItsParent) {
  const std::vector<int> pids = kd::process_ids();
  EXPECT_NE(std::find(pids.begin(), pids.end(), getpid()), pids.end());
  const auto st = kd::process_stat(getpid());
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->state, 'R');
  EXPECT_EQ(st->ppid, getppid());
  EXPECT_EQ(st->pgrp, getpgrp());
  EXPECT_FALSE(st->comm.empty());
  EXPECT_FALSE(kd::process_stat(-1).has_value());
}
