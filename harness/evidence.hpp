// Committed GPU evidence (docs/evidence/<gpu>-<date>/, what `ci/gpu-proof run`
// wrote) held against the contract: every report in it by the suite's own
// invariants (report_problems), and every file for details of the machine
// that must not be published. kernodeck-evidence and its tests share this.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kdh {

struct EvidenceProblem {
  std::string file;     // the file, or the missing one, as DIR/relative path
  std::string problem;  // what does not hold
};

// The files a folder needs to be complete, relative to it.
const std::vector<std::string>& evidence_required_files();

// The check's arguments as the report's `requested` and `output.requested`
// record them: --device, --device-index, --timeout, --host-check, --output.
std::vector<std::string> arguments_from_report(const nlohmann::json& report);

// Details of a machine in a text: absolute paths under /home /root /tmp /work
// /var /mnt /srv /Users (unless right after a placeholder such as {out}), GPU
// UUIDs, MAC addresses, IPv4 addresses other than 127.0.0.1 and 0.0.0.0, and
// e-mail addresses. One entry per kind found: the first one, its line, how many.
std::vector<std::string> privacy_problems(const std::string& text);

// Everything that does not hold in one evidence folder, in file order.
std::vector<EvidenceProblem> check_evidence_folder(const std::string& dir);

// What identifies the machine a run was made on, beyond what privacy_problems
// finds in any text: its own folders (the checkout, the build tree, HOME),
// found anywhere as written, and its names (host name, user name), found as
// whole words (not inside a longer name such as "kvm" or "vm-2").
struct MachineDetails {
  std::vector<std::string> paths;
  std::vector<std::string> names;
};

// The machine this runs on: its HOME (unless unset or "/"), its host name and
// the user's name, unless root (every machine has one, and the suite's own
// promises use the word).
MachineDetails this_machine();

// The machine's details in a text: privacy_problems, then each path and name
// of `machine` found, with its line and count.
std::vector<std::string> machine_problems(const std::string& text, const MachineDetails& machine);

// A folder of published reports (reports/, what dashboards and artifacts
// show): every file, in every subfolder, held by machine_problems. A file that
// holds a NUL byte is binary (a screenshot) and is listed in `binary` instead;
// a link is a problem, since it points into the machine.
std::vector<EvidenceProblem> check_published_folder(const std::string& dir,
                                                    const MachineDetails& machine,
                                                    std::vector<std::string>& binary,
                                                    size_t& scanned);

}  // namespace kdh
