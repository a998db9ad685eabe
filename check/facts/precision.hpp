// What the python probe (probe/python/precision.py and memory.py) saw of the application's
// precisions and memory, after its modules imported: the contract's computation run again in a
// dtype (--dtype, and the floating dtypes of the weights files asked), and the bytes the weights
// asked need against what this process may still use, measured before any of them is loaded.
// The check verifies the numbers and recognises the cause from them (causes/application.hpp):
//
//   PrecisionRun run = precision_run_of(answer);      // "precision" answer
//   WeightsMemory memory = weights_memory_of(answer); // "weights_memory" answer
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kd {

struct PrecisionRun {
  std::string dtype;   // torch's name: "float16", "float8_e4m3fn"
  std::string device;  // "cpu", "cuda:0"
  bool ran = false;    // the computation returned numbers
  // Its numbers (product, gradient: four each; the gradient empty for float8, which autograd
  // has none of) and the loss, as the probe gave them.
  std::vector<double> product, gradient;
  std::optional<double> loss;
  std::optional<double> seconds;
  bool missing = false;          // this torch has no such dtype (float8 before torch 2.1)
  std::string exception, words;  // what stopped it: the exception's class and first line
};

// From a "precision" answer; missing or mistyped keys stay empty.
PrecisionRun precision_run_of(const nlohmann::json& answer);

// The numbers of a run that returned, against the contract's (product [[2,2],[6,4]], loss 196,
// gradient [[56,28],[56,28]] where there is one): "" where they hold, else the first mismatch.
std::string precision_mismatch(const PrecisionRun& run);

// The weights asked against the memory this process may use on the chosen device.
struct WeightsMemory {
  long long weights_bytes = 0;                 // the sum of their tensors' bytes
  std::optional<long long> available_bytes;    // the least room found; nullopt: none measured
  // What binds: "device" (the GPU's free memory), "cgroup" (the container's memory limit less
  // its usage), "available" (MemAvailable), "address_space" (ulimit -v); "" for nothing measured.
  std::string limited_by;
  bool fits = true;
  std::optional<double> seconds;
};

// From a "weights_memory" answer.
WeightsMemory weights_memory_of(const nlohmann::json& answer);

}  // namespace kd
