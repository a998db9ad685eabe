#include "stages/backend/backend_stage.hpp"

namespace kd {

bool backend_stage(const kd_probe& probe, const WorkerRequest& request, Stages& s,
                   kd_error& err) {
  s.enter(Stage::Backend);
  kd_library_info lib{};
  if (kd_status st = probe.library_info(&lib, &err); st != KD_OK) {
    // libtorch loaded but cannot describe itself: it is not usable.
    s.finish_at(Outcome::TorchImportFailed, Stage::Import,
                ErrorInfo{bounded(err.type, sizeof err.type),
                          bounded(err.message, sizeof err.message)});
    return false;
  }
  const char* backend = lib.backend == KD_BACKEND_CUDA   ? "cuda"
                        : lib.backend == KD_BACKEND_ROCM ? "rocm"
                                                         : "none";
  s.facts("pytorch", {{"version", text_or_null(lib.version, sizeof lib.version)},
                      {"cuda", text_or_null(lib.cuda_version, sizeof lib.cuda_version)},
                      {"hip", text_or_null(lib.hip_version, sizeof lib.hip_version)},
                      {"backend", backend}});
  if (request.device == Device::Cuda && lib.backend == KD_BACKEND_NONE) {
    s.finish(Outcome::GpuBackendAbsent,
             ErrorInfo{failure_type(Failure::GpuBackendAbsent),
                       "libtorch " + bounded(lib.version, sizeof lib.version) +
                           " was built with neither CUDA nor HIP"});
    return false;
  }
  return true;
}

}  // namespace kd
