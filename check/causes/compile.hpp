// The compile layer's causes: torch.compile missing from this torch, or the toolchain it needs
// missing from the image.
#pragma once

#include "causes/catalogue_entry.hpp"

namespace kd::catalogue {

// ---- the signs: what must hold of what was seen ----

inline bool compile_not_in_torch(const Seen& s) { return s.compile != nullptr && !s.compile->in_torch; }

inline bool compile_no_cxx(const Seen& s) {
  return s.compile != nullptr &&
         (s.compile->exception == "InvalidCxxCompiler" || (!s.compile->gpu && !s.compile->cxx_found));
}

inline bool compile_no_python_headers(const Seen& s) {
  return s.compile != nullptr && !s.compile->gpu && !s.compile->python_headers;
}

inline bool compile_triton_mismatch(const Seen& s) {
  return s.compile != nullptr && s.compile->gpu && triton_mismatch(*s.compile);
}

inline bool compile_no_cc(const Seen& s) {
  return s.compile != nullptr && s.compile->gpu && !s.compile->cc_found;
}

// The causes, in the order they are tried: the first whose row fits is the cause.
// clang-format off
inline constexpr CauseInfo kCompileCauses[] = {
    // ---- compile: the computation through torch.compile (--compile, the python probe) ----
    {CAUSE(CompileNotInTorch),                Compile, CompileFailed,         kCompile,     seeing(compile_not_in_torch),
     "a torch without torch.compile",
     "--compile asked of a torch that has no torch.compile at all (it came with torch 2.0)",
     "torch.compile was asked, and torch {torch_version} has none: torch.compile came with "
     "torch 2.0 ({compile_words}).",
     "Install torch 2.0 or later into this environment (python -m pip install --upgrade torch, "
     "with this environment's python, from the index of the CUDA or ROCm build the application "
     "needs), or run the check without --compile: this torch runs the application eagerly only."},
    {CAUSE(CompileNoCxxCompiler),             Compile, CompileFailed,         kCompile,     seeing(compile_no_cxx),
     "no C++ compiler for torch.compile",
     "torch.compile raises InvalidCxxCompiler, or, on the CPU, the C++ compiler inductor is "
     "configured with is not on PATH",
     "torch.compile failed: inductor found no working C++ compiler ({compile_words}).",
     "Install one in the image (apt-get install g++, or build-essential), or set CXX to a "
     "compiler the image has."},
    {CAUSE(CompilePythonHeadersMissing),      Compile, CompileFailed,         kCompile,     seeing(compile_no_python_headers),
     "no Python headers for torch.compile",
     "torch.compile failed on the CPU while the interpreter's Python.h (sysconfig's include "
     "folder) is missing",
     "torch.compile failed: the Python headers of this interpreter (Python {python_version}) are "
     "missing ({compile_words}).",
     "Install them (apt-get install python3-dev, or the interpreter's own -dev package; a "
     "python.org or conda interpreter ships its own)."},
    {CAUSE(CompileTritonMismatch),            Compile, CompileFailed,         kCompile,     seeing(compile_triton_mismatch),
     "triton missing, or not the release torch pins",
     "torch.compile failed on a GPU while triton is not installed or its version does not "
     "satisfy torch's Requires-Dist on it",
     "torch.compile failed on the GPU: triton {compile_triton}, and torch {torch_version} "
     "pins triton{compile_triton_pinned} ({compile_words}).",
     "Install the triton release torch pins: python -m pip install \"triton{compile_triton_pinned}\", "
     "with this environment's python."},
    {CAUSE(CompileNoCCompiler),               Compile, CompileFailed,         kCompile,     seeing(compile_no_cc),
     "no C compiler for triton's launcher",
     "torch.compile failed on a GPU while no C compiler (CC, gcc, cc, clang) is on PATH",
     "torch.compile failed on the GPU: triton found no C compiler to build its launcher with "
     "({compile_words}).",
     "Install one in the image (apt-get install gcc), or set CC to a compiler the image has."},
    {CAUSE(CompileError),                     Compile, CompileFailed,         kCompile,     kOtherwise,
     "torch.compile failed, cause not recognised",
     "any other error of torch.compile",
     "torch.compile failed: {compile_exception}: {compile_words}.",
     "Run the same computation through torch.compile in that interpreter with TORCH_LOGS=inductor "
     "to see the whole error, and check torch.compile's toolchain."},
};
// clang-format on

}  // namespace kd::catalogue
