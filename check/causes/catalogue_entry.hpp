// How a layer's file of the catalogue (causes/<layer>.hpp) writes its causes: each cause one
// entry, its row on one line (CAUSE(Name), stage, outcome, where met, how recognised), then its words.
// Included by catalogue.cpp alone, which joins the layers' tables into the one catalogue.
#pragma once

#include <array>
#include <string_view>

#include "causes/causes.hpp"

namespace kd::catalogue {

// ---- how a row is recognised (Recogniser, causes.hpp) ----

using N = std::array<int, 4>;
using W = std::array<std::string_view, 3>;

// A GPU runtime's error numbers: CUDA's, HIP's, or either's; and the sign with them.
constexpr Recogniser cuda(N numbers, Sign sign = nullptr) {
  return {Api::Cuda, numbers, {}, {}, sign};
}
constexpr Recogniser hip(N numbers, Sign sign = nullptr) {
  return {Api::Hip, numbers, {}, {}, sign};
}
constexpr Recogniser runtime(N numbers, Sign sign = nullptr) {
  return {Api::Both, numbers, {}, {}, sign};
}
// The system's error numbers (errno).
constexpr Recogniser system_errors(N numbers) { return {Api::System, numbers, {}, {}, nullptr}; }
// One of the words, and `and_word` where given.
constexpr Recogniser says(W words, std::string_view and_word = {}) {
  return {Api::Both, {}, words, and_word, nullptr};
}
// The sign alone.
constexpr Recogniser seeing(Sign sign) { return {Api::Both, {}, {}, {}, sign}; }
// The layer's generic row: whatever no row before it recognised.
constexpr Recogniser kOtherwise{};

// The catalogue's columns in short: a stage or an outcome by its name alone; kCount for
// kDeviceCount, and kCountOrStart for a cause met whether a GPU is usable or the device starts.
constexpr Stage Import = Stage::Import, Backend = Stage::Backend, Device = Stage::Device,
                Compute = Stage::Compute, Compile = Stage::Compile,
                Application = Stage::Application, Output = Stage::Output;
constexpr Outcome GpuUnavailable = Outcome::GpuUnavailable, TorchMissing = Outcome::TorchMissing,
                  TorchImportFailed = Outcome::TorchImportFailed,
                  RuntimeError = Outcome::RuntimeError, WorkerFailed = Outcome::WorkerFailed,
                  InternalError = Outcome::InternalError, OutOfMemory = Outcome::OutOfMemory,
                  OutputWriteFailed = Outcome::OutputWriteFailed,
                  ExtensionImportFailed = Outcome::ExtensionImportFailed,
                  WeightsUnusable = Outcome::WeightsUnusable,
                  BackendLibraryMismatch = Outcome::BackendLibraryMismatch,
                  CompileFailed = Outcome::CompileFailed;
constexpr unsigned kCount = kDeviceCount, kCountOrStart = kDeviceCount | kDeviceStart,
                   kSearchOrImport = kTorchSearch | kPythonImport;

// A cause's one name: its CauseId, its error.type and its key.
#define CAUSE(name) CauseId::name, #name, SnakeCase(#name, SnakeCase::kLower)

}  // namespace kd::catalogue
