// The probe module worker_test loads through run_worker, healthy or flawed.
// KD_TEST_PROBE_MODE picks: unset, a healthy CPU-only library; "abi", a wrong
// interface version; "null", an entry point that gives no probe; "loads", a
// probe that loads libtorch itself (as the stable probe does) and answers as
// KD_TEST_TORCH_ANSWER says: "ok", "old" (a release too old), or else the
// loader's words it fails with.
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <string>

#include "probe/probe_abi.h"

namespace {

kd_status library_info(kd_library_info* out, kd_error*) {
  strcpy(out->version, "1.13.1");
  out->cuda_version[0] = '\0';
  out->hip_version[0] = '\0';
  out->backend = KD_BACKEND_NONE;
  return KD_OK;
}

kd_status gpu_info(kd_gpu_info* out, kd_error*) {
  out->available = 0;
  out->device_count = 0;
  return KD_OK;
}

kd_status init_device(int, long long, kd_error*) { return KD_OK; }

kd_status compute(int, long long, kd_compute_result* out, kd_error*) {
  const float product[4] = {2, 2, 6, 4};
  const float gradient[4] = {56, 28, 56, 28};
  memcpy(out->product, product, sizeof product);
  memcpy(out->gradient, gradient, sizeof gradient);
  out->loss = 196;
  out->synchronized = 0;
  return KD_OK;
}

kd_status memory(long long, kd_memory_info* out, kd_error*) {
  out->allocated_bytes = -1;
  out->reserved_bytes = -1;
  return KD_OK;
}

kd_status device_info(long long, kd_device_info* out, kd_error*) {
  out->name[0] = '\0';
  out->capability[0] = '\0';
  return KD_OK;
}

kd_status runtime_status(int, long long, const char*, kd_runtime_status* out, kd_error*) {
  *out = kd_runtime_status{};
  return KD_OK;
}

// load_library of a probe that loads libtorch itself; the folder must be the one named.
kd_status load_library(const char* torch_dir, kd_error* err) {
  const char* answer = getenv("KD_TEST_TORCH_ANSWER");
  std::string a = answer != nullptr ? answer : "ok";
  if (torch_dir == nullptr || std::string(torch_dir) != "/kd-test/torch") {
    strcpy(err->type, "loader");
    strcpy(err->message, "the test probe was given another torch folder");
    return KD_RUNTIME_ERROR;
  }
  if (a == "ok") return KD_OK;
  if (a == "old") {
    strcpy(err->type, "StableAbiTooOld");
    strcpy(err->message, "libtorch 2.9.1 lacks torch_call_dispatcher and 4 more");
    return KD_RUNTIME_ERROR;
  }
  strcpy(err->type, "loader");
  snprintf(err->message, sizeof err->message, "%s", a.c_str());
  return KD_RUNTIME_ERROR;
}

const kd_probe kHealthy = {KD_PROBE_ABI_VERSION, library_info, gpu_info, init_device, compute,
                           memory, device_info, runtime_status, KD_PROBE_KIND_LIBTORCH, nullptr};
const kd_probe kFutureAbi = {KD_PROBE_ABI_VERSION + 1, library_info, gpu_info, init_device,
                             compute, memory, device_info, runtime_status, KD_PROBE_KIND_LIBTORCH,
                             nullptr};

}  // namespace

extern "C" __attribute__((visibility("default"))) const kd_probe* KD_PROBE_ENTRY(void) {
  const char* mode = getenv("KD_TEST_PROBE_MODE");
  std::string m = mode != nullptr ? mode : "";
  if (m == "abi") return &kFutureAbi;
  if (m == "null") return nullptr;
  if (m == "loads") {
    static const kd_probe kLoads = {KD_PROBE_ABI_VERSION, library_info,   gpu_info,
                                    init_device,          compute,        memory,
                                    device_info,          runtime_status, KD_PROBE_KIND_STABLE_ABI,
                                    load_library};
    return &kLoads;
  }
  return &kHealthy;
}
