// Covers published_scan.hpp: the details of a machine found in a text, and in every file of a
// folder of reports.
#include "published_scan.hpp"

#include <gtest/gtest.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace kd::published {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

TEST(PublishedScan, PlaceholdersVersionsAndLoopbackAreNotMachineDetails) {
  EXPECT_EQ(privacy_problems("{out}/cases {proof}/tmp/x {home}/venv {repo}/work/y\n"
                                  "127.0.0.1 0.0.0.0 libtorch 2.4.1+cu121 driver 550.54.15\n"
                                  "libcudnn.so.8.9.2.26 v1.2.3.4 build/tmp/x ~/tmp/y\n"
                                  "memcpy@GLIBC_2.14 GPU-1234 12:34:56 /usr/lib/x\n"),
            std::vector<std::string>{});
}

TEST(PublishedScan, LongNumbersAreNeitherAddressesNorOverflow) {
  // A run of digits longer than an octet (a count, a time in nanoseconds) is read past, not
  // summed into an int: the asan build's UndefinedBehaviorSanitizer ends the program otherwise.
  EXPECT_EQ(privacy_problems("stat::number_of_executed_units: 99999999999\n"
                                  "1.2.3.45678901234 12345678901234567890.1.2.3\n"),
            std::vector<std::string>{});
}

TEST(PublishedScan, APinnedVersionIsNoAddressALoneEqualsSignStillIs) {
  EXPECT_EQ(privacy_problems("\"pinned\": \"nvidia-cudnn-cu13==9.26.0.51\" torch>=2.14.0.1 a~=1.2.3.4\n"),
            std::vector<std::string>{});
  EXPECT_EQ(privacy_problems("addr=10.1.2.3\n"),
            std::vector<std::string>{"an IPv4 address on line 1: 10.1.2.3"});
}

TEST(PublishedScan, EachKindIsFoundWithItsLineAndCount) {
  const auto found = privacy_problems(
      "ok\n\"/tmp/kd-case/report.json\" and /var/lib/x\n"
      "MIG-3f2a8c1e-77b0-4d2e-9a51-0c6d2e8f4b19 3C-EC-EF-12-AB-9D 192.168.1.20:8080 a@b.io\n");
  ASSERT_EQ(found.size(), 5u);
  EXPECT_EQ(found[0], "an absolute path of the machine on line 2: /tmp/kd-case/report.json (2 in all)");
  EXPECT_EQ(found[1], "a GPU UUID on line 3: MIG-3f2a8c1e-77b0-4d2e-9a51-0c6d2e8f4b19");
  EXPECT_EQ(found[2], "a MAC address on line 3: 3C-EC-EF-12-AB-9D");
  EXPECT_EQ(found[3], "an IPv4 address on line 3: 192.168.1.20");
  EXPECT_EQ(found[4], "an e-mail address on line 3: a@b.io");
}

TEST(PublishedScan, TheMachinesNamesAreFoundAsWholeWordsOnly) {
  const MachineDetails machine{{"/srv/ci/checkout-17"}, {"gpu-node-7", "kd_user"}};
  EXPECT_EQ(machine_problems("gpu-node-70 mygpu-node-7 kd_users :root gpu-node-7x\n"
                                  "checkout-17 is a word, not the folder\n",
                                  machine),
            std::vector<std::string>{});
  const auto found = machine_problems(
      "ran on gpu-node-7.\nby kd_user, in /srv/ci/checkout-17/build (gpu-node-7)\n", machine);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0], "an absolute path of the machine on line 2: /srv/ci/checkout-17/build");
  EXPECT_EQ(found[1], "the machine's folder \"/srv/ci/checkout-17\" on line 2");
  EXPECT_EQ(found[2], "the machine's name \"gpu-node-7\" on line 1 (2 in all)");
  EXPECT_EQ(found[3], "the machine's name \"kd_user\" on line 2");
}

TEST(PublishedScan, EveryFileOfEverySubfolderIsReadAndBinariesAreListed) {
  char pattern[] = "/tmp/kd-published-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path pub = pattern;
  const MachineDetails machine{{"/opt/checkout"}, {"buildhost"}};
  write(pub / "junit.xml", "<testsuites/>\n");
  write(pub / "cases" / "cli.a.json", "{\"error\": {\"message\": \"on buildhost\"}}\n");
  write(pub / "cases" / "cli.a.stderr", "kernodeck: /opt/checkout/build-debian/x\n");
  write(pub / "shot.png", std::string("\x89PNG\0buildhost", 14));
  fs::create_symlink("/etc/hostname", pub / "link");
  std::vector<std::string> binary;
  size_t scanned = 0;
  const auto problems = check_published_folder(pub.string(), machine, binary, scanned);
  fs::remove_all(pub);
  EXPECT_EQ(scanned, 3u);
  EXPECT_EQ(binary, std::vector<std::string>{(pub / "shot.png").string()});
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].file, (pub / "link").string());
  EXPECT_EQ(problems[0].problem, "is a link into the machine; publish plain files");
  EXPECT_EQ(problems[1].file, (pub / "cases" / "cli.a.json").string());
  EXPECT_EQ(problems[1].problem, "the machine's name \"buildhost\" on line 1");
  EXPECT_EQ(problems[2].file, (pub / "cases" / "cli.a.stderr").string());
  EXPECT_EQ(problems[2].problem, "the machine's folder \"/opt/checkout\" on line 1");
  EXPECT_EQ(check_published_folder((pub / "absent").string(), machine, binary, scanned).size(), 1u);
}

TEST(PublishedScan, ThisMachineIsItsHomeItsHostAndItsUserUnlessRoot) {
  const MachineDetails here = this_machine();
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  EXPECT_NE(std::find(here.names.begin(), here.names.end(), std::string(host)), here.names.end());
  const char* home = std::getenv("HOME");
  if (home != nullptr && std::string(home) != "/" && *home != '\0') {
    EXPECT_EQ(here.paths, std::vector<std::string>{home});
  } else {
    EXPECT_TRUE(here.paths.empty());
  }
  const passwd* user = getpwuid(geteuid());
  ASSERT_NE(user, nullptr);
  const bool named = std::find(here.names.begin(), here.names.end(), std::string(user->pw_name)) !=
                     here.names.end();
  EXPECT_EQ(named, geteuid() != 0) << user->pw_name;
}

}  // namespace
}  // namespace kd::published
