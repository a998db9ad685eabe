#include "loader_error.hpp"

#include <array>
#include <string>

namespace kd {
namespace {

// The libraries a libtorch distribution consists of.
constexpr std::array<std::string_view, 3> kTorchPrefixes{"libtorch", "libc10", "libcaffe2"};

// glibc: "<name>: cannot open shared object file: No such file or directory".
constexpr std::string_view kNotFound = ": cannot open shared object file";

}  // namespace

Outcome classify_loader_error(std::string_view text) {
  // The same message can name several libraries when dlerror reports a
  // chain; the one that could not be opened is the word before kNotFound.
  size_t pos = text.find(kNotFound);
  while (pos != std::string_view::npos) {
    size_t start = text.find_last_of(" \t\n:", pos == 0 ? 0 : pos - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string_view name = text.substr(start, pos - start);
    size_t slash = name.rfind('/');
    if (slash != std::string_view::npos) name = name.substr(slash + 1);
    for (auto prefix : kTorchPrefixes) {
      if (name.substr(0, prefix.size()) == prefix) return Outcome::TorchMissing;
    }
    pos = text.find(kNotFound, pos + kNotFound.size());
  }
  return Outcome::TorchImportFailed;
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
