// Covers causes.hpp, the backend's own libraries and torch.compile: which cause a refused cuDNN
// and each lack of the toolchain are, and their words.
#include <errno.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "causes_test_support.hpp"

namespace kd {
namespace {

// ---- the backend's own libraries, torch.compile ----

BackendLibrary cudnn_found(const std::string& origin, bool refused) {
  BackendLibrary l;
  l.name = "cudnn";
  l.compiled = "9.26.0";
  l.runtime = refused ? "9.19.0" : "9.26.0";
  l.refused = refused;
  l.origin = origin;
  l.pinned = "nvidia-cudnn-cu13==9.26.0.51";
  return l;
}

TEST(RecogniseBackendLibrary, ARefusedCudnnByWhereItComesFrom) {
  EXPECT_EQ(recognise_backend_library(cudnn_found("system", false)), std::nullopt);
  EXPECT_EQ(recognise_backend_library(cudnn_found("system", true)), CauseId::CudnnFromSystem);
  EXPECT_EQ(recognise_backend_library(cudnn_found("cuda_toolkit", true)),
            CauseId::CudnnFromLibraryPath);
  EXPECT_EQ(recognise_backend_library(cudnn_found("ld_library_path", true)),
            CauseId::CudnnFromLibraryPath);
  EXPECT_EQ(recognise_backend_library(cudnn_found("other_wheel", true)), CauseId::CudnnOtherRelease);
  EXPECT_EQ(recognise_backend_library(cudnn_found("replaced_wheel", true)),
            CauseId::CudnnFilesReplaced);
  EXPECT_EQ(recognise_backend_library(cudnn_found("replaced_wheel", false)), std::nullopt);
  BackendLibrary nccl;
  nccl.name = "nccl";
  nccl.runtime = "2.30.7";
  nccl.pinned = "nvidia-nccl-cu13==2.30.7";
  EXPECT_EQ(recognise_backend_library(nccl), std::nullopt);
  nccl.runtime = "2.28.3";
  EXPECT_EQ(recognise_backend_library(nccl), CauseId::NcclNotPinned);
}

TEST(CauseWords, CudnnFilesReplacedNamesTheWheelAndWhatElseWritesThere) {
  BackendLibrary l = cudnn_found("replaced_wheel", true);
  l.distribution = "nvidia-cudnn-cu13";
  l.version = "9.26.0.51";
  FactSources sources;
  sources.library = &l;
  sources.torch_version = "2.15.0";
  Cause words = cause_words(CauseId::CudnnFilesReplaced, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what, "torch 2.15.0 refuses the cuDNN it loaded: it was built with cuDNN 9.26.0 "
                        "and found 9.19.0, in the folder of the wheel nvidia-cudnn-cu13==9.26.0.51, "
                        "in a file that is not the one that wheel installed (its size is not the "
                        "one the wheel's RECORD gives): another cuDNN was written over that "
                        "wheel's files.");
  EXPECT_TRUE(has(words.next_action,
                  "python -m pip install --force-reinstall \"nvidia-cudnn-cu13==9.26.0.51\""))
      << words.next_action;
  EXPECT_TRUE(has(words.next_action, "pip show -f")) << words.next_action;
}

TEST(CauseWords, ARefusedCudnnNamesBothVersionsWhereItComesFromAndThePin) {
  BackendLibrary l = cudnn_found("system", true);
  FactSources sources;
  sources.library = &l;
  sources.torch_version = "2.15.0";
  Cause words = cause_words(CauseId::CudnnFromSystem, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what, "torch 2.15.0 refuses the cuDNN it loaded: it was built with cuDNN 9.26.0 "
                        "and found 9.19.0, from the system's library path (ld.so.cache).");
  EXPECT_TRUE(has(words.next_action,
                  "python -m pip install --force-reinstall \"nvidia-cudnn-cu13==9.26.0.51\""))
      << words.next_action;
}

TEST(RecogniseCompile, ATorchWithoutTorchCompile) {
  // Debian 12's torch 1.13: AttributeError, and nothing of inductor's toolchain to judge; the
  // Python headers missing too must not make it a toolchain's cause.
  CompileFacts old;
  old.exception = "AttributeError";
  old.words = "module 'torch' has no attribute 'compile'";
  old.in_torch = false;
  old.python_headers = false;
  EXPECT_EQ(recognise_compile(old), CauseId::CompileNotInTorch);
  FactSources sources;
  sources.compile = &old;
  sources.torch_version = "1.13.0a0+git7c98e70";
  Cause words = cause_words(CauseId::CompileNotInTorch, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what, "torch.compile was asked, and torch 1.13.0a0+git7c98e70 has none: "
                        "torch.compile came with torch 2.0 (module 'torch' has no attribute "
                        "'compile').");
  EXPECT_TRUE(has(words.next_action, "run the check without --compile")) << words.next_action;
  old.in_torch = true;
  EXPECT_EQ(recognise_compile(old), CauseId::CompilePythonHeadersMissing);
}

TEST(RecogniseCompile, WhatTheToolchainLacks) {
  CompileFacts cpu;
  cpu.exception = "InvalidCxxCompiler";
  cpu.cxx_found = false;
  EXPECT_EQ(recognise_compile(cpu), CauseId::CompileNoCxxCompiler);
  cpu.exception = "CppCompileError";
  cpu.cxx_found = true;
  cpu.python_headers = false;
  EXPECT_EQ(recognise_compile(cpu), CauseId::CompilePythonHeadersMissing);
  cpu.python_headers = true;
  EXPECT_EQ(recognise_compile(cpu), CauseId::CompileError);
  CompileFacts gpu;
  gpu.gpu = true;
  gpu.triton = "3.8.0";
  gpu.triton_pinned = "~=3.9.0";
  EXPECT_EQ(recognise_compile(gpu), CauseId::CompileTritonMismatch);
  gpu.triton = "3.9.1";
  gpu.cc_found = false;
  EXPECT_EQ(recognise_compile(gpu), CauseId::CompileNoCCompiler);
  gpu.cc_found = true;
  EXPECT_EQ(recognise_compile(gpu), CauseId::CompileError);
}

}  // namespace
}  // namespace kd
