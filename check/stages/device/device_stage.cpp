#include "stages/device/device_stage.hpp"

#include <algorithm>
#include <chrono>

namespace kd {
namespace {

// The GPU asked for is there: available, and the index among the visible
// devices. False once it has finished the run.
bool gpu_is_there(const kd_probe& probe, const WorkerRequest& request, Stages& s,
                  kd_error& err) {
  kd_gpu_info g{};
  if (kd_status st = probe.gpu_info(&g, &err); st != KD_OK) {
    GpuFailure f = gpu_failure(probe, request, bounded(err.message, sizeof err.message), true);
    s.finish_probe_error(st, err, std::move(f.evidence));
    return false;
  }
  s.facts("pytorch", {{"gpu_available", g.available != 0},
                      {"visible_device_count", std::max(0LL, g.device_count)}});
  if (g.available == 0 || g.device_count <= 0) {
    // The library's reason when it gave one (probe_abi.h), else what it counted.
    std::string words = bounded(err.message, sizeof err.message);
    if (words.empty()) {
      words = std::string("libtorch reports the GPU ") +
              (g.available != 0 ? "available" : "unavailable") + " with " +
              std::to_string(std::max(0LL, g.device_count)) + " visible device(s)";
    }
    GpuFailure f = gpu_failure(probe, request, words, true);
    CauseId cause = recognise_device(f.evidence, words, kDeviceCount).value_or(CauseId::GpuUnavailable);
    s.finish_cause(cause, f.words, std::move(f.evidence));
    return false;
  }
  if (request.index < 0 || request.index >= g.device_count) {
    s.finish(Outcome::DeviceIndexInvalid,
             ErrorInfo{failure_type(Failure::DeviceIndexInvalid),
                       "device index " + std::to_string(request.index) + " is outside the " +
                           std::to_string(g.device_count) + " visible device(s)"});
    return false;
  }
  return true;
}

}  // namespace

bool device_stage(const kd_probe& probe, const WorkerRequest& request, Stages& s,
                  kd_error& err) {
  const bool gpu = request.device == Device::Cuda;
  s.enter(Stage::Device);
  auto device_start = std::chrono::steady_clock::now();
  if (gpu && !gpu_is_there(probe, request, s, err)) return false;
  kd_status init = probe.init_device(gpu ? KD_DEVICE_CUDA : KD_DEVICE_CPU, request.index, &err);
  s.facts("execution", {{"timings_ms", {{"device_init", ms_since(device_start)}}}});
  if (init != KD_OK) {
    if (!gpu) {
      s.finish_probe_error(init, err);
      return false;
    }
    GpuFailure f = gpu_failure(probe, request, bounded(err.message, sizeof err.message), true);
    if (auto cause = recognise_device(f.evidence, "", kDeviceStart)) {
      s.finish_cause(*cause, f.words, std::move(f.evidence));
    } else {
      s.finish_probe_error(init, err, std::move(f.evidence));
    }
    return false;
  }
  if (gpu) {
    // Informative: which GPU this is. A failure to tell leaves both null.
    kd_device_info d{};
    kd_error ignored{};
    if (probe.device_info(request.index, &d, &ignored) == KD_OK) {
      s.facts("execution", {{"device_name", text_or_null(d.name, sizeof d.name)},
                            {"capability", text_or_null(d.capability, sizeof d.capability)}});
    }
  }
  return true;
}

}  // namespace kd
