// Real manipulations of the check's surroundings that several cases share, and the requirements'
// probes use too: another user (setpriv), a private mount namespace, a memory cgroup of the
// case's own. Each returns what a Case takes: a wrapper argv, or a preparation step that
// returns "" or why it could not be made.
//
//   Case("nobody_user").needs(Requirement::AnotherUser)
//       .prepare(kdh::user_folder(kdh::kNobody, ""), "")
//       .wrap(kdh::as_user(kdh::kNobody), "runs as nobody (setpriv --reuid=65534)")
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kdh {

struct CaseRun;

inline constexpr const char* kSetpriv = "/usr/bin/setpriv";
inline constexpr const char* kUnshare = "/usr/bin/unshare";
inline constexpr uid_t kNobody = 65534;

using Preparation = std::function<std::string(const std::string& tmp)>;

// Writes a file (a script, a cgroup setting); "" or why it failed.
std::string write_text_file(const std::string& path, const std::string& text);

// A virtual environment at `folder`, made by the python3 on PATH (python3 -m venv
// --without-pip): an environment of its own, with nothing installed; "" or why not. With
// `python` and `system_site_packages`, made by that interpreter, seeing its own site-packages
// (--system-site-packages: a distribution's torch, installed by its package manager).
std::string make_virtual_environment(const std::string& folder, const std::string& python = "",
                                     bool system_site_packages = false);

// Runs `script` with /bin/sh in the folder `cwd` (a preparation that other programs do for real:
// git, git lfs); "" or why it failed, with its output.
std::string run_shell(const std::string& cwd, const std::string& script);

// {tmp}/NAME: a safetensors file of one float32 tensor of `bytes` (a multiple of 64 KiB), its
// data a hole (a sparse file: nothing on the disk), as large weights look to a check that reads
// their header, never their data.
Preparation sparse_weights(const std::string& name, unsigned long long bytes);

// The site-packages folder of the virtual environment at `venv` (lib/python3.X/site-packages,
// as venv made it); "" where there is none.
std::string virtual_environment_site(const std::string& venv);

// Installs into the site-packages `site` what `folder` holds as pip installed it there (a
// site-packages, or a folder of pip install --target): each entry linked, but those named in
// `left_out`, __pycache__ and hidden ones; "" or why not.
std::string link_installed(const std::string& folder, const std::string& site,
                           const std::vector<std::string>& left_out = {});

// ---- another user ---------------------------------------------------------------------------

// The argv prefix that runs what follows as `uid` (and its group), without supplementary groups.
std::vector<std::string> as_user(uid_t uid);

// A user id no account has, different for each test process (CTest runs each case in its own),
// so that a process limit counts this case alone.
uid_t nameless_uid();

// {tmp} opened to other users, and a folder `name` in it (none when empty) owned by `uid`.
Preparation user_folder(uid_t uid, const std::string& name);

// ---- mount namespaces ------------------------------------------------------------------------

// The argv that runs `setup` (sh) in a private user and mount namespace, then the check; a setup
// that fails exits 90.
std::vector<std::string> in_mount_namespace(const std::string& setup);

// ---- memory cgroups --------------------------------------------------------------------------

// Where a memory cgroup can be made here: under the memory hierarchy (v1) or the unified one
// (v2) when it offers the memory controller to children.
struct CgroupPlace {
  std::string root;        // folder to make the case's cgroup in
  std::string limit_file;  // memory.limit_in_bytes or memory.max
  std::string swap_file;   // memory.memsw.limit_in_bytes or memory.swap.max
  std::string home_procs;  // cgroup.procs of the cgroup this process is in
};
std::optional<CgroupPlace> cgroup_place(std::string& why_not);

// Makes the case's cgroup with `bytes` of memory and no swap, and {tmp}/cgroup.sh, which runs
// its arguments in it, then leaves and removes it.
Preparation memory_cgroup(rlim_t bytes);

// A case's `also`: the case's cgroup must be gone after the run (removed if not).
void cgroup_removed(const CaseRun& run, std::vector<std::string>& problems);

// ---- device cgroups (v1) ---------------------------------------------------------------------

// The folder of this process's own cgroup of the v1 devices hierarchy; nullopt, with `why_not`,
// where there is none (a v2-only machine).
std::optional<std::string> devices_cgroup_home(std::string& why_not);

// The device rules a container runtime (runc) gives every container: null, zero, full, random,
// urandom, tty, console, ptmx, the pseudo-terminals. A container's GPUs are rules added to them.
const std::vector<std::string>& container_device_rules();

// Makes the case's child of this process's devices cgroup that denies every device (devices.deny
// "a") and then allows `allowed` ("c 1:3 rwm", ...), and {tmp}/devices-cgroup.sh, which runs its
// arguments in it, then leaves and removes it.
Preparation devices_cgroup(std::vector<std::string> allowed);

// A case's `also`: the case's devices cgroup must be gone after the run (removed if not).
void devices_cgroup_removed(const CaseRun& run, std::vector<std::string>& problems);

}  // namespace kdh
