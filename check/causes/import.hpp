// The import layer's causes: libtorch refused by the loader or not found through the Python
// environment, and the interpreter's own import of torch failing.
#pragma once

#include "causes/catalogue_entry.hpp"

namespace kd::catalogue {

inline constexpr W kDamagedFile{"invalid ELF header", "file too short", "cannot read file data"};

inline constexpr std::string_view kCannotOpen = "cannot open shared object file";

// ---- the signs: what must hold of what was seen ----

// The loader could not map a library for lack of memory.
inline bool loader_out_of_memory(const Seen& s) { return loader_ran_out_of_memory(s.words); }

inline CopyState found(const Seen& s) { return s.copy ? s.copy->found : CopyState::Absent; }

// The library the loader did not find is libtorch's, and no copy is seen.
inline bool torch_library_missing(const Seen& s) {
  std::string missing = read_loader_words(s.words).missing;
  return !missing.empty() && is_torch_library(missing) &&
         (found(s) == CopyState::Absent || found(s) == CopyState::Readable);
}

// A copy is where the loader looks, but this user may not read it; it is built for
// another machine; a file the import needs is damaged (library_damage.hpp).
inline bool copy_unreadable(const Seen& s) { return found(s) == CopyState::NotReadable; }

inline bool copy_other_machine(const Seen& s) { return found(s) == CopyState::OtherMachine; }

inline bool copy_damaged(const Seen& s) { return found(s) == CopyState::Damaged; }

// An undefined symbol of a library's version ("version libnvJitLink.so.13"), that library
// not libtorch's, taken from a folder LD_LIBRARY_PATH names.
inline bool copy_shadowing(const Seen& s) {
  const std::string version = read_loader_words(s.words).symbol_version;
  const std::optional<LibraryCopy>& copy = s.copy;
  const bool from_library_path =
      copy && (copy->folder == std::optional<std::string>("cuda_toolkit") ||
               copy->folder == std::optional<std::string>("ld_library_path"));
  return found(s) == CopyState::Readable && from_library_path && !version.empty() &&
         !is_torch_library(version) && copy->name == version;
}

inline bool first_part_is_torch(const std::string& module) {
  return module == "torch" || module.rfind("torch.", 0) == 0;
}

// No torch module at all in this interpreter.
inline bool no_torch_module(const Seen& s) {
  return s.import != nullptr && s.import->exception == "ModuleNotFoundError" &&
         s.import->module == "torch";
}

// What the import found first is not the installed package: a torch.py, a source checkout, a
// folder without __init__.py, or a torch no installer put there while one is installed.
inline bool torch_shadowed(const Seen& s) {
  if (s.import == nullptr || s.import->found_kind.empty()) return false;
  const PythonImport& i = *s.import;
  return i.found_kind != "package" || (!i.found_installed && i.installed_elsewhere);
}

// torch's _C extension is there only for other CPython versions than this interpreter's.
inline bool extension_for_other_python(const Seen& s) {
  return s.import != nullptr && s.import->module == "torch._C" && !s.import->loader &&
         !s.import->extension_pythons.empty() && !s.import->extension_own;
}

// A file of the torch package that its installation had cannot be read or is gone.
inline bool torch_files_incomplete(const Seen& s) {
  return s.import != nullptr && !s.import->torch_module.empty() && !s.import->loader;
}

// A module torch imports, not of torch, missing; or there without a name torch imports from it.
inline bool dependency_missing(const Seen& s) {
  return s.import != nullptr && s.import->exception == "ModuleNotFoundError" &&
         !s.import->module.empty() && !first_part_is_torch(s.import->module);
}

inline bool dependency_too_old(const Seen& s) {
  return s.import != nullptr && s.import->exception == "ImportError" && !s.import->loader &&
         !s.import->module.empty() && !first_part_is_torch(s.import->module);
}

// The causes, in the order they are tried: the first whose row fits is the cause.
// clang-format off
inline constexpr CauseInfo kImportCauses[] = {
    // ---- import ----
    {CAUSE(AddressSpaceLimit),                Import,  TorchImportFailed, kLoader,       seeing(loader_out_of_memory),
     "libtorch cannot be mapped (a memory limit)",
     "loader: \"failed to map segment from shared object\", \"cannot map zero-fill pages\" or "
     "\"Cannot allocate memory\" (not a full static TLS block)",
     "libtorch was found but could not be mapped into memory{memory_limits}.",
     "The memory or address-space limit is the likely cause: raise it (ulimit -v, or the "
     "container's memory limit); loading libtorch takes hundreds of MiB of address space, a CUDA "
     "build several GiB."},
    {CAUSE(CxxRuntimeTooOld),                 Import,  TorchImportFailed, kLoader,       says({"version `GLIBCXX_", "version `CXXABI_"}, "not found"),
     "C++ runtime too old",
     "loader: version `GLIBCXX_...' (or `CXXABI_...') not found",
     "libtorch was found but {needer} needs {needed} of the C++ runtime, which this image's "
     "{provider} is too old to have.",
     "Use a base image with a newer libstdc++ (a newer distribution release), or a libtorch "
     "built for this image's C++ runtime."},
    {CAUSE(CLibraryTooOld),                   Import,  TorchImportFailed, kLoader,       says({"version `GLIBC_"}, "not found"),
     "C library too old",
     "loader: version `GLIBC_...' not found",
     "libtorch was found but {needer} needs {needed} of the C library, which this image's "
     "{provider} is too old to have.",
     "Use a base image with a newer glibc (a newer distribution release), or a libtorch built "
     "for an older one (a wheel's manylinux tag names the oldest glibc it supports)."},
    {CAUSE(CudaLibraryShadowed),              Import,  TorchImportFailed, kLoader,       seeing(copy_shadowing),
     "an older CUDA library of the image shadows the one libtorch came with",
     "loader: undefined symbol ..., version libX.so.N, of a library not of libtorch, which the "
     "loader takes (resolving the import's needs as it does) from a folder LD_LIBRARY_PATH "
     "names: the image's CUDA toolkit folder, or another",
     "libtorch was found but {needer} needs a newer {library} than the one the loader takes "
     "first, from {folder}: the image's own CUDA libraries shadow those libtorch came with.",
     "Take that folder off LD_LIBRARY_PATH, or put it after the folders of the libraries "
     "libtorch came with (a pip torch's nvidia/*/lib): they need {library} of their own CUDA "
     "release."},
    {CAUSE(MixedBuilds),                      Import,  TorchImportFailed, kLoader,       says({"undefined symbol"}),
     "libtorch libraries from different builds",
     "loader: undefined symbol",
     "libtorch was found but its libraries come from different builds: {needer} needs a symbol "
     "the libraries loaded with it lack.",
     "Install libtorch from one release, all its libraries (libtorch*, libc10*) from the same "
     "build, and make sure no other copy comes first on LD_LIBRARY_PATH."},
    {CAUSE(CorruptLibrary),                   Import,  TorchImportFailed, kLoader,       says(kDamagedFile).or_seeing(copy_damaged),
     "a damaged library file",
     "loader: invalid ELF header, file too short, cannot read file data; or, after an import "
     "that failed (undefined symbol, words not recognised) or a worker killed at the import "
     "stage (SIGBUS, SIGSEGV, SIGILL, SIGFPE, SIGABRT), a file the import needs found damaged "
     "without loading it: shorter than its headers need, a header that does not parse, a dynamic "
     "section outside the file, a SHA-256 other than its wheel's RECORD lists for its size, or "
     "(an undefined symbol) no name where its hash table lists the symbol",
     "libtorch was found but {library} is not a valid shared library: a truncated download or an "
     "overwritten file.",
     "Reinstall the libtorch package (download it again) and check its files against the "
     "package's checksums."},
    {CAUSE(LibraryUnreadable),                Import,  TorchImportFailed, kLoader,       says({"Permission denied"}, kCannotOpen).or_seeing(copy_unreadable),
     "a library file this user may not read",
     "loader: cannot open shared object file: Permission denied; or the library is \"not found\" "
     "while a copy where the loader looks may not be read by this process (the loader skips it "
     "silently)",
     "libtorch was found but this user may not read {library} (the file's mode, or a folder "
     "above it).",
     "Make libtorch's files readable for the user the container runs as (chmod -R a+rX on its "
     "folder), or run as their owner."},
    {CAUSE(WrongArchitecture),                Import,  TorchImportFailed, kLoader,       says({"wrong ELF class"}).or_seeing(copy_other_machine),
     "a library built for another architecture",
     "loader: wrong ELF class; or the library is \"not found\" while a copy where the loader "
     "looks is built for another machine (the loader skips it silently)",
     "libtorch was found but {library} is built for another architecture ({machine}; this "
     "machine runs {host_machine}).",
     "Install the libtorch built for {host_machine}: the wheel or archive of this machine's "
     "architecture."},
    {CAUSE(TorchNotFound),                    Import,  TorchMissing,      kLoader,       seeing(torch_library_missing),
     "libtorch not found",
     "loader: a libtorch, libc10 or libcaffe2 library: cannot open shared object file, and no "
     "copy where the loader looks",
     "libtorch cannot be found by this process: the loader finds no {library}.",
     "Check the library path and the libtorch installation (LD_LIBRARY_PATH, ldconfig, the "
     "installation's lib folder)."},
    {CAUSE(DependencyNotFound),               Import,  TorchImportFailed, kLoader,       says({kCannotOpen}),
     "a library libtorch needs is missing",
     "loader: another library: cannot open shared object file",
     "libtorch was found but a library it needs is missing: {library}.",
     "Install the libraries this libtorch build needs (for a CUDA build the CUDA runtime, "
     "cuBLAS, cuDNN: the nvidia-* wheels or the CUDA packages), or install the build that fits "
     "this image."},
    {CAUSE(LoaderError),                      Import,  TorchImportFailed, kLoader,       kOtherwise,
     "libtorch not loaded, cause not recognised",
     "any other words of the loader",
     "libtorch was found but failed to load.",
     "Check the libtorch package and its dependencies."},
    // ---- import: the stable probe's libtorch, found through the Python environment ----
    {CAUSE(TorchPackageMissing),              Import,  TorchMissing,      kSearchOrImport, seeing(no_torch_module),
     "no torch in the Python environment",
     "the interpreter asked (KERNODECK_TORCH_PYTHON, python3 beside the check, python3 on PATH) "
     "raises ModuleNotFoundError for torch itself when it imports it; for the stable probe, the "
     "folder KERNODECK_TORCH_DIR names holds no libtorch",
     "libtorch cannot be found by this process: {words}.",
     "Install torch into the Python environment your application runs in (python3 -m pip install "
     "torch, with that environment's python3) and run the check there, or name the torch folder "
     "with KERNODECK_TORCH_DIR."},
    {CAUSE(NoPythonForTorch),                 Import,  TorchMissing,      kTorchSearch,  kOtherwise,
     "no Python to find torch with",
     "neither KERNODECK_TORCH_DIR nor KERNODECK_TORCH_PYTHON names a torch or an interpreter "
     "this process can run, and there is no python3 beside the check or on PATH",
     "libtorch cannot be found by this process: the check certifies the torch a Python "
     "environment imports, and {words}.",
     "Run the check in your application's Python environment (its python3 on PATH, or "
     "KERNODECK_TORCH_PYTHON naming it), or name the torch folder with KERNODECK_TORCH_DIR."},
    {CAUSE(StableAbiTooOld),                  Import,  TorchImportFailed, kStableProbe,  kOtherwise,
     "torch older than the stable probe serves",
     "the stable probe finds the libtorch it loaded without the stable C functions it calls "
     "(torch_call_dispatcher and the others of torch 2.10), or of a release before 2.10",
     "libtorch was found but is older than the check's stable probe serves: {words} of the "
     "stable C functions that came with torch 2.10.",
     "Run the check with the interpreter this torch is installed for instead of naming its "
     "folder (KERNODECK_TORCH_PYTHON, or python3 on PATH: its own import of torch serves every "
     "release), or use torch 2.10 or newer."},
    // ---- import: the interpreter's own import of torch (the python probe) ----
    {CAUSE(TorchShadowed),                    Import,  TorchImportFailed, kPythonImport, seeing(torch_shadowed),
     "torch shadowed by a module that is not the installed package",
     "the interpreter's import of torch finds first a torch.py, a source checkout (a setup.py or "
     ".git beside it), a torch folder without __init__.py, or a torch package no installer put "
     "there (no torch *.dist-info beside it) while an installed one is further on sys.path",
     "torch failed to import: the Python {python_version} asked imports {shadow} {place} "
     "instead of the installed torch ({words}).",
     "Rename or move that torch ({place}; a script named torch.py, a checkout of the torch "
     "sources), or take its folder off PYTHONPATH, and run your application from another "
     "folder."},
    {CAUSE(TorchForOtherPython),              Import,  TorchImportFailed, kPythonImport, seeing(extension_for_other_python),
     "torch built for another Python",
     "the import of torch's _C extension fails (ImportError.name torch._C) while the torch "
     "folder holds _C only with the tags of other CPython versions than the interpreter's",
     "torch failed to import: its C extension was built for Python {torch_pythons}, and the "
     "Python asked is {python_version}.",
     "Install torch with this interpreter's own pip (python3 -m pip install torch, with the "
     "python3 your application runs), instead of copying site-packages or sharing them through "
     "PYTHONPATH between Python versions."},
    {CAUSE(TorchFilesIncomplete),             Import,  TorchImportFailed, kPythonImport, seeing(torch_files_incomplete),
     "torch's own files incomplete or damaged (an interrupted install)",
     "the import fails on a file of the torch package: a SyntaxError or null bytes in one of its "
     ".py files, or a module of torch missing that its wheel's RECORD lists",
     "torch failed to import: its module {torch_module} is missing or cut ({words}), as an "
     "interrupted installation leaves it.",
     "Reinstall torch (python3 -m pip install --force-reinstall --no-deps torch, with that "
     "environment's python3, on a disk with room), then run the check again."},
    {CAUSE(PythonDependencyMissing),          Import,  TorchImportFailed, kPythonImport, seeing(dependency_missing),
     "a Python dependency of torch missing",
     "ModuleNotFoundError for a module that is not torch's (ImportError.name), raised while "
     "torch is imported",
     "torch failed to import: it needs the Python module {module}, which this environment "
     "(Python {python_version}) does not have.",
     "Install it with that interpreter's pip (python3 -m pip install {module}), or reinstall "
     "torch without --no-deps so that pip brings every dependency."},
    {CAUSE(PythonDependencyTooOld),           Import,  TorchImportFailed, kPythonImport, seeing(dependency_too_old),
     "a Python dependency of torch too old",
     "ImportError (not ModuleNotFoundError) naming a module that is not torch's: a name torch "
     "imports from it is not there (cannot import name)",
     "torch failed to import: the Python module {module} of this environment is too old for it "
     "({words}).",
     "Upgrade it with that interpreter's pip (python3 -m pip install --upgrade {module}); an "
     "older copy of the distribution's (apt) or one pinned by another package may come first."},
    {CAUSE(TorchImportError),                 Import,  TorchImportFailed, kPythonImport, kOtherwise,
     "torch's import failed, cause not recognised",
     "any other exception raised by the interpreter's import of torch",
     "torch failed to import in the Python {python_version} asked: {words}.",
     "Run python3 -c \"import torch\" with that interpreter to see the whole error, and check "
     "the torch installation and its dependencies."},
};
// clang-format on

}  // namespace kd::catalogue
