// What the check saw after a layer failed, without asking a driver anything:
// the GPU runtime's own error number, the device nodes and whether this process
// may open them (and, when not, whether their mode, a device cgroup or an
// unmapped group refuses them), the kernel module's and the loaded driver
// library's versions, the driver libraries where the loader looks, the shape of
// the variables that choose the visible GPUs, a WSL2 kernel, a ROCm GPU's
// architecture, and, for a library the loader did not find or took from an
// unexpected folder, the copy of it where the loader looks. Gathered
// only after a failure (a pass pays nothing), the device facts only in GPU
// mode. It is the report's error.evidence: fixed words, counts and version
// tokens, never a path of the machine or a value of its environment.
//
//   Evidence e = device_evidence();          // after the device layer failed
//   e.runtime = runtime_answer(status);      // the probe's runtime_status
//   event["error"]["evidence"] = evidence_json(e);
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probe/probe_abi.h"

namespace kd {

enum class NodeState { Absent, Accessible, NotAccessible };

// The GPU runtime's answer (probe_abi.h, runtime_status).
struct RuntimeAnswer {
  std::string api;                            // "cuda" or "hip"
  int error = 0;                              // its error number; 0: none named
  std::string error_name;                     // "cudaErrorSystemDriverMismatch"
  std::optional<std::string> driver_version;  // "12.4"; none when it reports no driver
  std::optional<std::string> runtime_version; // "13.2"
};

struct DeviceNodes {
  NodeState nvidiactl = NodeState::Absent;
  NodeState nvidia_uvm = NodeState::Absent;
  int nvidia_gpus = 0;             // /dev/nvidiaN
  int nvidia_gpus_accessible = 0;  // of those, the ones this process may open
  NodeState kfd = NodeState::Absent;
  int render_nodes = 0;            // /dev/dri/renderD*
  int render_nodes_accessible = 0;
  NodeState dxg = NodeState::Absent;  // /dev/dxg, WSL2's way to the GPU
};

// The GPU nodes the kernel refused with EPERM when their permissions were
// asked (access(2), never an open): a device cgroup refuses them (v1's
// devices.list, or a BPF device program), whatever their mode says. A refusal
// by their mode is EACCES, and is not counted here.
struct DeviceCgroup {
  std::string hierarchy = "none";           // "v1", "v2" or "none": where this process's is
  std::optional<std::string> devices_list;  // v1: "allows" or "denies" the GPU nodes there
  bool nvidiactl = false;                   // refused
  bool nvidia_uvm = false;
  int nvidia_gpus = 0;                      // how many /dev/nvidiaN are refused
  bool kfd = false;
  int render_nodes = 0;
};

// The user namespace this process runs in, as the GPU nodes' group shows it.
struct UserNamespace {
  bool identity = true;          // /proc/self/gid_map maps every group (the initial namespace)
  int unmapped_group_nodes = 0;  // GPU nodes refused by their mode whose group is not mapped
                                 // here (it shows as the overflow gid)
};

// The NVIDIA driver's libraries where the loader looks (LD_LIBRARY_PATH, the
// folders of /etc/ld.so.conf, the system's), found without loading them.
struct DriverFiles {
  bool libcuda_so_1 = false;                  // a libcuda.so.1
  std::optional<std::string> libcuda_file;    // the real file's name behind it
  std::optional<std::string> libcuda_folder;  // its folder's role: stubs, compat or other
  // The version of a libcuda.so.<version> there while no libcuda.so.1 is (the link missing).
  std::optional<std::string> libcuda_version_without_link;
  bool libnvidia_ml_so_1 = false;             // NVML, mounted with the utility capability
};

// A ROCm GPU's architecture, read from the kernel's KFD topology after a
// computation failed on it.
struct RocmFacts {
  std::optional<std::string> gfx_target;  // "gfx1031"
  // The shape of HSA_OVERRIDE_GFX_VERSION, never its value: version, empty, other; unset: none.
  std::optional<std::string> hsa_override_gfx_version;
};

// Each variable that chooses visible GPUs, and the shape of its value when set.
using VisibleDevices = std::vector<std::pair<std::string, std::optional<std::string>>>;

enum class CopyState { Absent, Readable, NotReadable, OtherMachine, Damaged };

// A library the loader said it could not find, looked for where it looks; or
// one the import needs, found damaged after the import failed or killed the
// worker (library_damage.hpp).
struct LibraryCopy {
  LibraryCopy() = default;
  LibraryCopy(std::string name_, CopyState found_, std::optional<std::string> machine_ = {})
      : name(std::move(name_)), found(found_), machine(std::move(machine_)) {}

  std::string name;                    // its file name, "libc10.so"
  CopyState found = CopyState::Absent;
  std::optional<std::string> machine;  // for OtherMachine: "aarch64"
  // For Damaged: the file's size, the size its headers need (null where they do not parse),
  // and how it is damaged: truncated, bad_header, dynamic_outside, symbol_table or
  // record_mismatch.
  std::optional<long long> size;
  std::optional<long long> needed_size;
  std::optional<std::string> damage;
  // For a library the loader took (Readable): the role of the folder it took it from:
  // cuda_toolkit (a CUDA toolkit's folder that LD_LIBRARY_PATH names), ld_library_path
  // (another folder it names), own_path (the needing file's RPATH or RUNPATH), system.
  std::optional<std::string> folder;
};

struct Evidence {
  std::optional<RuntimeAnswer> runtime;
  std::optional<std::string> driver_library;  // file name behind libcuda.so.1
  std::optional<std::string> kernel_module;   // version in /proc/driver/nvidia/version
  std::optional<DeviceNodes> device_nodes;
  std::optional<VisibleDevices> visible_devices;
  std::optional<LibraryCopy> library;
  std::optional<DeviceCgroup> device_cgroup;
  std::optional<UserNamespace> user_namespace;
  std::optional<DriverFiles> driver_files;
  std::optional<bool> wsl_kernel;  // the kernel release names microsoft (WSL2's kernel)
  std::optional<RocmFacts> rocm;
};

// The report's error.evidence: every key, null where not looked at.
nlohmann::ordered_json evidence_json(const Evidence& evidence);
// The evidence of a worker's event, key by key as evidence_json writes it;
// nullopt, with `problem`, for anything else.
std::optional<Evidence> evidence_from_json(const nlohmann::json& value, std::string& problem);

// The variables evidence looks at, in report order.
const std::vector<std::string>& visibility_variables();
// The shape of a value, never the value: empty, -1, void, none, all,
// uuid_list, index_list or other.
std::string visibility_shape(std::string_view value);

// The runtime's answer in the report's words ("cuda", versions "13.2"); nullopt
// when no runtime could be asked.
std::optional<RuntimeAnswer> runtime_answer(const kd_runtime_status& status);
// 13020 -> "13.2" (CUDA), 60241133 -> "6.2" (HIP); nullopt for 0 or less.
std::optional<std::string> runtime_version_text(const std::string& api, int version);

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  ..." -> "535.104.05".
std::optional<std::string> kernel_module_version(std::string_view proc_text);
// "libcuda.so.550.54.15" -> "550.54.15"; nullopt without a version.
std::optional<std::string> library_file_version(std::string_view file_name);

// Whether a cgroup v1 devices.list lets this process read and write the
// character device major:minor ("a *:* rwm", "c 195:* rw", ...).
bool devices_list_allows(std::string_view list, unsigned major, unsigned minor);
// The folder of this process's v1 devices cgroup, from /proc/self/cgroup and
// /proc/self/mountinfo (where its hierarchy is mounted, and which cgroup is
// the mount's root); "" where there is none (cgroup v2 only).
std::string devices_cgroup_folder(std::string_view proc_cgroup, std::string_view mountinfo);
// Whether the groups `gid_map` maps on this side include `gid`.
bool gid_map_covers(std::string_view gid_map, unsigned long gid);
// Whether `gid_map` maps every group: the initial namespace's "0 0 4294967295".
bool gid_map_is_identity(std::string_view gid_map);
// A KFD node's gfx_target_version as its target's name: 90010 -> "gfx90a",
// 100301 -> "gfx1031"; nullopt for 0 (a CPU node) or less.
std::optional<std::string> gfx_target_name(long long version);
// The shape of an HSA_OVERRIDE_GFX_VERSION value: version ("10.3.0"), empty, other.
std::string gfx_override_shape(std::string_view value);
// The role of a folder of LD_LIBRARY_PATH: cuda_toolkit for a CUDA toolkit's
// library folder (.../cuda/lib64, .../cuda-13.0/lib, .../cuda/targets/*/lib),
// else ld_library_path.
std::string library_path_role(std::string_view folder);

// ---- gathered from the machine (evidence_linux.cpp) ----

// Device nodes under `dev` ("/dev"), by their permissions: access(2) for
// reading and writing, never an open, which would start a GPU.
DeviceNodes read_device_nodes(const std::string& dev = "/dev");
// Every device fact: nodes (and what refuses them), kernel module, the loaded
// driver library and the driver's files where the loader looks, visibility
// variables, a WSL2 kernel. No runtime answer: the worker adds the probe's.
Evidence device_evidence();
// A ROCm GPU's facts after its computation failed: the target of GPU `index`
// in the KFD topology under `sysfs` ("/sys"), and HSA_OVERRIDE_GFX_VERSION's shape.
RocmFacts rocm_facts(long long index, const std::string& sysfs = "/sys");
// The NVIDIA driver's files in `folders`, in the loader's order.
DriverFiles driver_files_in(const std::vector<std::string>& folders);
// The folders the loader looks in for a library no object names a path for:
// LD_LIBRARY_PATH, /etc/ld.so.conf's folders and the system's.
std::vector<std::string> search_folders();
// Where the loader looks for libraries a probe module at `probe_path` needs:
// LD_LIBRARY_PATH, the module's RUNPATH (or RPATH), /etc/ld.so.conf's
// folders and the system's.
std::vector<std::string> loader_folders(const std::string& probe_path);
// The first copy of `name` in `folders`: absent, readable, not readable by
// this process, or built for another machine.
LibraryCopy find_library_copy(const std::string& name, const std::vector<std::string>& folders);

}  // namespace kd
