// Layer "process": the worker runs in a process group of its own; an
// interrupt or any exit of the check leaves nothing of it running; a worker
// killed from outside is named so; the GPU driver and libtorch stay out of the
// parent; several checks run side by side.
#include <signal.h>

#include "layer_test.hpp"
#include "manipulations.hpp"
#include "util/files.hpp"

namespace {

using kdh::Case;
using kdh::write_text_file;
using Kind = kdh::FileExpect::Kind;

// {tmp}/kill-worker.sh runs the check in the background and, once it has started its worker and
// the worker hangs at compute, kills the worker with SIGKILL from outside, as an operator's
// kill -9 or a node's agent would: a kill the check did not send, with no out-of-memory kill
// counted. The worker is the check's child, found by the parent in its /proc/<pid>/stat (the
// second field after the name's closing parenthesis).
std::string worker_killer(const std::string& tmp) {
  return write_text_file(tmp + "/kill-worker.sh",
                         "\"$@\" &\n"
                         "check=$!\n"
                         "worker=\n"
                         "tries=0\n"
                         "while [ -z \"$worker\" ] && [ $tries -lt 200 ]; do\n"
                         "  sleep 0.05; tries=$((tries+1))\n"
                         "  for stat in /proc/[0-9]*/stat; do\n"
                         "    set -- $(sed 's/.*) //' \"$stat\" 2>/dev/null)\n"
                         "    [ \"$2\" = \"$check\" ] || continue\n"
                         "    worker=${stat#/proc/}; worker=${worker%/stat}\n"
                         "  done\n"
                         "done\n"
                         "sleep 1\n"
                         "[ -n \"$worker\" ] && kill -KILL \"$worker\"\n"
                         "wait \"$check\"\n");
}

Case interrupted(const std::string& id, int sig, kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .with_fault("hang=compute")
      .args({"--timeout", "60", "--output", "{tmp}/report.json"})
      .send_signal(1.0, sig)
      .expect_killed_by(sig)
      .expect_no_report()
      .expect_file(Kind::Absent, "report.json")
      .within(2.5);
}

std::vector<Case> process_cases() {
  return {
      interrupted("sigterm_ends_worker_group", SIGTERM)
          .guards("SIGTERM to the check ends the worker's whole group; no report, no file"),
      interrupted("sigint_ends_worker_group", SIGINT)
          .guards("SIGINT to the check ends the worker's whole group; no report, no file"),
      interrupted("sighup_ends_worker_group", SIGHUP)
          .guards("SIGHUP (a closed terminal) ends the worker's whole group"),
      Case("sigkill_of_the_check_ends_its_worker")
          .guards("even a check killed outright (SIGKILL) leaves no worker running")
          .with_fault("hang=compute")
          .args({"--timeout", "60"})
          .send_signal(1.0, SIGKILL)
          .expect_killed_by(SIGKILL)
          .expect_no_report()
          .within(2.5),
      Case("worker_killed_from_outside")
          .guards("a worker killed by a SIGKILL the check did not send, no out-of-memory kill "
                  "counted, is WORKER_FAILED (11) KilledFromOutside at the stage reached")
          .with_fault("hang=compute")
          .args({"--timeout", "60"})
          .prepare(worker_killer, "its worker killed with SIGKILL from outside the check at compute")
          .wrap({"/bin/sh", "{tmp}/kill-worker.sh"}, "")
          .outcome("WORKER_FAILED", "compute")
          .expect_field("/error/type", "KilledFromOutside")
          .expect_field_contains("/error/message", "SIGKILL")
          .expect_field_contains("/message", "from outside the check during the compute stage")
          .within(10),
      Case("sigterm_with_grandchild")
          .guards("an interrupt also ends what the worker started")
          .with_fault("spawn=compute")
          .args({"--timeout", "60"})
          .send_signal(1.0, SIGTERM)
          .expect_killed_by(SIGTERM)
          .expect_no_report()
          .within(2.5),
      Case("parent_never_loads_libtorch")
          .guards("libtorch and the GPU driver load in the worker only, in its own process group")
          .args({"--device", "cpu"})
          .watch_processes()
          .outcome("CPU_CHECK_PASSED", "complete"),
      Case("parallel_checks")
          .guards("several checks run at once, each with its own report file")
          .copies(3)
          .args({"--device", "cpu", "--output", "{tmp}/report-{copy}.json"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .also([](const kdh::CaseRun& run, std::vector<std::string>& problems) {
            for (size_t i = 0; i < run.copies.size(); ++i) {
              const auto file = kd::read_file(run.tmp + "/report-" + std::to_string(i) + ".json");
              if (!file || *file != run.copies[i].result.out.data) {
                problems.push_back("copy " + std::to_string(i) +
                                   ": its file differs from its stdout");
              }
            }
          }),
  };
}

}  // namespace

KERNODECK_LAYER(process, process_cases());
