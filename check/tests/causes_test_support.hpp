// What the tests of the cause catalogue share (causes_*test.cpp): a cause printed as its
// error.type, and the evidence, limits and imports several layers' tests start from.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "causes/causes.hpp"
#include "probe/probe_abi.h"

namespace kd {

// A cause in a failure message: its error.type.
inline void PrintTo(CauseId id, std::ostream* os) { *os << cause_info(id).type; }

inline bool has(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

// The CUDA runtime's answer `error` on a machine whose nodes and one GPU are all there and no
// visibility variable is set.
inline Evidence cuda_answer(int error, std::optional<std::string> driver = std::string("13.2")) {
  Evidence e;
  e.runtime = RuntimeAnswer{"cuda", error, "cudaErrorX", std::move(driver), std::string("13.2")};
  DeviceNodes n;
  n.nvidiactl = NodeState::Accessible;
  n.nvidia_uvm = NodeState::Accessible;
  n.nvidia_gpus = n.nvidia_gpus_accessible = 1;
  e.device_nodes = n;
  VisibleDevices none;
  for (const auto& v : visibility_variables()) none.emplace_back(v, std::nullopt);
  e.visible_devices = none;
  return e;
}

// A v1 device cgroup whose devices.list refuses the control nodes and the one GPU.
inline DeviceCgroup v1_cgroup_refusing_all() {
  DeviceCgroup c;
  c.hierarchy = "v1";
  c.devices_list = "denies";
  c.nvidiactl = c.nvidia_uvm = true;
  c.nvidia_gpus = 1;
  return c;
}

// The facts of a cause the worker met, with its evidence, words and limits.
inline Facts facts_for(const Evidence* e, std::string_view words,
                       const ResourceLimits& limits = {}) {
  FactSources sources;
  sources.evidence = e;
  sources.error_message = words;
  sources.backend = "cuda";
  sources.capability = "9.0";
  sources.limits = &limits;
  return cause_facts(sources, Sanitizer({}));
}

inline constexpr unsigned long long kMiB = 1024 * 1024;

inline ResourceLimits address_space(unsigned long long bytes) {
  ResourceLimits limits;
  limits.address_space = bytes;
  return limits;
}

inline TorchFacts torch_215() { return TorchFacts{"2.15.0", "13.2", true}; }

// torchvision 0.24.1, made for torch 2.9.1 (CUDA 12), imported by torch 2.15.0 (CUDA 13.2).
inline ExtensionImport torchvision_for_other_torch() {
  ExtensionImport e;
  e.module = "torchvision";
  e.distribution = "torchvision";
  e.version = "0.24.1";
  e.requires_torch = "==2.9.1";
  e.torch = torch_215();
  e.torch_matches = false;
  e.cuda_majors = {"12"};
  e.failed = true;
  e.phase = "import";
  e.exception = "RuntimeError";
  e.words = "operator torchvision::nms does not exist";
  return e;
}

}  // namespace kd
