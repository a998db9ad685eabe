#include "stages/compute/compute.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <cmath>
#include <sstream>

namespace kd {
namespace {

constexpr float kProduct[4] = {2, 2, 6, 4};
constexpr float kGradient[4] = {56, 28, 56, 28};

std::string matrix_text(const float (&m)[4]) {
  std::ostringstream s;
  s << "[[" << m[0] << "," << m[1] << "],[" << m[2] << "," << m[3] << "]]";
  return s.str();
}

bool matches(const float (&got)[4], const float (&want)[4]) {
  for (int i = 0; i < 4; ++i) {
    // Exact: NaN compares unequal, inf differs from every expected value.
    if (!(got[i] == want[i])) return false;
  }
  return true;
}

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

Verification verify(const kd_compute_result& r) {
  Verification v;
  v.product_ok = matches(r.product, kProduct);
  // Beside an autograd gradient the stable probe gives the formula's as well: both must hold.
  const bool explicit_ok = r.explicit_computed == 0 || matches(r.explicit_gradient, kGradient);
  v.gradient_ok = matches(r.gradient, kGradient) && explicit_ok;
  v.loss_ok = r.loss == kExpectedLoss;
  if (!v.product_ok) {
    v.problem = "product " + matrix_text(r.product) + " differs from the expected " +
                matrix_text(kProduct);
  } else if (!v.loss_ok) {
    std::ostringstream s;
    s << "loss " << r.loss << " differs from the expected " << kExpectedLoss;
    v.problem = s.str();
  } else if (!matches(r.gradient, kGradient)) {
    v.problem = std::string(r.gradient_source == KD_GRADIENT_EXPLICIT ? "explicit " : "") +
                "gradient " + matrix_text(r.gradient) + " differs from the expected " +
                matrix_text(kGradient);
  } else if (!v.gradient_ok) {
    v.problem = "explicit gradient " + matrix_text(r.explicit_gradient) +
                " differs from the expected " + matrix_text(kGradient) +
                " (the autograd gradient is right)";
  }
  return v;
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
