// The application layer's causes: a module asked with --import, or a weights file asked with
// --weights, that cannot be used.
#pragma once

#include "causes/catalogue_entry.hpp"

namespace kd::catalogue {

// ---- the signs: what must hold of what was seen ----

inline bool extension_failed(const Seen& s) { return s.extension != nullptr && s.extension->failed; }

// `name` is the module asked or a package above it ("torchvision" of "torchvision.ops").
inline bool is_module_or_above(const std::string& name, const std::string& module) {
  return !name.empty() && (name == module || module.rfind(name + ".", 0) == 0);
}

// ModuleNotFoundError for the module asked itself, or a package above it.
inline bool extension_not_installed(const Seen& s) {
  return extension_failed(s) && s.extension->exception == "ModuleNotFoundError" &&
         is_module_or_above(s.extension->missing_module, s.extension->module);
}

// An undefined symbol that no library of the torch imported exports.
inline bool symbol_torch_lacks(const Seen& s) {
  return extension_failed(s) && !s.extension->undefined_symbol.empty() &&
         !s.extension->symbol_in_torch;
}

// ... whose std::string is the other C++ ABI's than torch's libraries'.
inline bool extension_other_cxx_abi(const Seen& s) {
  if (!symbol_torch_lacks(s) || !s.extension->torch.cxx11_abi) return false;
  const std::string abi = string_abi_of(demangled(s.extension->undefined_symbol));
  return !abi.empty() && (abi == "cxx11") != *s.extension->torch.cxx11_abi;
}

// ... and a function of torch's own (c10::, at::, torch::, caffe2::, its Python bindings' THP).
inline bool extension_built_against_other_torch(const Seen& s) {
  if (!symbol_torch_lacks(s)) return false;
  const std::string name = demangled(s.extension->undefined_symbol);
  for (const char* part : {"c10::", "at::", "torch::", "caffe2::"}) {
    if (name.find(part) != std::string::npos) return true;
  }
  return name.rfind("THP", 0) == 0;
}

// Its distribution requires a torch the one imported does not satisfy.
inline bool extension_for_other_torch(const Seen& s) {
  return extension_failed(s) && s.extension->torch_matches == std::optional<bool>(false);
}

// The loader refused a library of it (an extension module, or one loaded as torch loads an ops
// library) while its libraries that link libtorch need a CUDA runtime of another major than
// torch's, or torch has none.
inline bool extension_cuda_mismatch(const Seen& s) {
  if (!extension_failed(s) || s.extension->cuda_majors.empty()) return false;
  const ExtensionImport& e = *s.extension;
  const bool loader = e.phase == "library" || (e.exception == "ImportError" && !e.library.empty());
  const std::string torch_major = e.torch.cuda.substr(0, e.torch.cuda.find('.'));
  return loader && std::find(e.cuda_majors.begin(), e.cuda_majors.end(), torch_major) ==
                       e.cuda_majors.end();
}

// ModuleNotFoundError for another module than the one asked: a dependency of it.
inline bool extension_dependency_missing(const Seen& s) {
  return extension_failed(s) && s.extension->exception == "ModuleNotFoundError" &&
         !s.extension->missing_module.empty();
}

inline bool weights_error(const Seen& s, std::initializer_list<std::string_view> names) {
  if (s.weights == nullptr) return false;
  for (std::string_view name : names) {
    if (s.weights->error_name == name) return true;
  }
  return false;
}

inline bool weights_not_found(const Seen& s) { return weights_error(s, {"ENOENT", "ENOTDIR", "ELOOP"}); }

inline bool weights_not_readable(const Seen& s) { return weights_error(s, {"EACCES", "EPERM"}); }

inline bool weights_lfs_pointer(const Seen& s) {
  return s.weights != nullptr && s.weights->format == "git_lfs_pointer";
}

inline bool weights_cut_short(const Seen& s) { return s.weights != nullptr && s.weights->cut; }

inline bool weights_not_weights(const Seen& s) {
  return s.weights != nullptr && !s.weights->format.empty() &&
         !is_weights_format(s.weights->format) && !is_foreign_weights_format(s.weights->format);
}

inline bool weights_format_unsupported(const Seen& s) {
  return s.weights != nullptr && (is_foreign_weights_format(s.weights->format) ||
                                  !s.weights->unsupported_dtypes.empty() ||
                                  s.weights->no_weights_only);
}

inline bool weights_only_refused(const Seen& s) {
  return s.weights != nullptr &&
         (!s.weights->refused_globals.empty() || s.weights->exception == "UnpicklingError");
}

inline bool weights_damaged(const Seen& s) {
  return s.weights != nullptr && (!s.weights->damage.empty() ||
                                  s.weights->exception == "BadZipFile" ||
                                  s.weights->exception == "EOFError");
}

inline bool weights_do_not_fit(const Seen& s) { return s.memory != nullptr && !s.memory->fits; }

inline bool precision_not_in_torch(const Seen& s) {
  return s.precision != nullptr && s.precision->missing;
}

// torch's words for an operator without a kernel of the dtype on the device ("addmm_impl_cpu_"
// not implemented for 'Half'), or for one the device's capability does not support
// (torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9).
inline bool precision_kernel_missing(const Seen& s) {
  if (s.precision == nullptr) return false;
  const std::string& w = s.precision->words;
  return w.find("not implemented for") != std::string::npos ||
         w.find("is only supported") != std::string::npos ||
         w.find("not supported") != std::string::npos;
}

// The causes, in the order they are tried: the first whose row fits is the cause.
// clang-format off
inline constexpr CauseInfo kApplicationCauses[] = {
    // ---- application: a module of the application asked with --import (the python probe) ----
    {CAUSE(ExtensionNotInstalled),            Application, ExtensionImportFailed, kApplication, seeing(extension_not_installed),
     "the module asked is not installed in this environment",
     "its import raises ModuleNotFoundError naming the module asked or a package above it "
     "(ImportError.name)",
     "{ext_module} is not installed in this Python environment (Python {python_version}, "
     "torch {torch_version}): {ext_words}.",
     "Install it with that interpreter's pip (python -m pip install {ext_name}), or run the "
     "check in the Python environment your application runs in."},
    {CAUSE(ExtensionOtherCxxAbi),             Application, ExtensionImportFailed, kApplication, seeing(extension_other_cxx_abi),
     "an extension library built with the other C++ ABI than torch's",
     "a library of the extension fails to load on an undefined symbol that no library of the "
     "torch imported exports, and whose std::string is the other _GLIBCXX_USE_CXX11_ABI's than "
     "torch._C._GLIBCXX_USE_CXX11_ABI",
     "{ext_module} ({ext_distribution}) failed to load with torch {torch_version}: its library "
     "{ext_library} was built with _GLIBCXX_USE_CXX11_ABI={ext_abi} and needs {function}, while "
     "this torch's libraries use _GLIBCXX_USE_CXX11_ABI={torch_abi}.",
     "Rebuild {ext_name} with -D_GLIBCXX_USE_CXX11_ABI={torch_abi} (torch.utils.cpp_extension "
     "sets it from the torch it builds against: take out the flag that overrides it), or "
     "install a build of it made for this torch."},
    {CAUSE(ExtensionBuiltAgainstOtherTorch),  Application, ExtensionImportFailed, kApplication, seeing(extension_built_against_other_torch),
     "an extension library built against another libtorch",
     "a library of the extension fails to load on an undefined symbol of torch's own (c10::, "
     "at::, torch::, caffe2::, THP) that no library of the torch imported exports",
     "{ext_module} ({ext_distribution}) failed to load with torch {torch_version}: its library "
     "{ext_library} calls {function}, which this torch does not have: it was built against "
     "another libtorch{ext_built_for}.",
     "Rebuild {ext_name} against this torch, with this environment's python and without build "
     "isolation (python -m pip install --no-build-isolation --force-reinstall --no-deps and its "
     "source), or install the torch it was built for."},
    {CAUSE(ExtensionForOtherTorch),           Application, ExtensionImportFailed, kApplication, seeing(extension_for_other_torch),
     "an extension made for another torch",
     "its import fails while its distribution's Requires-Dist on torch is not satisfied by the "
     "torch imported (PEP 440's rules); listed without --import, a warning",
     "{ext_module} ({ext_distribution}{ext_build}) is made for torch{ext_requirement}, and this "
     "environment's torch is {torch_version}{torch_build}{ext_failure}.",
     "Let pip choose the {ext_name} release made for this torch: python -m pip install "
     "{ext_upgrade}\"torch=={torch_public}\" {ext_name}, with this environment's python (from the "
     "index this torch came from, for a CUDA build)."},
    {CAUSE(ExtensionCudaMismatch),            Application, ExtensionImportFailed, kApplication, seeing(extension_cuda_mismatch),
     "an extension built for another CUDA major than torch's",
     "a library of the extension fails to load while its libraries that link libtorch need a "
     "CUDA runtime (libcudart.so.N, DT_NEEDED) of another major than torch.version.cuda's, or "
     "torch has no CUDA",
     "{ext_module} ({ext_distribution}) failed to load with torch {torch_version}: its libraries "
     "need the CUDA {ext_cuda_majors} runtime, and this torch is {torch_cuda_words} "
     "({ext_words}).",
     "Install the build of {ext_name} made for this torch's CUDA (its wheel from the index this "
     "torch came from), or rebuild it against this torch with a CUDA toolkit of its major."},
    {CAUSE(ExtensionDependencyMissing),       Application, ExtensionImportFailed, kApplication, seeing(extension_dependency_missing),
     "a Python dependency of the extension missing",
     "its import raises ModuleNotFoundError naming a module that is not the one asked nor a "
     "package above it (ImportError.name)",
     "{ext_module} ({ext_distribution}) failed to import with torch {torch_version}: "
     "{ext_needed_by} needs the Python module {ext_missing}, which this environment does not "
     "have.",
     "Install it with that interpreter's pip (python -m pip install {ext_provider}), or "
     "reinstall {ext_name} without --no-deps so that pip brings every dependency."},
    {CAUSE(ExtensionImportError),             Application, ExtensionImportFailed, kApplication, kOtherwise,
     "an extension's import failed, cause not recognised",
     "any other exception raised by its import, or by loading one of its libraries",
     "{ext_module} ({ext_distribution}) failed to import with torch {torch_version}: "
     "{ext_exception}: {ext_words}.",
     "Run python -c \"import {ext_module}\" with that interpreter to see the whole error, and "
     "check {ext_name}'s compatibility with this torch and its backend."},
    // ---- application: a weights file asked with --weights (the python probe) ----
    {CAUSE(WeightsNotFound),                  Application, WeightsUnusable,       kWeights,     seeing(weights_not_found),
     "the weights file is not there",
     "opening it fails with ENOENT (or ENOTDIR, ELOOP: a dangling link)",
     "The weights file {weights_file} was not found ({weights_words}).",
     "Check the path the application loads its weights from (a relative path is taken from the "
     "folder the check runs in), and that the file was downloaded or mounted into the image."},
    {CAUSE(WeightsNotReadable),               Application, WeightsUnusable,       kWeights,     seeing(weights_not_readable),
     "a weights file the user running the check may not read",
     "opening it fails with EACCES or EPERM",
     "The weights file {weights_file} is there, but the user running the check may not read it "
     "(its mode is {weights_mode}{weights_owner}).",
     "Make it readable for the user the container runs as (chmod a+r, or chown it to that "
     "user), or run as its owner: files copied into an image keep the owner and mode they had "
     "where the image was built."},
    {CAUSE(WeightsGitLfsPointer),             Application, WeightsUnusable,       kWeights,     seeing(weights_lfs_pointer),
     "a Git LFS pointer in place of the weights",
     "its first bytes are a Git LFS pointer's (version https://git-lfs.github.com/spec/v1)",
     "The weights file {weights_file} is a Git LFS pointer ({weights_size} bytes of text) "
     "standing for an object of {lfs_size} bytes, not the weights: its repository was cloned "
     "without Git LFS.",
     "Fetch the objects in that clone (git lfs install, then git lfs pull), or download the "
     "file itself, and run the check again."},
    {CAUSE(WeightsCutShort),                  Application, WeightsUnusable,       kWeights,     seeing(weights_cut_short),
     "a weights file cut short",
     "its size is less than its header promises (safetensors), or a zip archive has no central "
     "directory at its end",
     "The weights file {weights_file} ({weights_format}) is cut short: {weights_cut}.",
     "Download it again, whole (an interrupted download or a full disk leaves it so), and "
     "compare its size with the source's."},
    {CAUSE(WeightsNotAWeightsFile),           Application, WeightsUnusable,       kWeights,     seeing(weights_not_weights),
     "not a weights file",
     "its first bytes are no weights format's: an HTML page, text, an archive of another kind, "
     "a program, nothing",
     "The weights file {weights_file} is not a weights file: it is {weights_format} "
     "({weights_size} bytes).",
     "Download the weights themselves: an error page or a redirect saved under the weights' "
     "name (a link that needs a token, a wrong URL) is the usual cause; look at the file's "
     "first lines."},
    {CAUSE(WeightsFormatUnsupported),         Application, WeightsUnusable,       kWeights,     seeing(weights_format_unsupported),
     "a weights format the torch present cannot read",
     "another framework's weights (GGUF, NumPy, HDF5, a plain pickle), safetensors dtypes this "
     "torch lacks, or a torch.load without weights_only",
     "The weights file {weights_file} is {weights_format}{weights_unsupported}, which torch "
     "{torch_version} cannot read.",
     "Convert it to safetensors or torch.save's format with the tools of the format it is in, "
     "or use a torch that reads it (a newer release, for newer dtypes)."},
    {CAUSE(WeightsOnlyRefused),               Application, WeightsUnusable,       kWeights,     seeing(weights_only_refused),
     "weights that torch.load's weights_only refuses",
     "torch.load(weights_only=True) raises UnpicklingError; the globals it needs are read "
     "without unpickling (torch.serialization.get_unsafe_globals_in_checkpoint)",
     "torch.load refuses the weights file {weights_file} with weights_only=True, the default "
     "since torch 2.6: it needs the globals {weights_globals}, which a file of weights alone does "
     "not (a whole pickled model, a class of the application's).",
     "Save the model's state_dict instead (torch.save(model.state_dict(), path)) and load it "
     "into the model; for a file you trust, allow those classes with "
     "torch.serialization.add_safe_globals; weights_only=False only for a file you trust."},
    {CAUSE(WeightsArchiveDamaged),            Application, WeightsUnusable,       kWeights,     seeing(weights_damaged),
     "a damaged weights file",
     "its header does not hold together (safetensors: JSON, dtypes, shapes against offsets, "
     "bytes after the last tensor), or its archive cannot be read",
     "The weights file {weights_file} ({weights_format}) is damaged: {weights_damage}.",
     "Download it again and check it against the source's checksum."},
    {CAUSE(WeightsLoadError),                 Application, WeightsUnusable,       kWeights,     kOtherwise,
     "the weights could not be loaded, cause not recognised",
     "any other failure of torch.load",
     "torch {torch_version} failed to load the weights file {weights_file} ({weights_format}): "
     "{weights_exception}: {weights_words}.",
     "Load it with torch.load(path, map_location=\"cpu\", weights_only=True) in that "
     "interpreter to see the whole error."},
    // ---- application: the memory the weights asked need (the python probe) ----
    {CAUSE(WeightsExceedMemory),              Application, OutOfMemory,           kWeightsMemory, seeing(weights_do_not_fit),
     "weights larger than the memory the process may use",
     "before any weights file is loaded, the bytes of their tensors (their headers' or archives' "
     "sizes, nothing unpickled) exceed the least of: the GPU's free memory and a real allocation "
     "of that size; MemAvailable, each memory cgroup's limit less its usage (page cache it may "
     "reclaim not counted) on the way up to the root, the address-space limit less what is mapped",
     "The weights asked need {weights_need} and this process may use {memory_room} more on "
     "{memory_device}: {memory_binds} binds, so loading them would fail, or get the process "
     "killed by the out-of-memory killer without a traceback.",
     "{memory_next}; or load the weights with mmap=True or straight to the device "
     "(map_location), or use weights in a smaller dtype (bfloat16, float16)."},
    // ---- application: the computation in a precision asked or of the weights (python probe) ----
    {CAUSE(PrecisionNotInTorch),              Application, RuntimeError,          kPrecision,   seeing(precision_not_in_torch),
     "a precision the torch present does not have",
     "the dtype asked with --dtype (or of the weights) is no dtype of the torch imported (the "
     "float8 dtypes came with torch 2.1)",
     "The computation was asked in {precision_dtype}, and torch {torch_version} has no such "
     "dtype{precision_came}.",
     "Install a torch that has it into this environment (python -m pip install --upgrade torch, "
     "with this environment's python), or compute in float32 ({precision_float32})."},
    {CAUSE(PrecisionKernelMissing),           Application, RuntimeError,          kPrecision,   seeing(precision_kernel_missing),
     "no kernel for the precision on this device",
     "the computation in the dtype raises torch's words for an operator without a kernel of that "
     "dtype on the device (not implemented for 'Half'), or one the GPU's capability does not "
     "support (only supported on CUDA devices with compute capability ...)",
     "torch {torch_version} cannot compute in {precision_dtype} on {precision_device}: "
     "{precision_words}.",
     "Compute in float32 there ({precision_float32}), or run where the kernel exists: "
     "{precision_where}."},
    {CAUSE(PrecisionError),                   Application, RuntimeError,          kPrecision,   kOtherwise,
     "the computation failed in a precision, cause not recognised",
     "any other exception of the contract's computation in that dtype",
     "The computation in {precision_dtype} on {precision_device} failed with torch "
     "{torch_version}: {precision_exception}: {precision_words}.",
     "Run the contract's computation in {precision_dtype} in that interpreter to see the whole "
     "error, or compute in float32 ({precision_float32})."},
};
// clang-format on

}  // namespace kd::catalogue
