// Details of a machine in a folder made on it: GPU evidence (docs/evidence/), made on a GPU runner
// whose folders and names this machine does not know, so found by their shapes, and any folder
// held against this machine's own (kernodeck-evidence --published). What kernodeck-junit publish
// writes needs no scan: it is written under the privacy rule (check/facts/sanitize.hpp).
//
//   MachineDetails machine = this_machine();
//   machine.paths.push_back("/srv/ci/checkout");
//   for (const Problem& p : check_published_folder("reports", machine, binary, scanned)) ...
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace kd::published {

struct Problem {
  std::string file;     // the file, or the missing one, as DIR/relative path
  std::string problem;  // what does not hold
};

// The plain files under `root`, relative to it and sorted. A link is a problem,
// `link_problem` (it would publish or follow what lies outside), and so is anything
// else that is neither a plain file nor a folder.
std::vector<std::filesystem::path> plain_files(const std::filesystem::path& root,
                                               const std::string& link_problem,
                                               std::vector<Problem>& problems);

// Details of a machine in a text: absolute paths under /home /root /tmp /work
// /var /mnt /srv /Users (unless right after a placeholder such as {out}), GPU
// UUIDs, MAC addresses, IPv4 addresses other than 127.0.0.1 and 0.0.0.0, and
// e-mail addresses. One entry per kind found: the first one, its line, how many.
std::vector<std::string> privacy_problems(const std::string& text);

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
std::vector<Problem> check_published_folder(const std::string& dir, const MachineDetails& machine,
                                            std::vector<std::string>& binary,
                                            std::size_t& scanned);

}  // namespace kd::published
