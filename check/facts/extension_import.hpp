// What the python probe (probe/python/application.py) saw of a module of the application asked with
// --import, in the interpreter and the torch the computation ran in: its distribution's
// metadata, the libraries of it that link libtorch, and, where its import or the loading of
// those libraries failed, the exception's facts (never its trace). The check recognises the
// application layer's cause from them (causes.hpp, recognise_extension), not from the wording:
//
//   ExtensionImport facts = extension_import_of(answer, torch);
//   CauseId id = recognise_extension(facts);   // ExtensionForOtherTorch, ...
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kd {

// The torch the environment imported, as the application layer names it.
struct TorchFacts {
  std::string version;                // torch.__version__: "2.15.0", "2.15.0+cu132"
  std::string cuda;                   // torch.version.cuda: "13.2"; "" for none
  std::optional<bool> cxx11_abi;      // torch._C._GLIBCXX_USE_CXX11_ABI
};

struct ExtensionImport {
  std::string module;  // as asked: "torchvision", "torchvision.ops"
  // The installed distribution its top-level package comes from ("" where none): its name and
  // version as its metadata says, and what it requires of torch (the specifier as written:
  // "==2.9.1", ">=2.14.0"; "" for any release; nullopt where it requires nothing of torch).
  std::string distribution;
  std::string version;
  std::optional<std::string> requires_torch;
  std::optional<bool> torch_matches;  // whether the torch imported satisfies it (version_spec)
  // Its build tags: the CUDA of the version's local part ("12.8" of +cu128), and the CUDA runtime
  // majors its libraries that link libtorch need ("12" of libcudart.so.12).
  std::string cuda_tag;
  std::vector<std::string> cuda_majors;
  TorchFacts torch;

  // Where it failed: "import" (the module's own import) or "library" (loading one of its
  // libraries the way torch loads an extension's ops library), and that library's file name.
  bool failed = false;
  std::string phase;
  std::string library;
  std::string exception;         // the class raised: "RuntimeError", "ImportError"
  std::string words;             // its first line, as Python wrote it (sanitized before shown)
  std::string missing_module;    // a ModuleNotFoundError's name: "PIL"
  std::string needed_by;         // the module whose code imported it: "torchvision.datasets"
  std::string undefined_symbol;  // the loader's undefined symbol, mangled: "_ZNK3c10..."
  bool symbol_in_torch = false;  // a library of the torch loaded exports that symbol
  // The distributions its metadata requires that this environment lacks: "pillow".
  std::vector<std::string> requires_missing;
};

// From a python probe's "extension" answer (or one entry of its "extensions_listed" answer,
// which has only the distribution's facts) and the torch imported. Missing or mistyped keys
// stay empty.
ExtensionImport extension_import_of(const nlohmann::json& answer, const TorchFacts& torch);

// The CUDA an extension declares, for people: "CUDA 12.8" (its version's tag), "CUDA 12" (the
// runtime its libraries need); "" where it declares none.
std::string extension_cuda(const ExtensionImport& e);

// The undefined symbol's C++ name ("c10::TensorImpl::decref_pyobject() const"), or the symbol
// itself where it is no C++ name.
std::string demangled(const std::string& symbol);

// The std::string of a C++ name: "old" (_GLIBCXX_USE_CXX11_ABI=0: std::string,
// std::basic_string<char, ...>), "cxx11" (std::__cxx11::), "" where it names none.
std::string string_abi_of(const std::string& cxx_name);

}  // namespace kd
