// What the python probe (probe/python/import.py) saw of an `import torch` that failed in the
// interpreter of the user's environment: the exception's facts, never its trace. The check
// recognises the import's cause from them (causes.hpp, recognise_python_import), not from the
// exception's wording:
//
//   PythonImport facts = python_import_of(answer["facts"], answer["found"]);
//   CauseId id = recognise_python_import(facts);   // PythonDependencyMissing, ...
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kd {

struct PythonImport {
  std::string exception;  // the class raised: "ModuleNotFoundError", "ImportError", "SyntaxError"
  std::string words;      // its first line, as Python wrote it (sanitized before it is shown)
  std::string module;     // ImportError.name: the module missing, or the one a name was not in
  // A file of the torch package the import could not read (a SyntaxError's, a module its
  // wheel's RECORD lists and that is not there), as a module: "torch._utils_internal"; "" if none.
  std::string torch_module;
  bool loader = false;  // the loader's refusal, raised through the import (an extension, ctypes)
  // torch's _C extension: the CPython tag the interpreter loads ("cpython-311-x86_64-linux-gnu")
  // and the Python versions of the _C files there ("3.12").
  std::string own_tag;
  std::vector<std::string> extension_pythons;
  bool extension_own = false;  // one of those _C files carries the interpreter's own tag
  // What `import torch` found first: "package", "module_file" (a torch.py), "source_checkout",
  // "namespace" (a torch folder without __init__.py), or "" (none); whether an installer put
  // it there (a torch *.dist-info or *.egg-info beside it), whether an installed torch is
  // elsewhere on sys.path, and where it comes from: "working_folder", "pythonpath", "sys_path".
  std::string found_kind;
  bool found_installed = false;
  bool installed_elsewhere = false;
  std::string found_place;
  bool imported_incomplete = false;  // the import went through, and the module lacks torch's API
};

// From the python probe's "import" answer: its "facts" and "found" objects (missing or
// mistyped keys stay empty).
PythonImport python_import_of(const nlohmann::json& facts, const nlohmann::json& found);

}  // namespace kd
