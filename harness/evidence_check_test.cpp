// kernodeck-evidence's checks on an evidence folder built in a temporary
// directory: a good one (a real CPU report from the built check, a hand-written
// GPU pass, the texts ci/gpu-proof writes with its placeholders) holds, and each
// single fault in it is found, for the reason it is wrong.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "evidence.hpp"
#include "contract/report_rules.hpp"
#include "util/files.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command line; its exit status, or -1 if it did not exit.
int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void write(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::string read(const fs::path& path) { return kd::read_file(path.string()).value_or(""); }

// A GPU pass as the contract describes it, written by hand: nothing here has
// a GPU to produce one.
const char* const kGpuPass = R"({
  "schema_version": 1,
  "tool": {"name": "kernodeck-diagnostic", "version": "1.0.0", "probe": "libtorch"},
  "status": "passed",
  "code": "GPU_CHECK_PASSED",
  "exit_code": 0,
  "stage": "complete",
  "message": "Product and gradient were verified on cuda:0. Run a small input of your application next.",
  "requested": {"device": "cuda", "device_index": 0, "timeout_s": 30, "host_check": false,
                "imports": [], "weights": [], "compile": false},
  "runtime": {"os_family": "Linux", "arch": "x86_64",
              "check_build": {"compiler": "GCC 12.2.0", "cxx_standard": "C++17",
                              "build_type": "RelWithDebInfo"},
              "torch_source": null, "python_environment": null, "python_version": null},
  "pytorch": {"version": "2.4.1", "cuda": "12.1", "hip": null, "backend": "cuda",
              "gpu_available": true, "visible_device_count": 1, "cudnn": null, "nccl": null,
              "miopen": null, "rccl": null, "import_warnings": null},
  "execution": {"device": "cuda:0", "device_name": "NVIDIA H200", "capability": "9.0",
                "product_verified": true, "gradient_verified": true,
                "loss": 196.0, "synchronized": true, "gradient_source": "autograd",
                "timings_ms": {"load": 1843.2, "device_init": 412.7, "compute": 35.1},
                "memory": {"allocated_bytes": 512, "reserved_bytes": 2097152}, "compile": null},
  "application": null,
  "host": null,
  "output": {"requested": false, "written": false},
  "error": null,
  "warnings": []
})";

const char* const kJunit = R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="kernodeck-gpu-proof" tests="1" failures="0" errors="0" time="0.6">
  <testsuite name="compute" tests="1" failures="0" errors="0" skipped="0" time="0.6">
    <testcase classname="compute" name="cpu_product" time="0.6"/>
  </testsuite>
</testsuites>
)";

const char* const kSummary = R"(kernodeck-diagnostic GPU proof (commit 1a2b3c4)
conformance suite, KERNODECK_EXPECT_GPU=1: tests=1 passed=1 failures=0 errors=0 skipped=0 (ctest exit 0)
hand runs:
  default                      exit 0    GPU_CHECK_PASSED (stage complete); libtorch 2.4.1 backend cuda cuda 12.1 visible 1; ran on cuda:0; loss 196
  cpu                          exit 0    CPU_CHECK_PASSED (stage complete); libtorch 1.13.0 backend none cuda None visible None; ran on cpu; loss 196
run time: 95 s
)";

const char* const kCtestLog = R"(Test project {proof}/build
    Start 1: compute.run/cpu_product
1/1 Test #1: compute.run/cpu_product ..........   Passed    0.61 sec
reports in {out}/cases, the check at {proof}/install/bin/kernodeck-diagnostic
listening on 127.0.0.1 and 0.0.0.0; relative build/tmp/x and ~/tmp/y are fine
)";

const char* const kProbeLog = R"(-- kernodeck: libtorch from {home}/venv/lib/python3.11/site-packages/torch, backend cuda
-- Found CUDA: /usr/local/cuda (found version "12.1.105")
-- Build files have been written to: {proof}/probe-build
)";

class EvidenceFolder : public ::testing::Test {
 protected:
  // The real check, once for every test of this program (each a process of its own): its CPU
  // report, stderr and exit code, as the CTest fixture harness.evidence_cpu_run left them.
  static void SetUpTestSuite() {
    const fs::path run = KERNODECK_EVIDENCE_CPU_RUN;
    cpu_report_ = read(run / "cpu.json");
    cpu_stderr_ = read(run / "cpu.stderr.txt");
    const std::string exit_code = read(run / "cpu.exit");
    cpu_exit_ = exit_code.empty() ? -1 : std::atoi(exit_code.c_str());
  }

  void SetUp() override {
    ASSERT_NE(cpu_exit_, -1) << "no run of the built check in " << KERNODECK_EVIDENCE_CPU_RUN
                             << ": the CTest fixture harness.evidence_cpu_run writes it";
    ASSERT_EQ(cpu_exit_, 0) << "the built check failed with --device cpu:\n" << cpu_stderr_;
    ASSERT_FALSE(json::parse(cpu_report_, nullptr, false).is_discarded()) << cpu_report_;
    char pattern[] = "/tmp/kd-evidence-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    tmp_ = pattern;
    dir_ = tmp_ / "h200-2025-01-01";
    write(dir_ / "junit.xml", kJunit);
    write(dir_ / "summary.txt", kSummary);
    write(dir_ / "ctest.log", kCtestLog);
    write(dir_ / "probe-build.log", kProbeLog);
    write(dir_ / "hand/default.json", kGpuPass);
    write(dir_ / "hand/default.exit", "0\n");
    write(dir_ / "hand/cpu.json", cpu_report_);
    write(dir_ / "hand/cpu.exit", std::to_string(cpu_exit_) + "\n");
    write(dir_ / "hand/cpu.stderr.txt", cpu_stderr_);
    write(dir_ / "cases/compute.cpu_product.json", cpu_report_);
    write(dir_ / "cases/compute.cpu_product.stderr.txt", cpu_stderr_);
  }

  void TearDown() override {
    std::error_code ec;
    if (!tmp_.empty()) fs::remove_all(tmp_, ec);
  }

  std::vector<kdh::EvidenceProblem> problems() const {
    return kdh::check_evidence_folder(dir_.string());
  }

  // Changes one report of the folder.
  void edit(const std::string& relative, const std::function<void(json&)>& change) {
    json report = json::parse(read(dir_ / relative));
    change(report);
    write(dir_ / relative, report.dump(2));
  }

  // The folder fails, with a problem of `relative` that contains `text`.
  void expect_problem(const std::string& relative, const std::string& text) const {
    const auto found = problems();
    std::string all;
    bool seen = false;
    for (const auto& p : found) {
      all += "  " + p.file + ": " + p.problem + "\n";
      seen = seen || (p.file == (dir_ / relative).generic_string() &&
                      p.problem.find(text) != std::string::npos);
    }
    EXPECT_TRUE(seen) << "expected " << relative << ": ..." << text << "..., found:\n"
                      << (all.empty() ? "  (nothing)\n" : all);
  }

  static inline int cpu_exit_ = -1;
  static inline std::string cpu_report_, cpu_stderr_;
  fs::path tmp_, dir_;
};

TEST_F(EvidenceFolder, GoodFolderHolds) {
  std::string all;
  for (const auto& p : problems()) all += p.file + ": " + p.problem + "\n";
  EXPECT_EQ(all, "");
}

TEST_F(EvidenceFolder, WrongExitCodeInExitFileFails) {
  write(dir_ / "hand/default.exit", "3\n");
  expect_problem("hand/default.json", "must exit 0, the process exited 3");
  expect_problem("hand/default.json", "/exit_code 0 differs from the process's 3");
}

TEST_F(EvidenceFolder, ExitFileWithoutANumberFails) {
  write(dir_ / "hand/cpu.exit", "zero\n");
  expect_problem("hand/cpu.exit", "does not hold an exit code");
}

TEST_F(EvidenceFolder, CodeWithTheWrongExitCodeFails) {
  // A case report, with no .exit beside it: its exit_code against the contract's table.
  edit("cases/compute.cpu_product.json", [](json& r) { r["exit_code"] = 4; });
  expect_problem("cases/compute.cpu_product.json",
                 "/exit_code 4 but /code \"CPU_CHECK_PASSED\" must exit 0");
}

TEST_F(EvidenceFolder, MissingKeyFails) {
  edit("cases/compute.cpu_product.json", [](json& r) { r["execution"].erase("timings_ms"); });
  expect_problem("cases/compute.cpu_product.json", "report lacks /execution/timings_ms");
}

TEST_F(EvidenceFolder, PassWithLoss195Fails) {
  edit("hand/default.json", [](json& r) { r["execution"]["loss"] = 195.0; });
  expect_problem("hand/default.json", "a pass without a verified product, gradient and loss 196");
}

TEST_F(EvidenceFolder, CpuReportClaimingAGpuCountFails) {
  edit("hand/cpu.json", [](json& r) { r["pytorch"]["visible_device_count"] = 0; });
  expect_problem("hand/cpu.json", "/pytorch/visible_device_count must be null in CPU mode");
}

TEST_F(EvidenceFolder, HostCheckRequestedWithoutHostStatusFails) {
  edit("hand/default.json", [](json& r) { r["requested"]["host_check"] = true; });
  expect_problem("hand/default.json", "/host/status null is not ok/not_found/timeout/failed");
}

TEST_F(EvidenceFolder, AbsolutePathInSummaryFails) {
  write(dir_ / "summary.txt", std::string(kSummary) + "built in /home/alice/kernodeck\n");
  expect_problem("summary.txt", "an absolute path of the machine on line 7: /home/alice/kernodeck");
}

TEST_F(EvidenceFolder, GpuUuidInJunitFails) {
  std::string junit = kJunit;
  junit.replace(junit.find("time=\"0.6\"/>"), 12,
                "time=\"0.6\"><system-out>GPU-3f2a8c1e-77b0-4d2e-9a51-0c6d2e8f4b19</system-out>"
                "</testcase>");
  write(dir_ / "junit.xml", junit);
  expect_problem("junit.xml", "a GPU UUID on line 4: GPU-3f2a8c1e-77b0-4d2e-9a51-0c6d2e8f4b19");
}

TEST_F(EvidenceFolder, Ipv4AddressFails) {
  write(dir_ / "ctest.log", std::string(kCtestLog) + "the runner 10.42.7.19 answered\n");
  expect_problem("ctest.log", "an IPv4 address on line 6: 10.42.7.19");
}

TEST_F(EvidenceFolder, MacAndEmailAddressesFail) {
  write(dir_ / "hand/default.stderr.txt", "eth0 3c:ec:ef:12:ab:9d\nmail ops.team@example.org\n");
  expect_problem("hand/default.stderr.txt", "a MAC address on line 1: 3c:ec:ef:12:ab:9d");
  expect_problem("hand/default.stderr.txt", "an e-mail address on line 2: ops.team@example.org");
}

TEST_F(EvidenceFolder, MissingDefaultReportFails) {
  fs::remove(dir_ / "hand/default.json");
  fs::remove(dir_ / "hand/default.exit");
  expect_problem("hand/default.json", "missing");
}

TEST_F(EvidenceFolder, HandRunWithoutAReportFails) {
  write(dir_ / "hand/cpu.json", "");
  expect_problem("hand/cpu.json", "is not JSON: the run printed no report");
}

TEST_F(EvidenceFolder, ProgramExitsZeroOneAndTwo) {
  const std::string program = quoted(KERNODECK_EVIDENCE_PROGRAM);
  const std::string out = quoted((tmp_ / "out.txt").string());
  EXPECT_EQ(shell(program + " " + quoted(dir_.string()) + " >" + out), 0) << read(tmp_ / "out.txt");
  EXPECT_NE(read(tmp_ / "out.txt").find("0 problems in 1 folder"), std::string::npos);

  EXPECT_EQ(shell(program + " --allow-none >" + out), 0);
  EXPECT_NE(read(tmp_ / "out.txt").find("no evidence folder to check"), std::string::npos);
  EXPECT_EQ(shell(program + " >" + out + " 2>&1"), 2) << "no folder without --allow-none";
  EXPECT_EQ(shell(program + " " + quoted((tmp_ / "absent").string()) + " >" + out + " 2>&1"), 2);
  EXPECT_EQ(shell(program + " --no-such-option >" + out + " 2>&1"), 2);

  write(dir_ / "summary.txt", "from /root/proof\n");
  EXPECT_EQ(shell(program + " " + quoted(dir_.string()) + " >" + out), 1);
  const std::string text = read(tmp_ / "out.txt");
  EXPECT_NE(text.find((dir_ / "summary.txt").string() + ": an absolute path of the machine"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1 problem in 1 folder"), std::string::npos) << text;
}


TEST(EvidenceArguments, RebuiltFromTheReportsOwnRequest) {
  const json report = json::parse(R"({"requested": {"device": "cuda", "device_index": 1,
      "timeout_s": 45, "host_check": true}, "output": {"requested": true, "written": true}})");
  EXPECT_EQ(kdh::arguments_from_report(report),
            (std::vector<std::string>{"--device", "cuda", "--device-index", "1", "--timeout",
                                      "45", "--host-check", "--output", "{out}/report.json"}));
  EXPECT_EQ(kdh::arguments_from_report(json::parse(R"({"requested": null})")),
            std::vector<std::string>{});
}

TEST(EvidenceReport, JudgedByTheHarnesssInvariants) {
  json report = json::parse(kGpuPass);
  EXPECT_EQ(kdh::report_problems(report, {}, 0), std::vector<std::string>{});
  EXPECT_EQ(kdh::report_problems(report, {}, std::nullopt), std::vector<std::string>{});
  // The arguments given: asked for the CPU, the GPU report does not match.
  EXPECT_FALSE(kdh::report_problems(report, {"--device", "cpu"}, 0).empty());
  report["execution"]["device"] = 7;  // a wrong type is judged, it does not throw
  const std::vector<std::string> typed = kdh::report_problems(report, {}, 0);
  EXPECT_FALSE(typed.empty());
  EXPECT_NE(std::find(typed.begin(), typed.end(),
                      "asked for a GPU, ran on 7: never silently the CPU"),
            typed.end())
      << "the problems were: " << ::testing::PrintToString(typed);
  report = json::parse(kGpuPass);
  report["exit_code"] = "0";
  EXPECT_EQ(kdh::report_problems(report, {}, std::nullopt),
            std::vector<std::string>{"/exit_code \"0\" is not an integer"});
}

}  // namespace

TEST_F(EvidenceFolder, PublishedReportsOfTheProgramAreHeldAgainstTheGivenMachine) {
  // The scanners themselves are published_scan_test.cpp's; here the program.
  const fs::path pub = tmp_ / "reports";
  write(pub / "junit.xml", "<testsuites/>\n");
  write(pub / "shot.png", std::string("\x89PNG\0buildhost", 14));
  const std::string program = KERNODECK_EVIDENCE_PROGRAM;
  const std::string out = quoted((tmp_ / "out.txt").string());
  const std::string args = " --published --machine-path /opt/checkout --machine-name buildhost ";
  EXPECT_EQ(shell(program + args + quoted(pub.string()) + " >" + out), 0) << read(tmp_ / "out.txt");
  EXPECT_NE(read(tmp_ / "out.txt").find("0 problems in 1 published files"), std::string::npos);
  EXPECT_NE(read(tmp_ / "out.txt").find("shot.png: binary, not read"), std::string::npos);
  write(pub / "summary.md", "certified on buildhost\n");
  EXPECT_EQ(shell(program + args + quoted(pub.string()) + " >" + out), 1);
  EXPECT_NE(read(tmp_ / "out.txt").find("summary.md: the machine's name \"buildhost\""),
            std::string::npos)
      << read(tmp_ / "out.txt");
  EXPECT_EQ(shell(program + " --machine-name x " + quoted(pub.string()) + " >" + out + " 2>&1"), 2);
}

TEST(PublishedReports, TheProgramWithThisMachineFindsItsHostName) {
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  char pattern[] = "/tmp/kd-this-machine-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path dir = pattern;
  write(dir / "reports" / "summary.md", std::string("certified on ") + host + "\n");
  const std::string out = quoted((dir / "out.txt").string());
  const std::string program = quoted(KERNODECK_EVIDENCE_PROGRAM) + " --published ";
  EXPECT_EQ(shell(program + quoted((dir / "reports").string()) + " >" + out), 0);
  EXPECT_EQ(shell(program + "--this-machine " + quoted((dir / "reports").string()) + " >" + out), 1);
  EXPECT_NE(read(dir / "out.txt").find("the machine's name \"" + std::string(host) + "\""),
            std::string::npos)
      << read(dir / "out.txt");
  fs::remove_all(dir);
}
