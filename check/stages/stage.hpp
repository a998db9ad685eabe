// The stages' frame: what each stage of the contract's order (import, backend, device, compute,
// compile, application; one folder each below) is given and says its findings through.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "causes/causes.hpp"
#include "facts/protocol.hpp"
#include "probe/probe_abi.h"

namespace kd {

// The device a run computes on (--device).
enum class Device { Cuda, Cpu };

std::string device_name(Device device);

// Where a report says the computation ran: "cpu", or "cuda:N" for GPU `index`.
std::string device_label(Device device, long long index);

// What the worker is asked: the device, the probe, and what the application adds.
struct WorkerRequest {
  Device device = Device::Cuda;
  long long index = 0;
  std::string probe_path;
  // The torch folder the parent found for a probe that loads libtorch itself (the stable
  // probe, torch_location.hpp); empty otherwise.
  std::string torch_dir;
  // The modules of the application asked with --import and the weights files of --weights, in
  // order (the python probe's alone).
  std::vector<std::string> imports;
  std::vector<WeightsAsked> weights;
  bool compile = false;  // --compile: the computation a second time through torch.compile
  // --dtype: the precisions to compute in after the computation (the python probe's and the
  // compiled probe's), torch's names, in order.
  std::vector<std::string> dtypes = {};
};

std::string device_label(const WorkerRequest& request);

// Milliseconds since `start`, to the microsecond.
double ms_since(std::chrono::steady_clock::time_point start);

// Copies a C string of a probe that might not be terminated.
std::string bounded(const char* text, size_t capacity);

// The text, or null where it is empty.
ojson text_or_null(const char* text, size_t capacity);

// A stage's events: entering it, its facts, and the run's outcome where it ends there.
class Stages {
 public:
  explicit Stages(FindingsSink& sink) : sink_(sink) {}

  void enter(Stage stage) {
    stage_ = stage;
    sink_.stage(stage);
  }
  // A stage a hook entered and said itself (run_stages' after_compute).
  void enter_quietly(Stage stage) { stage_ = stage; }
  void facts(std::string_view section, const ojson& values) { sink_.facts(section, values); }
  void finish(Outcome outcome, std::optional<ErrorInfo> error = std::nullopt) {
    finish_at(outcome, stage_, std::move(error));
  }
  void finish_at(Outcome outcome, Stage stage, std::optional<ErrorInfo> error) {
    sink_.outcome(outcome, stage, error);
  }
  // A probe call that failed: OUT_OF_MEMORY or RUNTIME_ERROR at this stage,
  // with what was seen after it, if anything.
  void finish_probe_error(kd_status status, const kd_error& err,
                          std::optional<Evidence> evidence = std::nullopt) {
    Outcome outcome = status == KD_OUT_OF_MEMORY ? Outcome::OutOfMemory : Outcome::RuntimeError;
    finish(outcome, ErrorInfo{bounded(err.type, sizeof err.type),
                              bounded(err.message, sizeof err.message), std::move(evidence)});
  }
  // A cause of the catalogue: its outcome, its error.type.
  void finish_cause(CauseId cause, std::string message, std::optional<Evidence> evidence) {
    const CauseInfo& row = cause_info(cause);
    finish(row.outcome, ErrorInfo{std::string(row.type), std::move(message), std::move(evidence)});
  }

 private:
  FindingsSink& sink_;
  Stage stage_ = Stage::Import;
};

// A GPU call failed: what the GPU runtime says of it, and for the device layer
// what the machine shows. Asked only after a failure in GPU mode.
struct GpuFailure {
  Evidence evidence;
  std::string words;  // the runtime's own, when it names the error; else the library's
};
GpuFailure gpu_failure(const kd_probe& probe, const WorkerRequest& request,
                       const std::string& library_words, bool device_layer);

}  // namespace kd
