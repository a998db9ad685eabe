// What the python probe (probe/python/weights.py, check_weights) saw of a weights file asked with
// --weights, opened as an application loads it in the interpreter and torch the computation ran
// in, never running code from it: the format its first bytes show, what its header or torch.load
// found (tensors, bytes, dtypes), and where it could not be used, the facts (the system's error
// number, the size a Git LFS pointer or a header promises, the globals weights_only refuses, the
// damage), never its path. The check recognises the cause from them (causes.hpp,
// recognise_weights):
//
//   WeightsFile facts = weights_file_of(answer);
//   CauseId id = recognise_weights(facts);   // WeightsGitLfsPointer, ...
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kd {

// A weights file asked with --weights: the path as given, and its base name, computed here once
// for every room that names it (the python probe's answers, the application stage, the report).
struct WeightsAsked {
  std::string path;  // as given: "models/model.safetensors"
  std::string name;  // "model.safetensors"
};
WeightsAsked weights_asked(const std::string& path);

struct WeightsFile {
  std::string file;    // its base name: "model.safetensors"
  // What its first bytes show: a weights format ("safetensors", "torch_zip", "torch_legacy"),
  // another framework's ("gguf", "numpy", "hdf5", "pickle"), something else ("git_lfs_pointer",
  // "html", "text", "zip", "gzip", "bzip2", "xz", "7z", "tar", "elf", "empty", "folder",
  // "unknown"), or "" where it could not be opened.
  std::string format;
  bool verified = false;  // its header, or torch.load, found every tensor where it says
  std::optional<long long> tensors, bytes;
  std::vector<std::string> dtypes;  // torch's names: "float32", "bfloat16"
  std::optional<double> seconds;

  std::string error_name;               // opening it failed: the system's error ("ENOENT")
  std::optional<long long> size;        // its size in bytes
  std::string mode;                     // its permission bits: "0600"
  bool owner_other = false;             // owned by another user than the one running the check
  std::optional<long long> lfs_size;    // a Git LFS pointer: the size of the object it stands for
  bool cut = false;                     // shorter than its format needs (a cut download)
  std::optional<long long> promised_size;  // the size its header promises, where it says
  std::string damage;                   // what of its header or archive does not hold together
  std::vector<std::string> unsupported_dtypes;  // its dtypes the torch present lacks ("F8_E4M3")
  std::vector<std::string> refused_globals;     // the globals weights_only refuses ("mypkg.Net")
  bool no_weights_only = false;         // the torch present has no torch.load(weights_only=...)
  std::string exception, words;         // torch.load's failure: its class and first line
};

// From a python probe's "weights" answer; missing or mistyped keys stay empty.
WeightsFile weights_file_of(const nlohmann::json& answer);

// Whether torch reads files of this format (torch.save's, safetensors').
bool is_weights_format(const std::string& format);
// Another framework's weights, which torch does not read.
bool is_foreign_weights_format(const std::string& format);
// The format in words: "a safetensors file", "an HTML page", "a GGUF file (llama.cpp)".
std::string format_words(const std::string& format);

}  // namespace kd
