#include "stages/compute/compute.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <cmath>

#include "facts/computation.hpp"

namespace kd {
namespace {

// The GPU allocator's counters after the computation; null on the CPU, and
// each counter null where it cannot be read (they are informative).
ojson memory_facts(const kd_probe& probe, const WorkerRequest& request) {
  if (request.device != Device::Cuda) return nullptr;
  kd_memory_info m{-1, -1};
  kd_error ignored{};
  if (probe.memory(request.index, &m, &ignored) != KD_OK) {
    return {{"allocated_bytes", nullptr}, {"reserved_bytes", nullptr}};
  }
  return {{"allocated_bytes", m.allocated_bytes >= 0 ? ojson(m.allocated_bytes) : ojson()},
          {"reserved_bytes", m.reserved_bytes >= 0 ? ojson(m.reserved_bytes) : ojson()}};
}

}  // namespace

ojson resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long long size = 0, resident = 0;
  if (!(statm >> size >> resident)) return nullptr;
  return resident * sysconf(_SC_PAGESIZE);
}

ojson stage_memory(const kd_probe& probe, const WorkerRequest& request) {
  ojson allocator = memory_facts(probe, request);
  const auto counter = [&allocator](const char* key) {
    return allocator.is_object() ? allocator[key] : ojson(nullptr);
  };
  return {{"rss_bytes", resident_bytes()},
          {"allocated_bytes", counter("allocated_bytes")},
          {"reserved_bytes", counter("reserved_bytes")}};
}

// compute: the fixed computation, verified here. False once it has finished the run.
bool compute_stage(const kd_probe& probe, const WorkerRequest& request, Stages& s,
                   kd_error& err) {
  const bool gpu = request.device == Device::Cuda;
  s.enter(Stage::Compute);
  auto compute_start = std::chrono::steady_clock::now();
  kd_compute_result r{};
  kd_status st = probe.compute(gpu ? KD_DEVICE_CUDA : KD_DEVICE_CPU, request.index, &r, &err);
  if (st != KD_OK) {
    s.facts("execution", {{"timings_ms", {{"compute", ms_since(compute_start)}}}});
    if (!gpu) {
      s.finish_probe_error(st, err);
      return false;
    }
    GpuFailure f = gpu_failure(probe, request, bounded(err.message, sizeof err.message), false);
    if (auto cause = recognise_compute(f.evidence)) {
      s.finish_cause(*cause, f.words, std::move(f.evidence));
    } else {
      s.finish_probe_error(st, err, std::move(f.evidence));
    }
    return false;
  }
  Verification v = verify(r);
  ojson memory = memory_facts(probe, request);
  ojson loss = std::isfinite(r.loss) ? ojson(static_cast<double>(r.loss)) : ojson(nullptr);
  s.facts("execution", {{"device", device_label(request)},
                        {"product_verified", v.product_ok},
                        {"gradient_verified", v.gradient_ok},
                        {"loss", loss},
                        {"synchronized", gpu ? ojson(r.synchronized != 0) : ojson(nullptr)},
                        {"gradient_source",
                         r.gradient_source == KD_GRADIENT_EXPLICIT ? "explicit" : "autograd"},
                        {"timings_ms", {{"compute", ms_since(compute_start)}}},
                        {"memory", memory}});
  if (!v.product_ok || !v.gradient_ok || !v.loss_ok) {
    s.finish(Outcome::CheckFailed, ErrorInfo{failure_type(Failure::CheckMismatch), v.problem});
    return false;
  }
  if (gpu && r.synchronized == 0) {
    s.finish(Outcome::CheckFailed, ErrorInfo{failure_type(Failure::NotSynchronized),
                                             "results were read without synchronizing the device"});
    return false;
  }
  return true;
}

}  // namespace kd
