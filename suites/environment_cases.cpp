// Layer "environment": the check where CI jobs and GPU pods really run it, not
// as root on a roomy machine: another user, a read-only filesystem, process
// and memory limits, closed or failing standard streams, no /proc, another
// locale, a huge or empty environment, a misbehaving nvidia-smi, and the
// restricted pod of docs/locked-down.md. Every case changes the real thing (setpriv,
// rlimits, cgroups, mount namespaces, descriptors); each asserts the exit code,
// the report and that nothing is left behind.
#include <sys/resource.h>

#include <fstream>

#include "layer_test.hpp"
#include "manipulations.hpp"
#include "util/files.hpp"

namespace {

using kdh::Case;
using kdh::Requirement;
using kdh::as_user;
using kdh::cgroup_removed;
using kdh::in_mount_namespace;
using kdh::kNobody;
using kdh::kSetpriv;
using kdh::kUnshare;
using kdh::memory_cgroup;
using kdh::nameless_uid;
using kdh::user_folder;
using kdh::write_text_file;
using Kind = kdh::FileExpect::Kind;

constexpr rlim_t kMiB = 1024 * 1024;

// The case run without /proc: an empty tmpfs over it in a private mount namespace.
Case without_proc(Case c) {
  return c.needs(Requirement::UserNamespaces)
      .needs(Requirement::RunsWithoutProc)
      .wrap(in_mount_namespace("mount -t tmpfs -o size=4k noproc /proc"),
            "an empty tmpfs over /proc in a private mount namespace");
}

// 1 MiB of environment in 1024 variables, and one of 120 KiB (the kernel
// takes at most 128 KiB per string), exported by {tmp}/huge-env.sh.
std::string huge_environment(const std::string& tmp) {
  std::string block(1000, 'e');
  return write_text_file(tmp + "/huge-env.sh",
                         "v=kdhuge" + block + "\n"
                         "i=0\n"
                         "while [ $i -lt 1024 ]; do export \"KD_HUGE_$i=$v$i\"; i=$((i+1)); done\n"
                         "export KD_HUGE_LONG=kdhugelong" + std::string(120 * 1024, 'l') + "\n"
                         "exec \"$@\"\n");
}

// The restricted pod: in a private mount namespace every mount is made
// read-only but the one volume, then the check runs as a nameless user
// without capabilities and with no_new_privs.
std::string restricted_pod(const std::string& tmp) {
  std::string prepared = user_folder(nameless_uid(), "volume")(tmp);
  if (!prepared.empty()) return prepared;
  std::string uid = std::to_string(nameless_uid());
  return write_text_file(
      tmp + "/pod.sh",
      "vol='" + tmp + "/volume'\n"
      "mount --bind \"$vol\" \"$vol\" || exit 90\n"
      "while read -r _ _ _ _ point _; do\n"
      "  [ \"$point\" = \"$vol\" ] || mount -o remount,bind,ro \"$point\" 2>/dev/null\n"
      "done < /proc/self/mountinfo\n"
      "for f in /kd-pod-probe-$$ '" + tmp + "/kd-pod-probe'; do\n"
      "  if touch \"$f\" 2>/dev/null; then\n"
      "    rm -f \"$f\"; echo \"pod.sh: $f is still writable\" >&2; exit 90\n"
      "  fi\n"
      "done\n"
      "exec " + kSetpriv + " --reuid=" + uid + " --regid=" + uid +
      " --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- \"$@\"\n");
}

// ---- the cases -----------------------------------------------------------

Case passes(const std::string& id, kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .args({"--device", "cpu"})
      .outcome("CPU_CHECK_PASSED", "complete")
      .expect_field("/execution/device", "cpu")
      .expect_field("/output/written", false)
      .expect_no_new_files();
}

Case passes_with_output(const std::string& id, kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .args({"--device", "cpu", "--output", "{tmp}/report.json"})
      .outcome("CPU_CHECK_PASSED", "complete")
      .expect_field("/execution/device", "cpu")
      .expect_field("/output/written", true);
}

// Standard streams closed by a wrapper shell before it runs the check, with
// --output: the file carries the report wherever stdout went.
Case closed_streams(const std::string& id, const std::string& closing, bool stdout_closed,
                    kdh::Where where = kdh::Where::here()) {
  Case c = passes_with_output(id, where)
               .guards("closed standard streams (" + closing +
                       ") are no error: the check passes and --output writes the whole report")
               .wrap({"/bin/sh", "-c", "exec \"$@\" " + closing, "sh"},
                     "a shell runs the check with " + closing);
  if (stdout_closed) {
    c.expect_report_in("report.json").expect_no_new_files();
  } else {
    c.expect_file(Kind::IdenticalToStdout, "report.json");
  }
  return c;
}

// stdout that cannot take the report: the check says so on stderr.
Case stdout_fails(const std::string& id, kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .needs(Requirement::ProbeModule)
      .args({"--device", "cpu"})
      .expect_no_report()
      .expect_stderr_contains("the report could not be written to stdout")
      .expect_no_new_files();
}

// A check that gets no further than the --output preflight.
void never_loaded(const kdh::CaseRun& run, std::vector<std::string>& problems) {
  std::ifstream in(run.tmp + "/out/report.json");
  if (in) problems.push_back("out/report.json was written");
}

std::vector<Case> environment_cases() {
  const uid_t fresh = nameless_uid();
  return {
      // ---- another user ----
      passes("nobody_user")
          .guards("as the unprivileged user nobody the check passes")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::AnotherUser)
          .prepare(user_folder(kNobody, ""), "")
          .wrap(as_user(kNobody), "runs as nobody (setpriv --reuid=65534)"),
      passes_with_output("nobody_user_writes_output")
          .guards("as nobody the check passes and writes --output into a folder of its own")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::AnotherUser)
          .prepare(user_folder(kNobody, "out"), "a folder out/ owned by nobody")
          .wrap(as_user(kNobody), "runs as nobody (setpriv --reuid=65534)")
          .args({"--device", "cpu", "--output", "{tmp}/out/report.json"})
          .expect_file(Kind::IdenticalToStdout, "out/report.json"),
      passes("nameless_user")
          .guards("as a user id without an account (no name, no home) the check passes")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::AnotherUser)
          .prepare(user_folder(fresh, ""), "")
          .wrap(as_user(fresh), "runs as uid " + std::to_string(fresh) + ", which no account has"),
      Case("nobody_user_output_folder_not_writable")
          .guards("as nobody, an output folder it cannot write is refused before any check runs")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::AnotherUser)
          .prepare(user_folder(kNobody, ""), "")
          .directory("out")
          .wrap(as_user(kNobody), "runs as nobody; out/ belongs to root (0755)")
          .args({"--device", "cpu", "--output", "{tmp}/out/report.json"})
          .outcome("OUTPUT_WRITE_FAILED", "output")
          .expect_field("/output/written", false)
          .expect_null("/execution/timings_ms/load")
          .expect_field_contains("/error/message", "does not accept new files")
          .expect_no_new_files()
          .also(never_loaded)
          .within(1.0),

      // ---- read-only filesystems ----
      Case("read_only_output_folder")
          .guards("an output folder on a read-only mount is refused before any check runs")
          .needs(Requirement::UserNamespaces)
          .directory("out")
          .wrap(in_mount_namespace("mount --bind {tmp}/out {tmp}/out && "
                                   "mount -o remount,bind,ro {tmp}/out"),
                "out/ bound read-only onto itself in a private mount namespace")
          .args({"--device", "cpu", "--output", "{tmp}/out/report.json"})
          .outcome("OUTPUT_WRITE_FAILED", "output")
          .expect_field("/output/written", false)
          .expect_null("/execution/timings_ms/load")
          .expect_field_contains("/error/message", "Read-only file system")
          .expect_no_new_files()
          .also(never_loaded)
          .within(1.0),
      passes("read_only_root")
          .guards("on a read-only root filesystem the check passes: it writes nothing it was "
                  "not asked to")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::UserNamespaces)
          .wrap(in_mount_namespace("mount -o remount,bind,ro /"),
                "/ remounted read-only in a private mount namespace"),

      // ---- process and memory limits ----
      Case("process_limit_one")
          .guards("a worker that cannot be started under a process limit is WORKER_FAILED (11) "
                  "naming the limit, not INTERNAL_ERROR")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::AnotherUser)
          .prepare(user_folder(fresh, ""), "")
          .wrap(as_user(fresh), "runs as uid " + std::to_string(fresh))
          .needs(Requirement::ExitsUnderProcessLimitOfOne)
          .limit(RLIMIT_NPROC, 1)
          .args({"--device", "cpu"})
          .outcome("WORKER_FAILED", "import")
          .expect_field("/error/type", "ProcessLimitAtStart")
          .expect_field_contains("/error/message", "Resource temporarily unavailable")
          .expect_field_contains("/message", "process limit")
          .expect_field_contains("/message", "ulimit -u")
          .expect_field_lacks("/message", "defect of the check")
          .expect_null("/execution/timings_ms/load")
          .expect_no_new_files(),
      passes("process_limit_two")
          .guards("two processes (the check and its worker) are all the check needs")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::AnotherUser)
          .prepare(user_folder(fresh, ""), "")
          .wrap(as_user(fresh), "runs as uid " + std::to_string(fresh))
          .limit(RLIMIT_NPROC, 2),
      Case("address_space_limit_at_load")
          .guards("a libtorch that cannot be mapped under an address-space limit is "
                  "TORCH_IMPORT_FAILED (4) naming the limit and what to raise")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::StartsUnderAddressSpaceLimit)
          .limit(RLIMIT_AS, 256 * kMiB)
          .args({"--device", "cpu"})
          .outcome("TORCH_IMPORT_FAILED", "import")
          .expect_field("/error/type", "AddressSpaceLimit")
          .expect_field_contains("/message", "address-space limit")
          .expect_field_contains("/message", "256 MiB")
          .expect_field_contains("/message", "aise")
          .expect_null("/execution/timings_ms/load")
          .expect_no_new_files(),
      Case("address_space_limit_at_compute")
          .guards("an allocation refused at compute under an address-space limit is "
                  "OUT_OF_MEMORY (9) naming the limit")
          .with_fault("alloc=1024")
          .needs(Requirement::StartsUnderAddressSpaceLimit)
          .limit(RLIMIT_AS, 256 * kMiB)
          .args({"--device", "cpu"})
          .outcome("OUT_OF_MEMORY", "compute")
          .expect_not_null("/execution/timings_ms/load")
          .expect_field("/error/type", "AllocationUnderAddressSpaceLimit")
          .expect_field_contains("/error/message", "can't allocate memory")
          .expect_field_contains("/message", "address-space limit")
          .expect_field_contains("/message", "256 MiB")
          .expect_no_new_files(),
      Case("memory_cgroup_too_small")
          .guards("a worker killed by a cgroup's out-of-memory killer (its oom_kill count rose) "
                  "is OUT_OF_MEMORY (9) KilledForMemory, naming the cgroup's memory limit")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::MemoryCgroup)
          .prepare(memory_cgroup(16 * kMiB), "in a cgroup of its own with 16 MiB of memory")
          .wrap({"/bin/sh", "{tmp}/cgroup.sh"}, "")
          .args({"--device", "cpu"})
          .outcome("OUT_OF_MEMORY", "import")
          .expect_field("/error/type", "KilledForMemory")
          .expect_field_contains("/error/message", "SIGKILL")
          .expect_field_contains("/message", "killed by the out-of-memory killer")
          .expect_field_contains("/message", "the memory limit of this cgroup is 16 MiB")
          .expect_field_contains("/message", "resources.limits.memory")
          .expect_field_lacks("/message", "most often")
          .expect_no_new_files()
          .also(cgroup_removed),
      passes("memory_cgroup_enough")
          .guards("1 GiB of memory (a cgroup limit) is enough for the check")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::MemoryCgroup)
          .prepare(memory_cgroup(1024 * kMiB), "in a cgroup of its own with 1 GiB of memory")
          .wrap({"/bin/sh", "{tmp}/cgroup.sh"}, "")
          .also(cgroup_removed),

      // ---- standard streams ----
      closed_streams("closed_stdin", "<&-", false),
      closed_streams("closed_stdout", ">&-", true),
      closed_streams("closed_stderr", "2>&-", false),
      closed_streams("closed_stdin_stdout", "<&- >&-", true),
      closed_streams("closed_stdin_stderr", "<&- 2>&-", false),
      closed_streams("closed_stdout_stderr", ">&- 2>&-", true),
      closed_streams("closed_all_streams", "<&- >&- 2>&-", true),
      stdout_fails("stdout_full_device")
          .guards("a report that cannot be written whole to stdout (a full device) is exit 12 "
                  "after a pass")
          .stdout_to("/dev/full")
          .expect_exit(12)
          .expect_stderr_contains("OUTPUT_WRITE_FAILED (exit 12, stage output)"),
      stdout_fails("stdout_full_device_after_failed_check")
          .guards("when stdout fails after a failed check, the check's own code stands")
          .with_fault("product=wrong")
          .stdout_to("/dev/full")
          .args({"--device", "cpu"})
          .expect_exit(8)
          .expect_stderr_contains("CHECK_FAILED (exit 8, stage compute)"),
      stdout_fails("stdout_full_device_with_output")
          .guards("with --output too, a stdout that fails is exit 12; the file, written first, "
                  "stays whole")
          .stdout_to("/dev/full")
          .args({"--device", "cpu", "--output", "{tmp}/report.json"})
          .expect_exit(12)
          .expect_stderr_contains("OUTPUT_WRITE_FAILED (exit 12, stage output)")
          .expect_file(Kind::WholeReport, "report.json")
          .also([](const kdh::CaseRun& run, std::vector<std::string>& problems) {
            auto text = kd::read_file(run.tmp + "/report.json");
            kdh::json report = kdh::json::parse(text.value_or(""), nullptr, false);
            if (!report.is_discarded() && (report["code"] != "CPU_CHECK_PASSED" ||
                       report["output"]["written"] != true)) {
              problems.push_back("report.json is not the check's passing report: " +
                                 report["code"].dump());
            }
          }),
      stdout_fails("stdout_reader_gone")
          .guards("a report that cannot be written to stdout (a pipe whose reader left) is "
                  "exit 12 after a pass")
          .stdout_to_gone_reader()
          .expect_exit(12)
          .expect_stderr_contains("OUTPUT_WRITE_FAILED (exit 12, stage output)"),

      // ---- namespaces, locale, environment ----
      without_proc(passes("no_proc")
                       .guards("without /proc the check passes")
                       .needs(Requirement::ProbeModule)),
      without_proc(passes_with_output("no_proc_with_output")
                       .guards("without /proc --output still writes the whole report and "
                               "leaves no temporary file")
                       .needs(Requirement::ProbeModule))
          .expect_file(Kind::IdenticalToStdout, "report.json"),
      passes("locale_decimal_comma")
          .guards("in a locale with a decimal comma, --timeout 7.5 is read and reported as 7.5")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::DecimalCommaLocale)
          .env("LC_ALL", "de_DE.UTF-8")
          .env("LANG", "de_DE.UTF-8")
          .args({"--device", "cpu", "--timeout", "7.5"})
          .expect_field("/requested/timeout_s", 7.5),
      Case("locale_decimal_comma_timeout")
          .guards("in a locale with a decimal comma, a 7.5 s limit stops the worker after 7.5 s "
                  "and says so with a point")
          .needs(Requirement::DecimalCommaLocale)
          .env("LC_ALL", "de_DE.UTF-8")
          .with_fault("hang=compute")
          .args({"--device", "cpu", "--timeout", "7.5"})
          .outcome("TIMEOUT", "compute")
          .expect_field("/requested/timeout_s", 7.5)
          .expect_field_contains("/message", "7.5 s")
          .expect_no_new_files()
          .at_least(7.5)
          .within(8.0),
      passes("huge_environment")
          .guards("a huge environment (over 1 MiB) changes nothing, and none of it reaches the "
                  "report")
          .needs(Requirement::ProbeModule)
          .prepare(huge_environment, "")
          .wrap({"/bin/sh", "{tmp}/huge-env.sh"},
                "1024 variables of 1 KiB and one of 120 KiB exported")
          .expect_report_lacks("kdhuge")
          .within(15),
      passes("path_unset")
          .guards("without PATH the check passes; the host check says nvidia-smi is not found")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::CompiledProbe)
          .unset("PATH")
          .args({"--device", "cpu", "--host-check"})
          .expect_field("/host/status", "not_found"),
      Case("path_unset_stable_probe")
          .guards("without PATH the stable probe has no Python to find torch with: TORCH_MISSING "
                  "(3) naming the way out; the host check still says nvidia-smi is not found")
          .needs(Requirement::StableProbe)
          .unset("PATH")
          .args({"--device", "cpu", "--host-check"})
          .outcome("TORCH_MISSING", "import")
          .expect_field("/error/type", "NoPythonForTorch")
          .expect_field_contains("/message", "KERNODECK_TORCH_DIR")
          .expect_field("/host/status", "not_found"),

      // ---- nvidia-smi ----
      Case("nvidia_smi_floods")
          .guards("an nvidia-smi that floods megabytes is read within bounds: host check "
                  "failed, the verdict stands")
          .with_fault("gpus=1")
          .env("PATH", "{fixtures}/nvidia-smi-flood:/usr/bin:/bin")
          .args({"--device", "cpu", "--host-check"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/host/status", "failed")
          .expect_null("/host/driver_version")
          .expect_no_new_files()
          .within(3.5),
      Case("nvidia_smi_leaves_a_child")
          .guards("an nvidia-smi that exits leaving a child is read, and its child is ended")
          .with_fault("gpus=1")
          .env("PATH", "{fixtures}/nvidia-smi-fork:/usr/bin:/bin")
          .args({"--device", "cpu", "--host-check"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/host/status", "ok")
          .expect_field("/host/driver_version", "550.54.15")
          .expect_field("/host/memory_total_mib", 163118)
          .expect_no_new_files()
          .within(2.0),

      // ---- the restricted pod of docs/locked-down.md ----
      passes_with_output("kubernetes_restricted_pod")
          .guards("the restricted securityContext of docs/locked-down.md works: a nameless non-root user, no "
                  "capabilities, no_new_privs, a read-only root and one writable volume")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::AnotherUser)
          .prepare(restricted_pod, "")
          .wrap({kUnshare, "--mount", "--propagation", "private", "/bin/sh", "{tmp}/pod.sh"},
                "every mount read-only but volume/ (a private mount namespace), then uid " +
                    std::to_string(fresh) + " without capabilities, with no_new_privs")
          .args({"--device", "cpu", "--output", "{tmp}/volume/report.json"})
          .expect_file(Kind::IdenticalToStdout, "volume/report.json"),
  };
}

}  // namespace

KERNODECK_LAYER(environment, environment_cases());
