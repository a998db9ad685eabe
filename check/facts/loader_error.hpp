// Reads what the dynamic loader said when the probe module failed to load:
// which library it could not open, which version a library needs and which
// library lacks it, the undefined symbol, the wrong ELF class. Which cause that
// is, the cause catalogue decides (causes.hpp, recognise_loader): a libtorch
// library not found is TORCH_MISSING, everything else TORCH_IMPORT_FAILED.
//
//   LoaderWords w = read_loader_words(dlerror());
//   if (is_torch_library(w.missing)) ...
#pragma once

#include <string>
#include <string_view>

namespace kd {

// File names only: every folder is cut.
struct LoaderWords {
  std::string subject;    // the file the message is about: the text before its first ": "
  std::string missing;    // the library that cannot be opened ("libc10.so"), if any
  std::string needed;     // a version a library needs ("GLIBCXX_3.4.32"), if any
  std::string needer;     // the library that needs it ("required by ..."), or the one with
                          // an undefined symbol
  std::string provider;   // the library that lacks the version ("libstdc++.so.6")
  std::string elf_class;  // "ELFCLASS32" of "wrong ELF class: ELFCLASS32"
  std::string symbol;     // the undefined symbol ("_ZN3c10..." of "undefined symbol: _ZN3c10..."),
                          // without its version
  std::string symbol_version;  // the version the symbol was asked of, a library's soname
                               // ("libnvJitLink.so.13" of "..., version libnvJitLink.so.13")
};

LoaderWords read_loader_words(std::string_view dlerror_text);

// libtorch's own libraries: libtorch*, libc10*, libcaffe2*.
bool is_torch_library(std::string_view file_name);

// True when the loader could not map a library for lack of memory (an
// address-space or memory limit). A full static TLS block is no such failure.
bool loader_ran_out_of_memory(std::string_view dlerror_text);

}  // namespace kd
