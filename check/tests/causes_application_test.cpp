// Covers causes.hpp, the application layer: which cause each fact of an extension's import and
// of a weights file is, and the words they are given (a symbol demangled, a distribution
// named).
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

// ---- the application layer ----

// An extension built with torch.utils.cpp_extension, as its import failed on a symbol.
ExtensionImport compiled_extension(const std::string& symbol) {
  ExtensionImport e;
  e.module = "kd_twice";
  e.distribution = "kd-twice";
  e.version = "1.0.0";
  e.requires_torch = "==2.15.0";
  e.torch = torch_215();
  e.torch_matches = true;
  e.failed = true;
  e.phase = "import";
  e.library = "kd_twice.cpython-311-x86_64-linux-gnu.so";
  e.exception = "ImportError";
  e.words = "/w/site/kd_twice.cpython-311-x86_64-linux-gnu.so: undefined symbol: " + symbol;
  e.undefined_symbol = symbol;
  return e;
}

TEST(RecogniseExtension, EachFactIsItsCause) {
  EXPECT_EQ(recognise_extension(torchvision_for_other_torch()), CauseId::ExtensionForOtherTorch);
  ExtensionImport abi = compiled_extension("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs");
  EXPECT_EQ(recognise_extension(abi), CauseId::ExtensionOtherCxxAbi);
  // The same symbol of the C++11 ABI's std::string, against a torch of the old ABI.
  ExtensionImport new_abi = compiled_extension(
      "_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE");
  new_abi.torch.cxx11_abi = false;
  EXPECT_EQ(recognise_extension(new_abi), CauseId::ExtensionOtherCxxAbi);
  ExtensionImport other = compiled_extension("_ZNK3c1010TensorImpl15decref_pyobjectEv");
  other.torch = TorchFacts{"1.13.0a0+gitunknown", "", true};
  other.torch_matches = false;  // its requirement too: the symbol says more, and comes first
  EXPECT_EQ(recognise_extension(other), CauseId::ExtensionBuiltAgainstOtherTorch);
  // A symbol torch exports, or one not of torch's: no torch cause.
  other.symbol_in_torch = true;
  other.torch_matches = true;
  EXPECT_EQ(recognise_extension(other), CauseId::ExtensionImportError);
  ExtensionImport libpng = compiled_extension("png_create_read_struct");
  EXPECT_EQ(recognise_extension(libpng), CauseId::ExtensionImportError);

  ExtensionImport cuda = compiled_extension("");
  cuda.undefined_symbol.clear();
  cuda.words = "libcudart.so.12: cannot open shared object file: No such file or directory";
  cuda.cuda_majors = {"12"};
  EXPECT_EQ(recognise_extension(cuda), CauseId::ExtensionCudaMismatch);
  cuda.cuda_majors = {"13"};  // torch's own major: not the cause
  EXPECT_EQ(recognise_extension(cuda), CauseId::ExtensionImportError);

  ExtensionImport missing;
  missing.module = "torchvision";
  missing.torch = torch_215();
  missing.failed = true;
  missing.exception = "ModuleNotFoundError";
  missing.missing_module = "torchvision";
  EXPECT_EQ(recognise_extension(missing), CauseId::ExtensionNotInstalled);
  missing.module = "torchvision.ops";  // a package above the module asked
  EXPECT_EQ(recognise_extension(missing), CauseId::ExtensionNotInstalled);
  missing.missing_module = "PIL";
  EXPECT_EQ(recognise_extension(missing), CauseId::ExtensionDependencyMissing);
  // A module named like the one asked, but not above it: a dependency.
  missing.missing_module = "torchvision_extra";
  EXPECT_EQ(recognise_extension(missing), CauseId::ExtensionDependencyMissing);
}

TEST(CauseWords, AnExtensionMadeForAnotherTorchNamesBothAndThePipLine) {
  ExtensionImport e = torchvision_for_other_torch();
  FactSources sources;
  sources.extension = &e;
  Cause words = cause_words(CauseId::ExtensionForOtherTorch, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what,
            "torchvision (torchvision 0.24.1, CUDA 12) is made for torch==2.9.1, and this "
            "environment's torch is 2.15.0 (CUDA 13.2): its import failed (RuntimeError: operator "
            "torchvision::nms does not exist).");
  EXPECT_TRUE(has(words.next_action, "python -m pip install --upgrade \"torch==2.15.0\" torchvision"))
      << words.next_action;
  // A warning (listed, not imported): no failure to name; an extension newer than torch: no
  // --upgrade, pip chooses the older release.
  e.failed = false;
  e.requires_torch = ">=2.16";
  e.cuda_majors.clear();
  e.cuda_tag = "13.2";
  words = cause_words(CauseId::ExtensionForOtherTorch, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what, "torchvision (torchvision 0.24.1, CUDA 13.2) is made for torch>=2.16, and "
                        "this environment's torch is 2.15.0 (CUDA 13.2).");
  EXPECT_TRUE(has(words.next_action, "python -m pip install \"torch==2.15.0\" torchvision"))
      << words.next_action;
}

TEST(CauseWords, AnUndefinedSymbolIsNamedDemangledNeverMangled) {
  ExtensionImport e = compiled_extension("_ZNK3c1010TensorImpl15decref_pyobjectEv");
  e.torch = TorchFacts{"1.13.0a0+gitunknown", "", true};
  FactSources sources;
  sources.extension = &e;
  Cause words = cause_words(CauseId::ExtensionBuiltAgainstOtherTorch,
                            cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what,
            "kd_twice (kd-twice 1.0.0) failed to load with torch 1.13.0a0+gitunknown: its library "
            "kd_twice.cpython-311-x86_64-linux-gnu.so calls c10::TensorImpl::decref_pyobject() "
            "const, which this torch does not have: it was built against another libtorch "
            "(torch==2.15.0, as its metadata requires).");
  EXPECT_FALSE(has(words.what + words.next_action, "_ZNK")) << words.what;
  ExtensionImport abi = compiled_extension("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs");
  sources.extension = &abi;
  words = cause_words(CauseId::ExtensionOtherCxxAbi, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "built with _GLIBCXX_USE_CXX11_ABI=0 and needs "
                              "c10::detail::torchCheckFail(char const*, char const*, unsigned int, "
                              "std::string const&), while this torch's libraries use "
                              "_GLIBCXX_USE_CXX11_ABI=1"))
      << words.what;
  EXPECT_TRUE(has(words.next_action, "-D_GLIBCXX_USE_CXX11_ABI=1")) << words.next_action;
  EXPECT_FALSE(has(words.what, "/w/site")) << words.what;
}

TEST(CauseWords, AMissingDependencyNamesItsDistributionAndWhoNeedsIt) {
  ExtensionImport e = torchvision_for_other_torch();
  e.torch_matches = true;
  e.exception = "ModuleNotFoundError";
  e.words = "No module named 'PIL'";
  e.missing_module = "PIL";
  e.needed_by = "torchvision.datasets._optical_flow";
  e.requires_missing = {"pillow"};
  FactSources sources;
  sources.extension = &e;
  Cause words = cause_words(CauseId::ExtensionDependencyMissing, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "torchvision.datasets._optical_flow needs the Python module PIL (of "
                              "the distribution pillow)"))
      << words.what;
  EXPECT_TRUE(has(words.next_action, "python -m pip install pillow")) << words.next_action;
  e.requires_missing = {"numpy", "pillow"};
  e.missing_module = "numpy";
  words = cause_words(CauseId::ExtensionDependencyMissing, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "needs the Python module numpy, which")) << words.what;
  EXPECT_TRUE(has(words.next_action, "python -m pip install numpy")) << words.next_action;
}

// ---- the application layer: weights files ----

WeightsFile weights(const std::string& format) {
  WeightsFile w;
  w.file = "model.safetensors";
  w.format = format;
  w.size = 134;
  w.mode = "0644";
  return w;
}

TEST(RecogniseWeights, EachFactIsItsCause) {
  WeightsFile missing = weights("");
  missing.error_name = "ENOENT";
  EXPECT_EQ(recognise_weights(missing), CauseId::WeightsNotFound);
  missing.error_name = "EACCES";
  EXPECT_EQ(recognise_weights(missing), CauseId::WeightsNotReadable);
  EXPECT_EQ(recognise_weights(weights("git_lfs_pointer")), CauseId::WeightsGitLfsPointer);
  WeightsFile cut = weights("safetensors");
  cut.cut = true;
  cut.promised_size = 160;
  EXPECT_EQ(recognise_weights(cut), CauseId::WeightsCutShort);
  for (const char* other : {"html", "text", "zip", "tar", "empty", "folder", "unknown"}) {
    EXPECT_EQ(recognise_weights(weights(other)), CauseId::WeightsNotAWeightsFile) << other;
  }
  for (const char* foreign : {"gguf", "numpy", "hdf5", "pickle"}) {
    EXPECT_EQ(recognise_weights(weights(foreign)), CauseId::WeightsFormatUnsupported) << foreign;
  }
  WeightsFile float8 = weights("safetensors");
  float8.unsupported_dtypes = {"F8_E4M3"};
  EXPECT_EQ(recognise_weights(float8), CauseId::WeightsFormatUnsupported);
  WeightsFile whole = weights("torch_zip");
  whole.exception = "UnpicklingError";
  whole.refused_globals = {"mypkg.Net"};
  EXPECT_EQ(recognise_weights(whole), CauseId::WeightsOnlyRefused);
  WeightsFile damaged = weights("safetensors");
  damaged.damage = "tensors overlap or leave a gap";
  EXPECT_EQ(recognise_weights(damaged), CauseId::WeightsArchiveDamaged);
  WeightsFile other = weights("torch_zip");
  other.exception = "RuntimeError";
  EXPECT_EQ(recognise_weights(other), CauseId::WeightsLoadError);
}

TEST(CauseWords, AWeightsFileIsNamedByItsBaseNameWithWhatWasFound) {
  WeightsFile lfs = weights("git_lfs_pointer");
  lfs.lfs_size = 1342177280;
  FactSources sources;
  sources.weights = &lfs;
  sources.torch_version = "2.15.0";
  Cause words = cause_words(CauseId::WeightsGitLfsPointer, cause_facts(sources, Sanitizer({})));
  EXPECT_EQ(words.what, "The weights file model.safetensors is a Git LFS pointer (134 bytes of "
                        "text) standing for an object of 1,342,177,280 bytes, not the weights: its "
                        "repository was cloned without Git LFS.");
  EXPECT_TRUE(has(words.next_action, "git lfs pull")) << words.next_action;
  WeightsFile cut = weights("safetensors");
  cut.cut = true;
  cut.size = 1024;
  cut.promised_size = 2048;
  sources.weights = &cut;
  words = cause_words(CauseId::WeightsCutShort, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "its header promises 2,048 bytes and the file has 1,024")) << words.what;
  WeightsFile whole = weights("torch_zip");
  whole.refused_globals = {"mypkg.Net", "torch.nn.modules.linear.Linear"};
  sources.weights = &whole;
  words = cause_words(CauseId::WeightsOnlyRefused, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "needs the globals mypkg.Net and torch.nn.modules.linear.Linear"))
      << words.what;
  EXPECT_TRUE(has(words.next_action, "add_safe_globals")) << words.next_action;
  WeightsFile closed = weights("");
  closed.error_name = "EACCES";
  closed.mode = "0600";
  closed.owner_other = true;
  sources.weights = &closed;
  words = cause_words(CauseId::WeightsNotReadable, cause_facts(sources, Sanitizer({})));
  EXPECT_TRUE(has(words.what, "(its mode is 0600, and it belongs to another user)")) << words.what;
}

TEST(Demangled, NamesAndAbis) {
  EXPECT_EQ(demangled("_ZNK3c1010TensorImpl15decref_pyobjectEv"),
            "c10::TensorImpl::decref_pyobject() const");
  EXPECT_EQ(demangled("png_create_read_struct"), "png_create_read_struct");
  EXPECT_EQ(string_abi_of(demangled("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs")), "old");
  EXPECT_EQ(string_abi_of(demangled("_ZNK3c1010TensorImpl15decref_pyobjectEv")), "");
}

}  // namespace
}  // namespace kd
