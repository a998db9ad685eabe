#include "stages/application/precision.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "causes/causes.hpp"
#include "probe/probe_abi.h"

namespace kd {
namespace {

// The probe's enumeration of a precision torch names (probe_abi.h, kd_precision), in its order.
constexpr const char* kPrecisionNames[] = {"float16", "bfloat16", "float8_e4m3fn",
                                           "float8_e5m2", "float32", "float64"};

int precision_number(const std::string& dtype) {
  const auto* found = std::find(std::begin(kPrecisionNames), std::end(kPrecisionNames), dtype);
  return found == std::end(kPrecisionNames) ? -1 : static_cast<int>(found - kPrecisionNames);
}

// One precision through the probe module's entry, as a run.
PrecisionRun run_in(kd_compute_in_fn compute_in, const WorkerRequest& request,
                    const std::string& dtype) {
  PrecisionRun run;
  run.dtype = dtype;
  run.device = device_label(request);
  kd_compute_result r{};
  kd_error err{};
  const auto start = std::chrono::steady_clock::now();
  const int kind = request.device == Device::Cuda ? KD_DEVICE_CUDA : KD_DEVICE_CPU;
  const kd_status status = compute_in(kind, request.index, precision_number(dtype), &r, &err);
  run.seconds = std::round(ms_since(start) * 1000.0) / 1e6;
  run.ran = status == KD_OK;
  if (!run.ran) {
    run.exception = bounded(err.type, sizeof err.type);
    run.missing = run.exception == KD_ERROR_DTYPE_MISSING;
    run.words = bounded(err.message, sizeof err.message);
    return run;
  }
  run.product.assign(std::begin(r.product), std::end(r.product));
  if (r.gradient_source != KD_GRADIENT_NONE) {
    run.gradient.assign(std::begin(r.gradient), std::end(r.gradient));
  }
  run.loss = r.loss;
  return run;
}

}  // namespace

ojson precision_entries(const std::vector<PrecisionRun>& runs,
                        std::optional<PrecisionRun>& failure, std::string& wrong) {
  ojson entries = ojson::array();
  for (const PrecisionRun& run : runs) {
    const std::string mismatch = run.ran ? precision_mismatch(run) : "";
    const bool verified = run.ran && mismatch.empty();
    entries.push_back({{"dtype", run.dtype},
                       {"device", run.device},
                       {"verified", verified},
                       {"seconds", run.seconds ? ojson(*run.seconds) : ojson(nullptr)}});
    if (!verified && !failure) {
      wrong = mismatch;
      failure = run;
    }
  }
  return entries;
}

std::string precision_words(const PrecisionRun& run) {
  if (run.missing) return "torch has no dtype " + run.dtype;
  return (run.exception.empty() ? "" : run.exception + ": ") + run.words;
}

bool precision_failed(const PrecisionRun& failed, const std::string& wrong, FindingsSink& sink) {
  if (failed.ran) {
    // Numbers, and wrong ones: the check's verification failed, as the computation's would.
    sink.outcome(Outcome::CheckFailed, Stage::Application,
                 ErrorInfo{failure_type(Failure::CheckMismatch),
                           "in " + failed.dtype + " on " + failed.device + ": " + wrong});
    return false;
  }
  const CauseInfo& row = cause_info(recognise_precision(failed));
  sink.outcome(row.outcome, Stage::Application,
               ErrorInfo{std::string(row.type), precision_words(failed)});
  return false;
}

bool precision_stage(const WorkerRequest& request, FindingsSink& sink) {
  sink.stage(Stage::Application);
  // The module is loaded already: this takes a reference and finds its optional entry.
  void* module = dlopen(request.probe_path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  auto compute_in = module != nullptr ? reinterpret_cast<kd_compute_in_fn>(
                                            dlsym(module, KD_PRECISION_ENTRY_SYMBOL))
                                      : nullptr;
  if (compute_in == nullptr) {
    sink.outcome(Outcome::InternalError, Stage::Application,
                 ErrorInfo{failure_type(Failure::ProbeIncompatible),
                           "the probe module cannot compute in another precision (it has "
                           "no " KD_PRECISION_ENTRY_SYMBOL ")"});
    return false;
  }
  std::vector<PrecisionRun> runs;
  for (const std::string& dtype : request.dtypes) {
    runs.push_back(run_in(compute_in, request, dtype));
    if (!runs.back().ran || !precision_mismatch(runs.back()).empty()) break;
  }
  std::optional<PrecisionRun> failure;
  std::string wrong;
  const ojson entries = precision_entries(runs, failure, wrong);
  sink.facts("application", {{"extensions", ojson::array()},
                             {"weights", ojson::array()},
                             {"precisions", entries},
                             {"memory", nullptr}});
  if (failure) return precision_failed(*failure, wrong, sink);
  return true;
}

std::optional<PrecisionRun> failed_precision_of(const WorkerFindings& findings) {
  if (findings.precision_failure) return findings.precision_failure;
  const ojson& block = findings.application;
  if (!block.is_object() || !block.contains("precisions") || !findings.error) return std::nullopt;
  for (const ojson& entry : block["precisions"]) {
    if (entry.value("verified", true) != false) continue;
    PrecisionRun run;
    run.dtype = entry.value("dtype", std::string());
    run.device = entry.value("device", std::string());
    const std::string& message = findings.error->message;
    run.missing = cause_from_type(findings.error->type) == CauseId::PrecisionNotInTorch;
    // "c10::Error: words": the exception, then torch's words.
    const size_t colon = message.find(": ");
    const bool named = colon != std::string::npos && message.find(' ') > colon;
    run.exception = named ? message.substr(0, colon) : "";
    run.words = named ? message.substr(colon + 2) : message;
    return run;
  }
  return std::nullopt;
}

}  // namespace kd
