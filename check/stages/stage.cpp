#include "stages/stage.hpp"

#include <cmath>
#include <cstring>

namespace kd {

using Ms = std::chrono::duration<double, std::milli>;

double ms_since(std::chrono::steady_clock::time_point start) {
  double ms = Ms(std::chrono::steady_clock::now() - start).count();
  return std::round(ms * 1000.0) / 1000.0;
}

std::string bounded(const char* text, size_t capacity) {
  return std::string(text, strnlen(text, capacity));
}

std::string device_label(const WorkerRequest& r) { return device_label(r.device, r.index); }

ojson text_or_null(const char* text, size_t capacity) {
  std::string s = bounded(text, capacity);
  return s.empty() ? ojson(nullptr) : ojson(s);
}

GpuFailure gpu_failure(const kd_probe& probe, const WorkerRequest& request,
                       const std::string& library_words, bool device_layer) {
  GpuFailure f{device_layer ? device_evidence() : Evidence{}, library_words};
  kd_runtime_status status{};
  kd_error ignored{};
  if (probe.runtime_status(KD_DEVICE_CUDA, request.index, library_words.c_str(), &status,
                           &ignored) != KD_OK) {
    return f;
  }
  f.evidence.runtime = runtime_answer(status);
  // A computation that failed on a ROCm GPU: its architecture, from the kernel's KFD topology.
  if (!device_layer && f.evidence.runtime && f.evidence.runtime->api == "hip") {
    f.evidence.rocm = rocm_facts(request.index);
  }
  if (f.evidence.runtime && status.error_number != 0) {
    std::string name = f.evidence.runtime->error_name;
    f.words = (name.empty() ? f.evidence.runtime->api + " error" : name) + " (" +
              std::to_string(status.error_number) +
              "): " + bounded(status.error_text, sizeof status.error_text);
  }
  return f;
}

std::string device_name(Device device) { return device == Device::Cpu ? "cpu" : "cuda"; }

std::string device_label(Device device, long long index) {
  return device == Device::Cpu ? "cpu" : "cuda:" + std::to_string(index);
}

}  // namespace kd
