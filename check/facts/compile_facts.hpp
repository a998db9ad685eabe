// What the python probe (probe/python/compile.py, compile_stage) saw of a torch.compile that failed
// (--compile): the error behind torch.compile's wrappers, and what its toolchain needs where it
// runs (a C++ compiler and the Python headers for inductor's C++ code on the CPU, triton of the
// release torch pins and a C compiler for its launcher on a GPU). The check recognises the cause
// from them (causes.hpp, recognise_compile):
//
//   CompileFacts facts = compile_facts_of(answer["facts"], gpu);
//   CauseId id = recognise_compile(facts);   // CompileNoCxxCompiler, ...
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kd {

struct CompileFacts {
  bool gpu = false;              // compiled for a GPU (triton), else for the CPU (C++)
  std::string exception, words;  // the innermost error: its class ("InvalidCxxCompiler"), first line
  bool in_torch = true;          // torch has torch.compile at all (it came with torch 2.0)
  bool cxx_found = true;         // the C++ compiler inductor is configured with is on PATH
  bool python_headers = true;    // the interpreter's Python.h
  bool cc_found = true;          // a C compiler for triton's launcher (CC, gcc, cc, clang)
  std::string triton;            // the triton installed ("" for none)
  std::string triton_pinned;     // torch's requirement on it: "~=3.9.0" ("" for none)
};

// From a python probe's "compile" answer's facts; missing or mistyped keys keep their defaults.
CompileFacts compile_facts_of(const nlohmann::json& facts, bool gpu);

// Triton missing, or not a release torch's pin admits.
bool triton_mismatch(const CompileFacts& facts);

}  // namespace kd
