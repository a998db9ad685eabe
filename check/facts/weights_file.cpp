#include "facts/weights_file.hpp"

#include <utility>

#include "facts/json_fields.hpp"

namespace kd {
namespace {

using json_field::count;
using json_field::flag;
using json_field::text;
using json_field::texts;

// Each format the python probe names, and its words.
constexpr std::pair<const char*, const char*> kFormats[] = {
    {"safetensors", "a safetensors file"},
    {"torch_zip", "a torch.save archive"},
    {"torch_legacy", "a torch.save file of the legacy format"},
    {"gguf", "a GGUF file (llama.cpp's format)"},
    {"numpy", "a NumPy array file (.npy)"},
    {"hdf5", "an HDF5 file (Keras' .h5)"},
    {"pickle", "a plain Python pickle, not torch.save's"},
    {"git_lfs_pointer", "a Git LFS pointer"},
    {"html", "an HTML page"},
    {"text", "a text file"},
    {"zip", "a zip archive that is not torch.save's"},
    {"gzip", "a gzip archive"},
    {"bzip2", "a bzip2 archive"},
    {"xz", "an xz archive"},
    {"7z", "a 7-Zip archive"},
    {"tar", "a tar archive"},
    {"elf", "a program or shared library (ELF)"},
    {"empty", "an empty file"},
    {"folder", "a folder"},
    {"unknown", "a file of no format the check knows"},
};

}  // namespace

WeightsAsked weights_asked(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const size_t slash = trimmed.rfind('/');
  const std::string name = slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
  return {path, name.empty() ? path : name};  // "/" has no base name: named as given
}

WeightsFile weights_file_of(const nlohmann::json& answer) {
  WeightsFile w;
  if (!answer.is_object()) return w;
  w.file = text(answer, "file");
  w.format = text(answer, "format");
  w.verified = flag(answer, "ok");
  w.tensors = count(answer, "tensors");
  w.bytes = count(answer, "bytes");
  w.dtypes = texts(answer, "dtypes");
  w.seconds = json_field::duration(answer, "seconds");
  const nlohmann::json facts = answer.value("facts", nlohmann::json::object());
  if (!facts.is_object()) return w;
  w.error_name = text(facts, "errno");
  w.size = count(facts, "size");
  w.mode = text(facts, "mode");
  w.owner_other = flag(facts, "owner_other");
  w.lfs_size = count(facts, "lfs_size");
  w.cut = flag(facts, "cut");
  w.promised_size = count(facts, "promised_size");
  w.damage = text(facts, "damage");
  w.unsupported_dtypes = texts(facts, "unsupported_dtypes");
  w.refused_globals = texts(facts, "refused_globals");
  w.no_weights_only = flag(facts, "no_weights_only");
  w.exception = text(facts, "exception");
  w.words = text(facts, "words");
  return w;
}

bool is_weights_format(const std::string& format) {
  return format == "safetensors" || format == "torch_zip" || format == "torch_legacy";
}

bool is_foreign_weights_format(const std::string& format) {
  return format == "gguf" || format == "numpy" || format == "hdf5" || format == "pickle";
}

std::string format_words(const std::string& format) {
  for (const auto& [name, words] : kFormats) {
    if (format == name) return words;
  }
  return "a file of no format the check knows";
}

}  // namespace kd
