// Layer "privacy": a report never carries environment variables, paths of
// the machine, host or user names, process identifiers or raw traces. Canary
// values (secret variables, an unusual working directory and HOME) must not
// come out anywhere: stdout, stderr or the file.
#include <unistd.h>

#include "layer_test.hpp"

namespace {

using kdh::Case;
using Kind = kdh::FileExpect::Kind;

void no_process_ids(const kdh::CaseRun& run, std::vector<std::string>& problems) {
  // No key of the report may name a process or session identifier.
  const std::string& out = run.main().result.out.data;
  for (const char* word : {"\"pid\"", "\"ppid\"", "\"pgid\"", "\"sid\"", "\"session", "\"hostname\"",
                           "\"user\"", "\"cwd\"", "\"home\"", "\"env\"", "\"path\""}) {
    if (out.find(word) != std::string::npos) {
      problems.push_back(std::string("the report has a key ") + word);
    }
  }
}

std::vector<Case> privacy_cases() {
  return {
      Case("canaries_on_pass")
          .guards("a passing report carries no variable, path, host or user name")
          .with_privacy_canaries()
          .args({"--device", "cpu", "--output", "report.json"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .also(no_process_ids),
      Case("canaries_in_library_error")
          .guards("a library error naming the working directory, HOME and a secret is cut and "
                  "redacted")
          .with_privacy_canaries()
          .with_fault("error=compute")
          .args({"--output", "report.json"})
          .outcome("RUNTIME_ERROR", "compute")
          .also(no_process_ids),
      Case("canaries_in_loader_error")
          .guards("a loader error keeps the library's file name, never its folder")
          .with_privacy_canaries()
          .with_probe("{fixtures}/libkd_absent_torch_probe.so")
          .args({"--device", "cpu"})
          .outcome("TORCH_MISSING", "import")
          .expect_report_lacks("link-only")
          .expect_report_lacks("fixtures"),
      Case("canaries_in_output_error")
          .guards("an output error does not repeat the output path")
          .with_privacy_canaries()
          .file("taken.json", "{}")
          .args({"--device", "cpu", "--output", "{tmp}/taken.json"})
          .outcome("OUTPUT_WRITE_FAILED", "output")
          .expect_report_lacks("taken.json"),
      Case("canaries_in_worker_death")
          .guards("a worker's last words are cut like any other message")
          .with_privacy_canaries()
          .with_fault("crash=compute")
          .outcome("WORKER_FAILED", "compute"),
      Case("no_raw_trace")
          .guards("an error keeps only its first line, never a raw exception trace")
          .with_fault("oom=compute")
          .outcome("OUT_OF_MEMORY", "compute")
          .expect_report_lacks("Exception raised from")
          .expect_report_lacks("Alloc.cpp"),
  };
}

}  // namespace

KERNODECK_LAYER(privacy, privacy_cases());
