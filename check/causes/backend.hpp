// The backend's own libraries' causes: cuDNN or NCCL refused, found where torch does not look,
// or not the release torch pins.
#pragma once

#include "causes/catalogue_entry.hpp"

namespace kd::catalogue {

// ---- the signs: what must hold of what was seen ----

inline bool dnn_refused(const Seen& s) { return s.library != nullptr && s.library->refused; }

inline bool dnn_from_library_path(const Seen& s) {
  return dnn_refused(s) &&
         (s.library->origin == "cuda_toolkit" || s.library->origin == "ld_library_path");
}

inline bool dnn_files_replaced(const Seen& s) {
  return dnn_refused(s) && s.library->origin == "replaced_wheel";
}

inline bool dnn_other_release(const Seen& s) {
  return dnn_refused(s) &&
         (s.library->origin == "other_wheel" || s.library->origin == "pinned_wheel");
}

inline bool ccl_not_pinned(const Seen& s) {
  return s.library != nullptr && (s.library->name == "nccl" || s.library->name == "rccl") &&
         ccl_other_than_pinned(*s.library);
}

// The causes, in the order they are tried: the first whose row fits is the cause.
// clang-format off
inline constexpr CauseInfo kBackendCauses[] = {
    // ---- backend: the backend's own libraries (the python probe) ----
    {CAUSE(CudnnFromLibraryPath),             Backend, BackendLibraryMismatch, kBackendLibraries, seeing(dnn_from_library_path),
     "a cuDNN torch refuses, taken from a folder LD_LIBRARY_PATH names",
     "torch's own rule (torch.backends.cudnn's check of the runtime's version against the one it "
     "was built with, applied without asking for a GPU) refuses it while the library loaded is "
     "in a folder of LD_LIBRARY_PATH",
     "torch {torch_version} refuses the {dnn} it loaded: it was built with {dnn} "
     "{dnn_compiled} and found {dnn_runtime}, from {dnn_origin}.",
     "Take that folder off LD_LIBRARY_PATH, or put it after the folders of torch's own "
     "libraries, so that torch loads the {dnn} it pins ({dnn_pinned}; python -m pip install "
     "\"{dnn_pinned}\" where it is missing)."},
    {CAUSE(CudnnFilesReplaced),               Backend, BackendLibraryMismatch, kBackendLibraries, seeing(dnn_files_replaced),
     "a cuDNN torch refuses, in the files of the wheel torch pins, written over",
     "torch's own rule refuses it while the library loaded lies where a distribution's RECORD "
     "lists it, with another size than the RECORD gives: the wheel's files were replaced, and "
     "the library itself (cudnnGetVersion) says its release",
     "torch {torch_version} refuses the {dnn} it loaded: it was built with {dnn} "
     "{dnn_compiled} and found {dnn_runtime}, in {dnn_origin}: another {dnn} was written over "
     "that wheel's files.",
     "Reinstall the wheel's own files: python -m pip install --force-reinstall \"{dnn_pinned}\", "
     "with this environment's python; then find what wrote over them (a second wheel that owns "
     "the same paths, as pip show -f lists them, an image step that copies a system's {dnn} into "
     "site-packages, an install with --no-deps) and take it out, or it will write them again."},
    {CAUSE(CudnnOtherRelease),                Backend, BackendLibraryMismatch, kBackendLibraries, seeing(dnn_other_release),
     "a cuDNN torch refuses, from another release's wheel",
     "torch's own rule refuses it while the library loaded is a distribution's files "
     "(its RECORD lists it) of another release or name than torch's Requires-Dist pins",
     "torch {torch_version} refuses the {dnn} it loaded: it was built with {dnn} "
     "{dnn_compiled} and found {dnn_runtime}, from {dnn_origin}.",
     "Reinstall the release torch pins: python -m pip install --force-reinstall \"{dnn_pinned}\", "
     "with this environment's python (another package's pin may have replaced it)."},
    {CAUSE(CudnnFromSystem),                  Backend, BackendLibraryMismatch, kBackendLibraries, seeing(dnn_refused),
     "a cuDNN torch refuses, from the system's library path",
     "torch's own rule refuses it while the library loaded is found through the "
     "system's library path (ld.so.cache: a CUDA toolkit's, a distribution's package)",
     "torch {torch_version} refuses the {dnn} it loaded: it was built with {dnn} "
     "{dnn_compiled} and found {dnn_runtime}, from {dnn_origin}.",
     "Install the release torch pins into this environment, which torch loads before the "
     "system's: python -m pip install --force-reinstall \"{dnn_pinned}\", with this "
     "environment's python."},
    {CAUSE(NcclNotPinned),                    Backend, BackendLibraryMismatch, kBackendLibraries, seeing(ccl_not_pinned),
     "an NCCL other than the release torch pins (a warning)",
     "the NCCL loaded (torch.cuda.nccl.version()) is of another release than torch's "
     "Requires-Dist pins; torch does not refuse it: a warning, never a failure",
     "torch {torch_version} loaded {ccl} {ccl_runtime}, from {ccl_origin}, and pins "
     "{ccl_pinned}.",
     "Reinstall the release torch pins (python -m pip install --force-reinstall "
     "\"{ccl_pinned}\") before running several GPUs or nodes together."},
};
// clang-format on

}  // namespace kd::catalogue
