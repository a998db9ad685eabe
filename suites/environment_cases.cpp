// Layer "environment": the check where CI jobs and GPU pods really run it, not
// as root on a roomy machine: another user, a read-only filesystem, process
// and memory limits, closed or failing standard streams, no /proc, another
// locale, a huge or empty environment, a misbehaving nvidia-smi, and the
// restricted pod of docs/locked-down.md. Every case changes the real thing (setpriv,
// rlimits, cgroups, mount namespaces, descriptors); each asserts the exit code,
// the report and that nothing is left behind.
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/files.hpp"
#include "layer_test.hpp"
#include "supervisor.hpp"
#include "runner.hpp"

namespace {

using kdh::Case;
using kdh::Need;
using Kind = kdh::FileExpect::Kind;

constexpr const char* kSetpriv = "/usr/bin/setpriv";
constexpr const char* kUnshare = "/usr/bin/unshare";
constexpr rlim_t kMiB = 1024 * 1024;
constexpr uid_t kNobody = 65534;

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// Writes a file (a script, a cgroup setting); "" or why it failed.
std::string write_script(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return out.flush() ? "" : "cannot write " + path;
}

// A user id no account has, different for each test process (CTest runs
// each case in its own), so that a process limit counts this case alone.
uid_t nameless_uid() {
  static const uid_t uid = [] {
    uid_t candidate = 1000000 + static_cast<uid_t>(getpid());
    while (getpwuid(candidate) != nullptr) ++candidate;
    return candidate;
  }();
  return uid;
}

// The argv that runs `setup` (sh) in a private user and mount namespace, then the check; a
// setup that fails exits 90.
std::vector<std::string> in_mount_namespace(const std::string& setup) {
  return {kUnshare, "--user", "--map-root-user", "--mount", "/bin/sh", "-c",
          setup + " || exit 90; exec \"$@\"", "sh"};
}

// The case run without /proc: an empty tmpfs over it in a private mount namespace.
Case without_proc(Case c) {
  c.hides_proc = true;
  return c.needs_(Need::UserNamespaces)
      .wrap(in_mount_namespace("mount -t tmpfs -o size=4k noproc /proc"),
            "an empty tmpfs over /proc in a private mount namespace");
}

std::vector<std::string> as_user(uid_t uid) {
  std::string id = std::to_string(uid);
  return {kSetpriv, "--reuid=" + id, "--regid=" + id, "--clear-groups", "--"};
}

// Root can become another user; the check, its probe module and the
// libraries the probe needs must then be reachable for that user (a build
// under a home that is closed to others is not).
std::string why_not_another_user() {
  static const std::string why_not = []() -> std::string {
    if (getuid() != 0) {
      return "becoming another user needs root; the suite runs as uid " +
             std::to_string(getuid());
    }
    if (!exists(kSetpriv)) return std::string("needs ") + kSetpriv + " (util-linux)";
    const kdh::Runner& r = kdh::runner();
    if (!r.probe_module) return "the check's probe module is not beside it";
    kd::SpawnSpec spec;
    spec.argv = as_user(kNobody);
    spec.argv.insert(spec.argv.end(),
                     {"/bin/sh", "-c",
                      "test -x \"$1\" || { echo \"cannot run $1\"; exit 1; }; "
                      "test -r \"$2\" || { echo \"cannot read $2\"; exit 1; }; "
                      "exec /usr/bin/ldd \"$2\"",
                      "sh", r.check, *r.probe_module});
    spec.merge_err_into_out = true;
    kd::RunResult run = kd::run_supervised(spec, kd::deadline_in(20), {});
    const std::string& out = run.out.data;
    size_t missing = out.find("not found");
    if (!run.status.exited() || run.status.code != 0 || missing != std::string::npos) {
      // The line that says what is missing, or the first one.
      size_t start = 0;
      if (missing != std::string::npos) {
        size_t newline = out.rfind('\n', missing);
        start = newline == std::string::npos ? 0 : newline + 1;
      }
      std::string line = out.substr(start, out.find('\n', start) - start);
      return "as another user (uid " + std::to_string(kNobody) +
             ") the check or its libraries cannot be reached, a folder above them being closed "
             "to others (" + (line.empty() ? run.status.describe() : line) + ")";
    }
    return "";
  }();
  return why_not;
}

// {tmp} open to other users, and a folder `name` in it owned by `uid`.
std::function<std::string(const std::string&)> user_folder(uid_t uid, const std::string& name) {
  return [uid, name](const std::string& tmp) -> std::string {
    if (chmod(tmp.c_str(), 0755) != 0) return "cannot open " + tmp + " to others";
    if (name.empty()) return "";
    std::string dir = tmp + "/" + name;
    if (mkdir(dir.c_str(), 0755) != 0 || chown(dir.c_str(), uid, uid) != 0) {
      return "cannot make " + name + " for uid " + std::to_string(uid);
    }
    return "";
  };
}

// ---- memory cgroups ------------------------------------------------------

// Where a memory cgroup can be made here: under the memory hierarchy (v1) or
// the unified one (v2) when it offers the memory controller to children.
struct CgroupPlace {
  std::string root;          // folder to make the case's cgroup in
  std::string limit_file;    // memory.limit_in_bytes or memory.max
  std::string swap_file;     // memory.memsw.limit_in_bytes or memory.swap.max
  std::string home_procs;    // cgroup.procs of the cgroup this process is in
};

std::string own_cgroup_path(const std::string& controller_field) {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    size_t a = line.find(':');
    size_t b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    std::stringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');) {
      if (c == controller_field) return line.substr(b + 1);
    }
    if (controller_field.empty() && controllers.empty()) return line.substr(b + 1);
  }
  return "";
}

std::optional<CgroupPlace> cgroup_place(std::string& why_not) {
  if (exists("/sys/fs/cgroup/memory/memory.limit_in_bytes") ||
      exists("/sys/fs/cgroup/memory/cgroup.procs")) {
    std::string own = own_cgroup_path("memory");
    return CgroupPlace{"/sys/fs/cgroup/memory", "memory.limit_in_bytes",
                       "memory.memsw.limit_in_bytes",
                       "/sys/fs/cgroup/memory" + (own == "/" ? "" : own) + "/cgroup.procs"};
  }
  auto controllers = kd::read_file("/sys/fs/cgroup/cgroup.subtree_control", 4096);
  if (controllers && controllers->find("memory") != std::string::npos) {
    std::string own = own_cgroup_path("");
    return CgroupPlace{"/sys/fs/cgroup", "memory.max", "memory.swap.max",
                       "/sys/fs/cgroup" + (own == "/" ? "" : own) + "/cgroup.procs"};
  }
  why_not = "no memory controller offered to new cgroups under /sys/fs/cgroup (neither a v1 "
            "memory hierarchy nor memory in the v2 root's cgroup.subtree_control)";
  return std::nullopt;
}

std::string why_not_memory_cgroup() {
  static const std::string why_not = []() -> std::string {
    std::string reason;
    auto place = cgroup_place(reason);
    if (!place) return reason;
    std::string probe = place->root + "/kd-probe-" + std::to_string(getpid());
    if (mkdir(probe.c_str(), 0755) != 0) {
      return "cannot make a cgroup under " + place->root + ": " + strerror(errno) +
             " (the runner does not delegate cgroups)";
    }
    bool limited = exists(probe + "/" + place->limit_file);
    rmdir(probe.c_str());
    if (!limited) return "a new cgroup under " + place->root + " has no " + place->limit_file;
    if (!exists(place->home_procs)) return "cannot find this process's own cgroup to return to";
    return "";
  }();
  return why_not;
}

std::string cgroup_name() { return "kd-environment-" + std::to_string(getpid()); }

// Makes the case's cgroup with `bytes` of memory and no swap, and
// {tmp}/cgroup.sh, which runs its arguments in it, then leaves and removes it.
std::function<std::string(const std::string&)> memory_cgroup(rlim_t bytes) {
  return [bytes](const std::string& tmp) -> std::string {
    std::string reason;
    auto place = cgroup_place(reason);
    if (!place) return reason;
    std::string cg = place->root + "/" + cgroup_name();
    if (mkdir(cg.c_str(), 0755) != 0) return "cannot make " + cg;
    if (!write_script(cg + "/" + place->limit_file, std::to_string(bytes) + "\n").empty()) {
      rmdir(cg.c_str());
      return "cannot set " + place->limit_file + " of " + cg;
    }
    // No swap to escape to (where the controller offers the setting).
    if (exists(cg + "/" + place->swap_file)) {
      write_script(cg + "/" + place->swap_file,
                   (place->swap_file == "memory.swap.max" ? std::string("0")
                                                          : std::to_string(bytes)) + "\n");
    }
    return write_script(tmp + "/cgroup.sh",
                        "echo $$ > '" + cg + "/cgroup.procs' || exit 90\n"
                        "\"$@\"\nrc=$?\n"
                        "echo $$ > '" + place->home_procs + "'\n"
                        "rmdir '" + cg + "'\n"
                        "exit $rc\n");
  };
}

void cgroup_removed(const kdh::CaseRun&, std::vector<std::string>& problems) {
  std::string reason;
  auto place = cgroup_place(reason);
  std::string cg = place ? place->root + "/" + cgroup_name() : "";
  if (!cg.empty() && exists(cg)) {
    problems.push_back("the case's cgroup " + cg + " was left behind");
    rmdir(cg.c_str());
  }
}

// ---- the rest of the runner ----------------------------------------------

std::string why_not_locale() {
  static const std::string why_not = []() -> std::string {
    kd::SpawnSpec spec;
    spec.argv = {"/usr/bin/locale", "-a"};
    kd::RunResult run = kd::run_supervised(spec, kd::deadline_in(10), {});
    std::string list = run.out.data;
    for (char& c : list) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    if (list.find("de_de.utf8") == std::string::npos) {
      return "the locale de_DE.UTF-8 is not installed here (./ci/setup generates it)";
    }
    return "";
  }();
  return why_not;
}

// 1 MiB of environment in 1024 variables, and one of 120 KiB (the kernel
// takes at most 128 KiB per string), exported by {tmp}/huge-env.sh.
std::string huge_environment(const std::string& tmp) {
  std::string block(1000, 'e');
  return write_script(tmp + "/huge-env.sh",
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
  return write_script(
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

Case passes(const std::string& id) {
  return Case(id)
      .args({"--device", "cpu"})
      .outcome("CPU_CHECK_PASSED", "complete")
      .expect_field("/execution/device", "cpu")
      .expect_field("/output/written", false)
      .expect_no_new_files();
}

Case passes_with_output(const std::string& id) {
  return Case(id)
      .args({"--device", "cpu", "--output", "{tmp}/report.json"})
      .outcome("CPU_CHECK_PASSED", "complete")
      .expect_field("/execution/device", "cpu")
      .expect_field("/output/written", true);
}

// Standard streams closed by a wrapper shell before it runs the check, with
// --output: the file carries the report wherever stdout went.
Case closed_streams(const std::string& id, const std::string& closing, bool stdout_closed) {
  Case c = passes_with_output(id)
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
Case stdout_fails(const std::string& id) {
  return Case(id)
      .needs_(Need::ProbeModule)
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
          .needs_(Need::ProbeModule)
          .skip_unless(why_not_another_user)
          .prepare(user_folder(kNobody, ""), "")
          .wrap(as_user(kNobody), "runs as nobody (setpriv --reuid=65534)"),
      passes_with_output("nobody_user_writes_output")
          .guards("as nobody the check passes and writes --output into a folder of its own")
          .needs_(Need::ProbeModule)
          .skip_unless(why_not_another_user)
          .prepare(user_folder(kNobody, "out"), "a folder out/ owned by nobody")
          .wrap(as_user(kNobody), "runs as nobody (setpriv --reuid=65534)")
          .args({"--device", "cpu", "--output", "{tmp}/out/report.json"})
          .expect_file(Kind::IdenticalToStdout, "out/report.json"),
      passes("nameless_user")
          .guards("as a user id without an account (no name, no home) the check passes")
          .needs_(Need::ProbeModule)
          .skip_unless(why_not_another_user)
          .prepare(user_folder(fresh, ""), "")
          .wrap(as_user(fresh), "runs as uid " + std::to_string(fresh) + ", which no account has"),
      Case("nobody_user_output_folder_not_writable")
          .guards("as nobody, an output folder it cannot write is refused before any check runs")
          .needs_(Need::ProbeModule)
          .skip_unless(why_not_another_user)
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
          .needs_(Need::UserNamespaces)
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
          .needs_(Need::ProbeModule)
          .needs_(Need::UserNamespaces)
          .wrap(in_mount_namespace("mount -o remount,bind,ro /"),
                "/ remounted read-only in a private mount namespace"),

      // ---- process and memory limits ----
      Case("process_limit_one")
          .guards("a worker that cannot be started under a process limit is WORKER_FAILED (11) "
                  "naming the limit, not INTERNAL_ERROR")
          .needs_(Need::ProbeModule)
          .skip_unless(why_not_another_user)
          .prepare(user_folder(fresh, ""), "")
          .wrap(as_user(fresh), "runs as uid " + std::to_string(fresh))
          .limit(RLIMIT_NPROC, 1)
          .args({"--device", "cpu"})
          .outcome("WORKER_FAILED", "import")
          .expect_field("/error/type", "SpawnFailed")
          .expect_field_contains("/error/message", "Resource temporarily unavailable")
          .expect_field_contains("/message", "process limit")
          .expect_field_contains("/message", "ulimit -u")
          .expect_field_lacks("/message", "defect of the check")
          .expect_null("/execution/timings_ms/load")
          .expect_no_new_files(),
      passes("process_limit_two")
          .guards("two processes (the check and its worker) are all the check needs")
          .needs_(Need::ProbeModule)
          .skip_unless(why_not_another_user)
          .prepare(user_folder(fresh, ""), "")
          .wrap(as_user(fresh), "runs as uid " + std::to_string(fresh))
          .limit(RLIMIT_NPROC, 2),
      Case("address_space_limit_at_load")
          .guards("a libtorch that cannot be mapped under an address-space limit is "
                  "TORCH_IMPORT_FAILED (4) naming the limit and what to raise")
          .needs_(Need::ProbeModule)
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
          .limit(RLIMIT_AS, 256 * kMiB)
          .args({"--device", "cpu"})
          .outcome("OUT_OF_MEMORY", "compute")
          .expect_not_null("/execution/timings_ms/load")
          .expect_field_contains("/error/message", "can't allocate memory")
          .expect_field_contains("/message", "address-space limit")
          .expect_field_contains("/message", "256 MiB")
          .expect_no_new_files(),
      Case("memory_cgroup_too_small")
          .guards("a worker killed by a cgroup's out-of-memory killer is WORKER_FAILED (11) "
                  "naming the memory limit")
          .needs_(Need::ProbeModule)
          .skip_unless(why_not_memory_cgroup)
          .prepare(memory_cgroup(16 * kMiB), "in a cgroup of its own with 16 MiB of memory")
          .wrap({"/bin/sh", "{tmp}/cgroup.sh"}, "")
          .args({"--device", "cpu"})
          .outcome("WORKER_FAILED", "import")
          .expect_field_contains("/error/message", "SIGKILL")
          .expect_field_contains("/message", "out-of-memory killer")
          .expect_field_contains("/message", "16 MiB")
          .expect_no_new_files()
          .also(cgroup_removed),
      passes("memory_cgroup_enough")
          .guards("1 GiB of memory (a cgroup limit) is enough for the check")
          .needs_(Need::ProbeModule)
          .skip_unless(why_not_memory_cgroup)
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
                       .needs_(Need::ProbeModule)),
      without_proc(passes_with_output("no_proc_with_output")
                       .guards("without /proc --output still writes the whole report and "
                               "leaves no temporary file")
                       .needs_(Need::ProbeModule))
          .expect_file(Kind::IdenticalToStdout, "report.json"),
      passes("locale_decimal_comma")
          .guards("in a locale with a decimal comma, --timeout 7.5 is read and reported as 7.5")
          .needs_(Need::ProbeModule)
          .skip_unless(why_not_locale)
          .env("LC_ALL", "de_DE.UTF-8")
          .env("LANG", "de_DE.UTF-8")
          .args({"--device", "cpu", "--timeout", "7.5"})
          .expect_field("/requested/timeout_s", 7.5),
      Case("locale_decimal_comma_timeout")
          .guards("in a locale with a decimal comma, a 7.5 s limit stops the worker after 7.5 s "
                  "and says so with a point")
          .skip_unless(why_not_locale)
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
          .needs_(Need::ProbeModule)
          .prepare(huge_environment, "")
          .wrap({"/bin/sh", "{tmp}/huge-env.sh"},
                "1024 variables of 1 KiB and one of 120 KiB exported")
          .expect_report_lacks("kdhuge")
          .within(15),
      passes("path_unset")
          .guards("without PATH the check passes; the host check says nvidia-smi is not found")
          .needs_(Need::ProbeModule)
          .unset("PATH")
          .args({"--device", "cpu", "--host-check"})
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
          .needs_(Need::ProbeModule)
          .skip_unless(why_not_another_user)
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
