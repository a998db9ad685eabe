#include "facts/loader_error.hpp"

#include <array>

#include "util/files.hpp"

namespace kd {
namespace {

// The libraries a libtorch distribution consists of.
constexpr std::array<std::string_view, 3> kTorchPrefixes{"libtorch", "libc10", "libcaffe2"};

// glibc: "<name>: cannot open shared object file: No such file or directory".
constexpr std::string_view kNotFound = ": cannot open shared object file";

// The word that ends right before `end`, after a space, tab, newline or ':'.
std::string_view word_before(std::string_view text, size_t end) {
  size_t start = end == 0 ? std::string_view::npos : text.find_last_of(" \t\n:", end - 1);
  start = start == std::string_view::npos ? 0 : start + 1;
  return text.substr(start, end - start);
}

// The text after `marker` up to the first of `stops` (or the end).
std::string_view after(std::string_view text, std::string_view marker, std::string_view stops) {
  size_t at = text.find(marker);
  if (at == std::string_view::npos) return {};
  std::string_view rest = text.substr(at + marker.size());
  return rest.substr(0, rest.find_first_of(stops));
}

// The library the loader could not open: the word before kNotFound. When
// dlerror reports a chain, a libtorch library among them is the one named.
std::string missing_library(std::string_view text) {
  std::string first;
  for (size_t pos = text.find(kNotFound); pos != std::string_view::npos;
       pos = text.find(kNotFound, pos + kNotFound.size())) {
    std::string name = file_name(word_before(text, pos));
    if (name.empty()) continue;
    if (is_torch_library(name)) return name;
    if (first.empty()) first = name;
  }
  return first;
}

}  // namespace

bool is_torch_library(std::string_view name) {
  for (auto prefix : kTorchPrefixes) {
    if (name.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

LoaderWords read_loader_words(std::string_view text) {
  LoaderWords w;
  size_t colon = text.find(": ");
  if (colon != std::string_view::npos) w.subject = file_name(text.substr(0, colon));
  w.missing = missing_library(text);
  w.needed = std::string(after(text, "version `", "'"));
  if (!w.needed.empty()) {
    w.provider = w.subject;
    w.needer = file_name(after(text, "(required by ", ")"));
  }
  if (text.find("undefined symbol") != std::string_view::npos) w.needer = w.subject;
  w.symbol = std::string(after(text, "undefined symbol: ", ", \t\n"));
  if (!w.symbol.empty()) w.symbol_version = file_name(after(text, w.symbol + ", version ", " \t\n)"));
  w.elf_class = std::string(after(text, "wrong ELF class: ", " \t\n"));
  return w;
}

bool loader_ran_out_of_memory(std::string_view text) {
  // glibc: "failed to map segment from shared object" (mmap of a segment),
  // "cannot map zero-fill pages", "cannot create shared object descriptor:
  // Cannot allocate memory" and other ENOMEM texts.
  if (text.find("static TLS") != std::string_view::npos) return false;
  for (std::string_view sign : {"failed to map segment from shared object",
                                "cannot map zero-fill pages", "Cannot allocate memory"}) {
    if (text.find(sign) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace kd
