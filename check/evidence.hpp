// What the check saw after a layer failed, without asking a driver anything:
// the GPU runtime's own error number, the device nodes and whether this process
// may open them, the kernel module's and the loaded driver library's versions,
// the shape of the variables that choose the visible GPUs, and, for a library
// the loader did not find, the copy of it where the loader looks. Gathered
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

#include "probe_abi.h"

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
};

struct Evidence {
  std::optional<RuntimeAnswer> runtime;
  std::optional<std::string> driver_library;  // file name behind libcuda.so.1
  std::optional<std::string> kernel_module;   // version in /proc/driver/nvidia/version
  std::optional<DeviceNodes> device_nodes;
  std::optional<VisibleDevices> visible_devices;
  std::optional<LibraryCopy> library;
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

// ---- gathered from the machine (evidence_linux.cpp) ----

// Device nodes under `dev` ("/dev"), by their permissions: access(2) for
// reading and writing, never an open, which would start a GPU.
DeviceNodes read_device_nodes(const std::string& dev = "/dev");
// Every device fact: nodes, kernel module, the loaded driver library,
// visibility variables. No runtime answer: the worker adds the probe's.
Evidence device_evidence();
// Where the loader looks for libraries a probe module at `probe_path` needs:
// LD_LIBRARY_PATH, the module's RUNPATH (or RPATH), /etc/ld.so.conf's
// folders and the system's.
std::vector<std::string> loader_folders(const std::string& probe_path);
// The first copy of `name` in `folders`: absent, readable, not readable by
// this process, or built for another machine.
LibraryCopy find_library_copy(const std::string& name, const std::vector<std::string>& folders);

}  // namespace kd
