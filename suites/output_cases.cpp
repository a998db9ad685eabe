// Layer "output": --output writes a new file, byte-identical to stdout,
// whole or not at all, never over anything; an unusable destination fails
// before any check runs.
#include <signal.h>
#include <sys/resource.h>

#include <fstream>

#include "layer_test.hpp"

namespace {

using kdh::Case;
using kdh::Requirement;
using Kind = kdh::FileExpect::Kind;

// Refused before any work: fast, and libtorch was never loaded.
Case refused(const std::string& id, kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .args({"--device", "cpu", "--output", "{tmp}/report.json"})
      .outcome("OUTPUT_WRITE_FAILED", "output")
      .expect_field("/output/requested", true)
      .expect_field("/output/written", false)
      .expect_null("/execution/timings_ms/load")
      .expect_null("/pytorch/version")
      .within(0.3);
}

std::vector<Case> output_cases() {
  return {
      Case("new_file_identical_to_stdout")
          .guards("--output writes a new file byte-identical to stdout")
          .args({"--device", "cpu", "--output", "{tmp}/report.json"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/output/written", true)
          .expect_file(Kind::IdenticalToStdout, "report.json"),
      Case("relative_name_in_working_directory")
          .guards("a relative --output name is created in the working directory")
          .in_folder("work")
          .directory("work")
          .with_fault("gpus=1")
          .args({"--device", "cpu", "--output", "report.json"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_file(Kind::IdenticalToStdout, "work/report.json"),
      Case("failed_check_still_writes_report")
          .guards("a failed check's report is written too, identical to stdout")
          .with_fault("product=wrong")
          .args({"--output", "{tmp}/report.json"})
          .outcome("CHECK_FAILED", "compute")
          .expect_field("/output/written", true)
          .expect_file(Kind::IdenticalToStdout, "report.json"),
      refused("existing_file_untouched")
          .guards("an existing file is never overwritten, and is refused before any check runs")
          .file("report.json", "{\"precious\": \"yesterday's report\"}\n")
          .expect_file(Kind::Unchanged, "report.json"),
      refused("existing_empty_file_untouched")
          .guards("an existing file is never overwritten, even an empty one")
          .file("report.json", "")
          .expect_file(Kind::Unchanged, "report.json"),
      refused("dangling_symlink_refused")
          .guards("a dangling symlink counts as existing: refused, nothing created through it")
          .dangling_symlink("report.json")
          .expect_file(Kind::StillDangling, "report.json"),
      refused("destination_is_a_folder")
          .guards("a folder at the destination is refused before any check runs")
          .directory("report.json"),
      refused("folder_is_a_file_refused")
          .guards("a destination whose folder is a file is refused before any check runs, and "
                  "the file is left as it was")
          .file("plain", "not a folder\n")
          .args({"--device", "cpu", "--output", "{tmp}/plain/report.json"})
          .expect_field_contains("/error/message", "is not a folder")
          .expect_file(Kind::Unchanged, "plain")
          .expect_no_new_files()
          .expect_no_worker(),
      Case("missing_folder_refused")
          .guards("a destination whose folder is missing is refused before any check runs")
          .args({"--device", "cpu", "--output", "{tmp}/no-such-folder/report.json"})
          .outcome("OUTPUT_WRITE_FAILED", "output")
          .expect_null("/execution/timings_ms/load")
          .expect_file(Kind::Absent, "no-such-folder")
          .within(0.3),
      Case("write_fails_file_size_limit")
          .guards("a write failing midway (file-size limit) is exit 12 after a pass, leaving no "
                  "partial and no temporary file")
          .limit_file_size(256)
          .with_fault("gpus=1")
          .args({"--device", "cpu", "--output", "{tmp}/report.json"})
          .outcome("OUTPUT_WRITE_FAILED", "output")
          .expect_field("/output/written", false)
          .expect_field("/execution/product_verified", true)
          .expect_file(Kind::Absent, "report.json"),
      Case("write_fails_after_failed_check")
          .guards("if the check had failed, its own code stands when the write fails too")
          .with_fault("product=wrong")
          .limit_file_size(256)
          .args({"--output", "{tmp}/report.json"})
          .outcome("CHECK_FAILED", "compute")
          .expect_field("/output/written", false)
          .expect_file(Kind::Absent, "report.json"),
      Case("write_fails_disk_full")
          .guards("a write failing on a full disk is exit 12, no partial and no temporary file")
          .needs(Requirement::UserNamespaces)
          .directory("full")
          .wrap({"/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh", "-c",
                 "mount -t tmpfs -o size=16k kdfull {tmp}/full || exit 90; "
                 "head -c 1048576 /dev/zero > {tmp}/full/filler 2>/dev/null; "
                 "\"$@\"; rc=$?; ls -A {tmp}/full > {tmp}/after.txt; exit $rc", "sh"},
                "a 16 KiB tmpfs, filled up, mounted over the output folder")
          .with_fault("gpus=1")
          .args({"--device", "cpu", "--output", "{tmp}/full/report.json"})
          .outcome("OUTPUT_WRITE_FAILED", "output")
          .expect_field("/output/written", false)
          .also([](const kdh::CaseRun& run, std::vector<std::string>& problems) {
            // What the full filesystem held once the check was done.
            std::ifstream in(run.tmp + "/after.txt");
            std::string name, left;
            while (std::getline(in, name)) {
              if (name != "filler") left += " " + name;
            }
            if (!in.eof()) problems.push_back("the full filesystem could not be listed");
            if (!left.empty()) problems.push_back("left on the full filesystem:" + left);
          }),
  };
}

}  // namespace

KERNODECK_LAYER(output, output_cases());
