// Layer "import": finding and loading libtorch. A missing libtorch and a
// libtorch that fails to load are told apart from what the loader says.
#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>
#include <stdlib.h>

#include <cstdlib>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <map>
#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <sstream>

#include "util/files.hpp"
#include "util/text.hpp"
#include "layer_test.hpp"
#include "manipulations.hpp"
#include "private_mounts.hpp"
#include "kd/supervisor.hpp"
#include "runner.hpp"

namespace {

using kdh::Case;
using kdh::json;
using kdh::Requirement;

bool is_torch_library(const std::string& name) {
  return name.rfind("libtorch", 0) == 0 || name.rfind("libc10", 0) == 0;
}

using LibraryFilter = std::function<bool(const std::string& name)>;

// Folders where the loader resolves, for the import (the probe module, or the stable
// probe's libtorch.so), a library that `hidden` selects: `ldd`'s answer, run through
// `wrapper` (empty: directly).
std::set<std::string> resolving_folders(const LibraryFilter& hidden,
                                        const std::vector<std::string>& wrapper,
                                        std::string& listing) {
  kd::SpawnSpec ldd;
  ldd.argv = wrapper;
  ldd.argv.push_back("/usr/bin/ldd");
  ldd.argv.push_back(*kdh::runner().import_root);
  kd::RunResult listed = kd::run_supervised(ldd, kd::deadline_in(20), {});
  listing = listed.out.data;
  std::set<std::string> folders;
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    size_t arrow = line.find(" => /");
    size_t start = line.find_first_not_of(" \t");
    if (arrow == std::string::npos || start == std::string::npos) continue;
    if (!hidden(line.substr(start, line.find(' ', start) - start))) continue;
    std::string path = line.substr(arrow + 4, line.find(" (", arrow) - arrow - 4);
    char real[PATH_MAX];
    if (realpath(path.substr(0, path.rfind('/')).c_str(), real) != nullptr) folders.insert(real);
  }
  return folders;
}

// Hides the libraries `hidden` selects from the loader, for real: each folder
// where the loader finds one for the probe module is covered, in a private
// mount namespace, by a folder of links to everything else it holds. Hiding
// one copy can reveal another (a CUDA toolkit's beside the wheel's), so the
// covering is repeated until `ldd` inside the namespace finds none. Writes
// {tmp}/hide.sh, which does the mounts and then runs its arguments.
std::string hide_libraries(const std::string& tmp, const LibraryFilter& hidden) {
  const std::vector<std::string> inside = {"/usr/bin/unshare", "--user", "--map-root-user",
                                           "--mount", "/bin/sh", tmp + "/hide.sh"};
  std::map<std::string, int> covered;  // folder -> the number of its keep/cover pair
  std::string listing;
  std::set<std::string> found = resolving_folders(hidden, {}, listing);
  if (found.empty()) return "ldd finds none of the libraries to hide for the probe module: " + listing;
  for (int round = 0; !found.empty(); ++round) {
    if (round == 4) return "the libraries are still found after covering 4 times: " + listing;
    for (const auto& folder : found) {
      if (covered.count(folder) != 0) return "covering " + folder + " did not hide: " + listing;
      int n = static_cast<int>(covered.size());
      covered[folder] = n;
      std::string keep = tmp + "/real" + std::to_string(n);
      std::string cover = tmp + "/cover" + std::to_string(n);
      if (mkdir(keep.c_str(), 0755) != 0 || mkdir(cover.c_str(), 0755) != 0) {
        return "cannot make the folders to cover " + folder;
      }
      for (const auto& name : kd::folder_entries(folder)) {
        if (hidden(name)) continue;
        if (symlink((keep + "/" + name).c_str(), (cover + "/" + name).c_str()) != 0) {
          return "cannot link " + name;
        }
      }
    }
    std::ofstream script(tmp + "/hide.sh");
    script << "set -e\n";
    for (const auto& [folder, n] : covered) {
      script << "mount --bind '" << folder << "' '" << tmp << "/real" << n << "'\n"
             << "mount --bind '" << tmp << "/cover" << n << "' '" << folder << "'\n";
    }
    script << "exec \"$@\"\n";
    if (!script.flush()) return "cannot write hide.sh";
    script.close();
    found = resolving_folders(hidden, inside, listing);
  }
  return "";
}

std::string hide_libtorch(const std::string& tmp) { return hide_libraries(tmp, is_torch_library); }

// The CUDA runtime or cuBLAS of a CUDA libtorch, hidden the same way.
std::string hide_cuda_runtime(const std::string& tmp) {
  return hide_libraries(tmp, [](const std::string& name) { return name.rfind("libcudart.so", 0) == 0; });
}
std::string hide_cublas(const std::string& tmp) {
  return hide_libraries(tmp, [](const std::string& name) { return name.rfind("libcublas", 0) == 0; });
}

// A CUDA libtorch whose `library` is hidden: TORCH_IMPORT_FAILED whatever the
// device, the message naming the missing file and no folder.
Case cuda_dependency_hidden(const std::string& id, const std::string& what,
                            std::string (*hide)(const std::string&), const std::string& library,
                            std::vector<std::string> args,
                            kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .guards("a CUDA libtorch whose " + what +
              " cannot be found is TORCH_IMPORT_FAILED (4), naming the missing library by "
              "file name, whatever the device asked")
      .needs(Requirement::ProbeModule)
      .needs(Requirement::CudaBackend)
      .needs(Requirement::UserNamespaces)
      .prepare(hide, "every " + library + "* the loader could find for the probe covered, in "
                     "a mount namespace, by links to everything else")
      .wrap({"/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh",
             "{tmp}/hide.sh"},
            "")
      .args(std::move(args))
      .outcome("TORCH_IMPORT_FAILED", "import")
      .expect_field("/error/type", "DependencyNotFound")
      .expect_field_contains("/message", "a library it needs is missing: " + library)
      .expect_field_contains("/message", "Install the libraries this libtorch build needs")
      .expect_field_contains("/error/message", library)
      .expect_field_contains("/error/message", "cannot open shared object file")
      .expect_field_lacks("/error/message", "/");
}

// The real file behind the import's library whose name starts with `prefix`
// ("libc10.so": libc10.so*, not libc10_cuda) as the loader resolves it (ldd,
// run through `wrapper`); "" when it finds none.
std::string resolved_library(const std::string& prefix, const std::vector<std::string>& wrapper) {
  kd::SpawnSpec ldd;
  ldd.argv = wrapper;
  ldd.argv.push_back("/usr/bin/ldd");
  ldd.argv.push_back(*kdh::runner().import_root);
  kd::RunResult listed = kd::run_supervised(ldd, kd::deadline_in(20), {});
  std::istringstream lines(listed.out.data);
  for (std::string line; std::getline(lines, line);) {
    size_t arrow = line.find(" => /");
    size_t name = line.find_first_not_of(" \t");
    if (arrow == std::string::npos || line.compare(name, prefix.size(), prefix) != 0) continue;
    std::string path = line.substr(arrow + 4, line.find(" (", arrow) - arrow - 4);
    char real[PATH_MAX];
    if (realpath(path.c_str(), real) != nullptr) return real;
  }
  return "";
}

// A file the loader skips, to cover a copy with: the ELF header of `found` marked of the other
// class (the loader reads no further than the header of such a file).
bool write_skipped_copy(const std::string& found, const std::string& skipped) {
  std::ifstream in(found, std::ios::binary);
  std::string header(4096, '\0');
  in.read(&header[0], static_cast<std::streamsize>(header.size()));
  header.resize(static_cast<size_t>(in.gcount()));
  if (header.size() <= EI_CLASS) return false;
  header[EI_CLASS] = static_cast<char>(ELFCLASS32);
  std::ofstream out(skipped, std::ios::binary);
  out << header;
  return static_cast<bool>(out.flush());
}

// Every file the loader could take for the import's `prefix` library: it skips
// a library of another class, machine, or one it may not read, and goes on
// searching (a wheel's libc10 skipped, it takes the system's). Each copy found
// is covered, in a private mount namespace, by a file of the other ELF class,
// which the loader always skips, and the loader asked again, until it finds none.
std::vector<std::string> library_copies(const std::string& tmp, const std::string& prefix,
                                        std::string& why_not) {
  std::vector<std::string> copies;
  const std::string skipped = tmp + "/skipped-" + prefix;
  std::vector<std::string> inside = kdh::in_private_mounts(false);
  for (auto& arg : inside) kd::replace_all(arg, "{tmp}", tmp);
  for (int round = 0; round < 4; ++round) {
    kdh::PrivateMounts covers;
    for (const auto& copy : copies) covers.bind(skipped, copy);
    why_not = covers.write(tmp);
    std::string found = why_not.empty() ? resolved_library(prefix, inside) : "";
    if (!why_not.empty() || found.empty()) return copies;
    if (std::find(copies.begin(), copies.end(), found) != copies.end()) {
      why_not = "covering " + found + " did not hide it from the loader";
      return copies;
    }
    copies.push_back(found);
    if (round == 0 && !write_skipped_copy(found, skipped)) break;
  }
  why_not = "the loader still finds a " + prefix + " after covering 4 copies";
  return copies;
}

// A virtual environment of its own at {tmp}/venv, made by the python3 on PATH: an
// environment beside the application's, without its torch.
std::string venv_without_torch(const std::string& tmp) {
  return kdh::make_virtual_environment(tmp + "/venv");
}

// Changes the bytes of a library; "" or why it could not.
using Change = std::function<std::string(std::string& bytes)>;

// A copy of the probe's libc10 changed by `change`, with `mode`, at
// {tmp}/libc10.so, and {tmp}/mounts.sh, which binds it over every copy the
// loader could take instead.
std::function<std::string(const std::string&)> changed_libc10(Change change, mode_t mode) {
  return [change, mode](const std::string& tmp) -> std::string {
    std::string why_not;
    const std::vector<std::string> copies = library_copies(tmp, "libc10.so", why_not);
    if (!why_not.empty()) return why_not;
    auto bytes = copies.empty() ? std::nullopt : kd::read_file(copies[0], 1ULL << 32);
    if (!bytes) return "cannot find and read the probe's libc10 (ldd)";
    if (std::string why = change(*bytes); !why.empty()) return why;
    const std::string copy = tmp + "/libc10.so";
    std::ofstream out(copy, std::ios::binary);
    out << *bytes;
    if (!out.flush() || chmod(copy.c_str(), mode) != 0 || chmod(tmp.c_str(), 0755) != 0) {
      return "cannot write the copy of libc10";
    }
    kdh::PrivateMounts mounts;
    for (const auto& target : copies) mounts.bind(copy, target);
    return mounts.write(tmp);
  };
}

// Raises the version of `prefix` ("GLIBCXX_3.4.") the library needs: its
// highest two-digit need becomes 99, a string of the same length, so nothing
// else in the file moves. The loader then finds no such version.
Change raise_version_need(const std::string& prefix) {
  return [prefix](std::string& bytes) -> std::string {
    int highest = -1;
    for (size_t at = bytes.find(prefix); at != std::string::npos; at = bytes.find(prefix, at + 1)) {
      size_t digits = at + prefix.size();
      if (digits + 2 < bytes.size() && std::isdigit(static_cast<unsigned char>(bytes[digits])) &&
          std::isdigit(static_cast<unsigned char>(bytes[digits + 1])) && bytes[digits + 2] == '\0') {
        highest = std::max(highest, std::stoi(bytes.substr(digits, 2)));
      }
    }
    if (highest < 0 || highest == 99) return "libc10 needs no two-digit " + prefix + "NN version";
    std::string need = prefix + std::to_string(highest) + '\0';
    kd::replace_all(bytes, need, prefix + "99" + '\0');
    return "";
  };
}

// The ELF header's class (EI_CLASS) or machine (e_machine) changed.
Change elf_class(unsigned char value) {
  return [value](std::string& bytes) -> std::string {
    if (bytes.size() < sizeof(Elf64_Ehdr)) return "libc10 is too short for an ELF header";
    bytes[EI_CLASS] = static_cast<char>(value);
    return "";
  };
}
Change elf_machine(Elf64_Half machine) {
  return [machine](std::string& bytes) -> std::string {
    if (bytes.size() < sizeof(Elf64_Ehdr)) return "libc10 is too short for an ELF header";
    std::memcpy(&bytes[offsetof(Elf64_Ehdr, e_machine)], &machine, sizeof machine);
    return "";
  };
}
Change unchanged() {
  return [](std::string&) { return std::string(); };
}
// The whole file replaced: by a real shared library without any of c10's symbols (the
// suite's stand-in), or by text that is no ELF object at all (a truncated download).
Change symbol_less() {
  return [](std::string& bytes) -> std::string {
    auto standin = kd::read_file(kdh::runner().fixtures_dir + "/libkd_c10_standin.so");
    if (!standin) return "cannot read the libc10 stand-in";
    bytes = *standin;
    return "";
  };
}
Change not_elf() {
  return [](std::string& bytes) -> std::string {
    bytes = "this is not an ELF object, it is a truncated download\n";
    return "";
  };
}

// A libc10 changed in a copy bound over the real one: what the loader says of
// it, and the cause the check names.
Case changed_libc10_case(const std::string& id, const std::string& promise, Change change,
                         const std::string& what, const std::string& type, mode_t mode = 0644,
                         kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .guards(promise)
      .needs(Requirement::ProbeModule)
      .needs(Requirement::UserNamespaces)
      .prepare(changed_libc10(std::move(change), mode),
               "a copy of libtorch's libc10 " + what +
                   ", bound over every copy the loader could take, in a private mount namespace")
      .wrap(kdh::in_private_mounts(false), "")
      .args({"--device", "cpu"})
      .outcome("TORCH_IMPORT_FAILED", "import")
      .expect_field("/error/type", type)
      .expect_field_lacks("/error/message", "/")
      .with_privacy_canaries();
}

// ---- damaged libraries: copies of real ones cut, or changed in place ----

// How a copy of a library is damaged: cut with truncate's semantics (just past its ELF and
// program headers, at half its size, one page before the end of its last loaded segment),
// or of the same size with its dynamic symbol table overwritten; and that with every RECORD of
// the site-packages folder above it hidden, so that no RECORD lists it.
enum class Damage {
  CutPastHeaders,
  CutAtHalf,
  CutInLastSegment,
  SymbolsOverwritten,
  SymbolsOverwrittenUnlisted,
};

bool in_place(Damage damage) {
  return damage == Damage::SymbolsOverwritten || damage == Damage::SymbolsOverwrittenUnlisted;
}

// Where the headers put a file's parts: the end of its program headers, the end of its last
// loaded segment's bytes in the file.
struct FileSpan {
  std::uint64_t size = 0;
  std::uint64_t headers_end = 0;
  std::uint64_t last_load_end = 0;
};

std::optional<FileSpan> file_span(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  FileSpan span;
  span.size = static_cast<std::uint64_t>(in.tellg());
  Elf64_Ehdr eh{};
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh) || eh.e_phentsize != sizeof(Elf64_Phdr)) {
    return std::nullopt;
  }
  span.headers_end = eh.e_phoff + std::uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof ph));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return std::nullopt;
    if (ph.p_type == PT_LOAD) span.last_load_end = std::max(span.last_load_end, ph.p_offset + ph.p_filesz);
  }
  return span;
}

// The size a cut leaves; 0 where the file is too small for it.
std::uint64_t cut_size(Damage damage, const FileSpan& span) {
  constexpr std::uint64_t kPage = 4096;
  switch (damage) {
    case Damage::CutPastHeaders: return span.headers_end;
    case Damage::CutAtHalf: return span.size / 2;
    case Damage::CutInLastSegment:
      return span.last_load_end > 2 * kPage ? span.last_load_end - kPage : 0;
    case Damage::SymbolsOverwritten:
    case Damage::SymbolsOverwrittenUnlisted: return span.size;
  }
  return 0;
}

// The first `size` bytes of `from` in `to`.
bool copy_prefix(const std::string& from, const std::string& to, std::uint64_t size) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  std::vector<char> chunk(1 << 20);
  while (size > 0 && in) {
    const auto want = static_cast<std::streamsize>(std::min<std::uint64_t>(size, chunk.size()));
    in.read(chunk.data(), want);
    out.write(chunk.data(), in.gcount());
    size -= static_cast<std::uint64_t>(in.gcount());
  }
  return size == 0 && static_cast<bool>(out.flush());
}

// Every symbol of the dynamic symbol table (.dynsym) but the first, null one, overwritten by
// zeros: the file keeps its size and its headers, and the loader finds none of its symbols.
std::string overwrite_symbols(std::string& bytes) {
  Elf64_Ehdr eh{};
  if (bytes.size() < sizeof eh) return "the library is too short for an ELF header";
  std::memcpy(&eh, bytes.data(), sizeof eh);
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh{};
    const std::uint64_t at = eh.e_shoff + std::uint64_t{i} * sizeof sh;
    if (at + sizeof sh > bytes.size()) break;
    std::memcpy(&sh, bytes.data() + at, sizeof sh);
    if (sh.sh_type != SHT_DYNSYM || sh.sh_offset + sh.sh_size > bytes.size()) continue;
    if (sh.sh_size <= sizeof(Elf64_Sym)) return "the library's .dynsym is empty";
    std::memset(&bytes[sh.sh_offset + sizeof(Elf64_Sym)], 0, sh.sh_size - sizeof(Elf64_Sym));
    return "";
  }
  return "the library has no .dynsym section";
}

// The damaged copy of `real` at `copy`; "" or why it could not be made. Writes its size to
// {tmp}/damaged-size, which the case's check compares with the report's.
std::string write_damaged_copy(const std::string& tmp, const std::string& real,
                               const std::string& copy, Damage damage) {
  auto span = file_span(real);
  if (!span) return "cannot read the ELF headers of " + real;
  const std::uint64_t size = cut_size(damage, *span);
  if (size == 0 || size > span->size) return real + " is too small for this cut";
  if (in_place(damage)) {
    auto bytes = kd::read_file(real, 1ULL << 32);
    if (!bytes) return "cannot read " + real;
    if (std::string why = overwrite_symbols(*bytes); !why.empty()) return why;
    std::ofstream out(copy, std::ios::binary);
    if (!(out << *bytes) || !out.flush()) return "cannot write the damaged copy";
  } else if (!copy_prefix(real, copy, size)) {
    return "cannot write the cut copy of " + real;
  }
  return kdh::write_text_file(tmp + "/damaged-size", std::to_string(size));
}

// Every RECORD of the site-packages folder above `library` (the folder of its *.dist-info
// folders, within 5 folders up) covered by an empty file; none where there is none.
std::string hide_records(const std::string& tmp, const std::string& library,
                         kdh::PrivateMounts& mounts) {
  const std::string empty = tmp + "/empty-RECORD";
  if (!kdh::write_text_file(empty, "").empty()) return "cannot write " + empty;
  std::string folder = kd::dirname_of(library);
  for (int depth = 0; depth < 5 && folder.size() > 1; ++depth, folder = kd::dirname_of(folder)) {
    bool site = false;
    for (const auto& name : kd::folder_entries(folder)) {
      const std::string record = folder + "/" + name + "/RECORD";
      if (name.size() <= 10 || name.compare(name.size() - 10, 10, ".dist-info") != 0 ||
          access(record.c_str(), F_OK) != 0) {
        continue;
      }
      mounts.bind(empty, record);
      site = true;
    }
    if (site) break;
  }
  return "";
}

// A copy of the import's `prefix` library damaged so, at {tmp}/damaged-<name>, and
// {tmp}/mounts.sh, which binds it over every copy the loader could take.
std::function<std::string(const std::string&)> damaged_library(const std::string& prefix,
                                                              Damage damage) {
  return [prefix, damage](const std::string& tmp) -> std::string {
    std::string why_not;
    const std::vector<std::string> copies = library_copies(tmp, prefix, why_not);
    if (!why_not.empty()) return why_not;
    if (copies.empty()) return "the loader finds no " + prefix + " for the import (ldd)";
    const std::string copy = tmp + "/damaged-" + prefix;
    if (std::string why = write_damaged_copy(tmp, copies[0], copy, damage); !why.empty()) {
      return why;
    }
    if (chmod(copy.c_str(), 0644) != 0 || chmod(tmp.c_str(), 0755) != 0) {
      return "cannot open the damaged copy to the check";
    }
    kdh::PrivateMounts mounts;
    for (const auto& target : copies) mounts.bind(copy, target);
    if (damage == Damage::SymbolsOverwrittenUnlisted) {
      if (std::string why = hide_records(tmp, copies[0], mounts); !why.empty()) return why;
    }
    return mounts.write(tmp);
  };
}

// The report's evidence: the damaged file's size is the copy's, and its headers need more
// (a cut) or no more (changed in place).
std::function<void(const kdh::CaseRun&, std::vector<std::string>&)> damaged_sizes(bool cut) {
  return [cut](const kdh::CaseRun& run, std::vector<std::string>& problems) {
    const auto& report = run.main().report;
    auto written = kd::read_file(run.tmp + "/damaged-size");
    if (!report || !written) return;  // the case's own expectations say what is missing
    const json::json_pointer at("/error/evidence/library");
    const json library = report->contains(at) ? report->at(at) : json();
    if (!library.is_object()) return;
    const long long expected = std::stoll(*written);
    const json size = library.value("size", json());
    const json needed = library.value("needed_size", json());
    if (!size.is_number_integer() || size.get<long long>() != expected) {
      problems.push_back("/error/evidence/library/size: expected " + *written + ", got " +
                         size.dump());
    }
    const bool fits = needed.is_number_integer() &&
                      (cut ? needed.get<long long>() > expected : needed.get<long long>() <= expected);
    if (!fits) {
      problems.push_back("/error/evidence/library/needed_size: expected " +
                         std::string(cut ? "more than " : "at most ") + *written + ", got " +
                         needed.dump());
    }
  };
}

const char* damage_words(Damage damage) {
  switch (damage) {
    case Damage::CutPastHeaders: return "cut just past its ELF and program headers";
    case Damage::CutAtHalf: return "cut at half its size";
    case Damage::CutInLastSegment: return "cut one page before the end of its last loaded segment";
    case Damage::SymbolsOverwritten:
      return "of its own size with its dynamic symbol table overwritten by zeros (an undefined "
             "symbol), its wheel's RECORD listing its SHA-256";
    case Damage::SymbolsOverwrittenUnlisted:
      return "of its own size with its dynamic symbol table overwritten by zeros (an undefined "
             "symbol), no RECORD listing it (a wheel's hidden)";
  }
  return "";
}

// A library of the import that a case damages: in words, the start of its file's name, the
// check's arguments, and what the runner must offer for it beyond every damaged case's needs.
struct ImportLibrary {
  std::string what;
  std::string prefix;
  std::vector<std::string> args;
  std::vector<Requirement> needs;
};

const ImportLibrary kLibc10{"libc10", "libc10.so", {}, {}};
const ImportLibrary kLibtorchCpu{"libtorch's CPU library", "libtorch_cpu.so", {"--device", "cpu"},
                                 {}};
const ImportLibrary kCublas{"the wheel's CUDA library cuBLAS", "libcublas.so", {},
                            {Requirement::CudaBackend}};

// A damaged copy of the import's `library` bound over the real file: whatever the loader does
// with it (a SIGBUS, an undefined symbol), the check names the file.
Case damaged_library_case(const std::string& id, const ImportLibrary& library, Damage damage,
                          kdh::Where where = kdh::Where::here()) {
  const std::string& prefix = library.prefix;
  const char* expected = damage == Damage::SymbolsOverwritten           ? "record_mismatch"
                         : damage == Damage::SymbolsOverwrittenUnlisted ? "symbol_table"
                                                                        : "truncated";
  Case c = Case(id, where);
  c.guards(library.what + " " + damage_words(damage) + (in_place(damage) ? "," : "") +
           " is TORCH_IMPORT_FAILED (4) with CorruptLibrary naming the file and its sizes, not "
           "the worker's death or another cause")
      .needs(Requirement::ProbeModule)
      .needs(Requirement::UserNamespaces)
      .prepare(damaged_library(prefix, damage),
               "a copy of the import's " + prefix + " " + damage_words(damage) +
                   ", bound over every copy the loader could take, in a private mount namespace")
      .wrap(kdh::in_private_mounts(false), "")
      .args(library.args)
      .outcome("TORCH_IMPORT_FAILED", "import")
      .expect_field("/error/type", "CorruptLibrary")
      .expect_field("/error/evidence/library/found", "damaged")
      .expect_field("/error/evidence/library/damage", expected)
      .expect_field_contains("/message", "but " + prefix)
      .expect_field_contains("/message", "is not a valid shared library")
      .expect_field_contains("/message", "Reinstall the libtorch package")
      .expect_field_contains("/error/message", prefix)
      .expect_field_lacks("/error/message", "/")
      .expect_field_lacks("/message", "/")
      .also(damaged_sizes(!in_place(damage)))
      .with_privacy_canaries();
  if (damage == Damage::SymbolsOverwritten) c.needs(Requirement::WheelRecord);
  for (Requirement need : library.needs) c.needs(need);
  return c;
}

// One row a case: its id, the library it damages, the damage.
std::vector<Case> damaged_library_cases() {
  return {
      damaged_library_case("damaged_libc10_cut_past_headers", kLibc10, Damage::CutPastHeaders),
      damaged_library_case("damaged_libc10_cut_at_half", kLibc10, Damage::CutAtHalf),
      damaged_library_case("damaged_libc10_cut_in_last_segment", kLibc10,
                           Damage::CutInLastSegment),
      damaged_library_case("damaged_libtorch_cpu_cut_past_headers", kLibtorchCpu,
                           Damage::CutPastHeaders),
      damaged_library_case("damaged_libtorch_cpu_cut_at_half", kLibtorchCpu, Damage::CutAtHalf),
      damaged_library_case("damaged_libtorch_cpu_cut_in_last_segment", kLibtorchCpu,
                           Damage::CutInLastSegment),
      damaged_library_case("damaged_cublas_cut_past_headers", kCublas, Damage::CutPastHeaders),
      damaged_library_case("damaged_cublas_cut_at_half", kCublas, Damage::CutAtHalf),
      damaged_library_case("damaged_cublas_cut_in_last_segment", kCublas,
                           Damage::CutInLastSegment),
      damaged_library_case("damaged_libc10_symbols_overwritten", kLibc10,
                           Damage::SymbolsOverwritten),
      damaged_library_case("damaged_libc10_symbols_overwritten_unlisted", kLibc10,
                           Damage::SymbolsOverwrittenUnlisted),
      Case("crash_while_loading_sound_files")
          .guards("a worker killed by a signal while loading, every file it needs sound, stays "
                  "WORKER_FAILED (11) with the generic WorkerFailed: no file is blamed")
          .with_fault("crash=import")
          .args({"--device", "cpu"})
          .outcome("WORKER_FAILED", "import")
          .expect_field("/error/type", "WorkerFailed")
          .expect_field_contains("/error/message", "SIGSEGV")
          .expect_field_contains("/message", "examine the environment")
          .expect_null("/error/evidence"),
  };
}

std::vector<Case> import_cause_cases() {
  return {
      changed_libc10_case("cause_cxx_runtime_too_old",
                          "a libtorch needing a newer C++ runtime than the image has is "
                          "TORCH_IMPORT_FAILED (4) naming the version and a newer libstdc++",
                          raise_version_need("GLIBCXX_3.4."), "needing GLIBCXX_3.4.99",
                          "CxxRuntimeTooOld")
          .expect_field_contains("/error/message", "version `GLIBCXX_3.4.99' not found")
          .expect_field_contains("/message", "but libc10.so")
          .expect_field_contains("/message", "needs GLIBCXX_3.4.99 of the C++ runtime, which this "
                                             "image's libstdc++.so.6 is too old to have")
          .expect_field_contains("/message", "Use a base image with a newer libstdc++"),
      changed_libc10_case("cause_c_library_too_old",
                          "a libtorch needing a newer C library than the image has is "
                          "TORCH_IMPORT_FAILED (4) naming the version and a newer glibc",
                          raise_version_need("GLIBC_2."), "needing GLIBC_2.99", "CLibraryTooOld")
          .expect_field_contains("/error/message", "version `GLIBC_2.99' not found")
          .expect_field_contains("/message", "but libc10.so")
          .expect_field_contains("/message", "needs GLIBC_2.99 of the C library, which this "
                                             "image's libc.so.6 is too old to have")
          .expect_field_contains("/message", "Use a base image with a newer glibc"),
      changed_libc10_case("cause_wrong_elf_class",
                          "a libtorch library of the other ELF class (32-bit) is "
                          "TORCH_IMPORT_FAILED (4) naming another architecture",
                          elf_class(ELFCLASS32), "marked 32-bit (EI_CLASS)", "WrongArchitecture")
          .expect_field_contains("/error/message", "wrong ELF class: ELFCLASS32")
          .expect_field_contains("/message", "but libc10.so")
          .expect_field_contains("/message", "is built for another architecture (32-bit, ELFCLASS32")
          .expect_field_contains("/message", "Install the libtorch built for"),
      // The loader skips a library for another machine as if it were not
      // there, and says "No such file or directory": the check looks where
      // the loader looks and finds the copy it skipped.
      changed_libc10_case("cause_wrong_machine",
                          "a libtorch library built for another machine, which the loader skips "
                          "as missing, is TORCH_IMPORT_FAILED (4) naming that machine",
                          elf_machine(EM_AARCH64), "marked aarch64 (e_machine)", "WrongArchitecture")
          .expect_field_contains("/error/message", "cannot open shared object file: No such file")
          .expect_field("/error/evidence/library/found", "other_machine")
          .expect_field("/error/evidence/library/machine", "aarch64")
          .expect_field_contains("/message", "but libc10.so")
          .expect_field_contains("/message", "is built for another architecture (aarch64")
          .expect_field_contains("/message", "Install the libtorch built for"),
      // The loader skips a library it may not read as if it were not there.
      changed_libc10_case("cause_library_unreadable",
                          "a libtorch library this user may not read is TORCH_IMPORT_FAILED (4) "
                          "naming it and what to make readable",
                          unchanged(), "of root, mode 0600", "LibraryUnreadable", 0600)
          .needs(Requirement::AnotherUser)
          .wrap({"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh",
                 "{tmp}/mounts.sh", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                 "--clear-groups", "--"},
                "in a private mount namespace, then as nobody (setpriv --reuid=65534)")
          .expect_field_contains("/error/message", "cannot open shared object file: No such file")
          .expect_field("/error/evidence/library/found", "not_readable")
          .expect_field_contains("/message", "this user may not read libc10.so")
          .expect_field_contains("/message", "Make libtorch's files readable"),
  };
}

// The image's own CUDA library first on LD_LIBRARY_PATH, older than the one a wheel's CUDA
// library needs (fixtures/cuda_shadow): the real loader's words, an undefined symbol of that
// library's version, and the folder it was taken from named by its role, never its path.
Case cuda_library_shadowed(const std::string& id, const std::string& folder_words,
                           const std::string& role, kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .guards("a CUDA library of the image that shadows the one a wheel's library needs (an "
              "undefined symbol of its version) is TORCH_IMPORT_FAILED (4) naming the folder "
              "LD_LIBRARY_PATH puts first by its role (" + role + "), never libtorch's builds")
      .with_probe("{fixtures}/libkd_shadowed_cuda_probe.so")
      .args({"--device", "cpu"})
      .outcome("TORCH_IMPORT_FAILED", "import")
      .expect_field("/error/type", "CudaLibraryShadowed")
      .expect_field_contains("/error/message",
                             "libcusparse.so.12: undefined symbol: __nvJitLinkAddData_13_2, "
                             "version libnvJitLink.so.13")
      .expect_field("/error/evidence/library/name", "libnvJitLink.so.13")
      .expect_field("/error/evidence/library/found", "readable")
      .expect_field("/error/evidence/library/folder", role)
      .expect_field_contains("/message", "libcusparse.so.12 needs a newer libnvJitLink.so.13 than "
                                         "the one the loader takes first, from " + folder_words)
      .expect_field_contains("/message", "Take that folder off LD_LIBRARY_PATH")
      .expect_field_lacks("/message", "different builds")
      .expect_field_lacks("/error/message", "/")
      .with_privacy_canaries();
}

std::vector<Case> import_cases() {
  return {
      Case("torch_missing")
          .guards("libtorch that cannot be found is TORCH_MISSING (3), told from the loader's words")
          .with_probe("{fixtures}/libkd_absent_torch_probe.so")
          .args({"--device", "cpu"})
          .outcome("TORCH_MISSING", "import")
          .expect_field("/error/type", "TorchNotFound")
          .expect_field_contains("/message", "the loader finds no libtorch_kernodeck_absent.so")
          .expect_field_contains("/message", "Check the library path")
          .expect_null("/pytorch/version")
          .expect_null("/execution/timings_ms/load")
          .expect_field_contains("/error/message",
                                 "libtorch_kernodeck_absent.so: cannot open shared object file")
          .expect_field_lacks("/error/message", "/"),
      Case("torch_unreachable")
          .guards("libtorch that cannot be found is TORCH_MISSING (3): the real probe, with "
                  "libtorch's files hidden from the loader")
          .needs(Requirement::ProbeModule)
          .needs(Requirement::CompiledProbe)
          .needs(Requirement::UserNamespaces)
          .prepare(hide_libtorch, "libtorch's folders covered, in a mount namespace, by links "
                                  "to everything but libtorch and libc10")
          .wrap({"/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh",
                 "{tmp}/hide.sh"},
                "")
          .args({"--device", "cpu"})
          .outcome("TORCH_MISSING", "import")
          .expect_field("/tool/probe", "libtorch")
          .expect_field("/error/type", "TorchNotFound")
          .expect_field("/error/evidence/library/found", "absent")
          .expect_field_contains("/error/message", "cannot open shared object file")
          .expect_field_lacks("/error/message", "/"),
      changed_libc10_case("torch_unloadable_undefined_symbol",
                          "libtorch found but failing to load (a library missing a symbol) is "
                          "TORCH_IMPORT_FAILED (4) naming libraries of different builds",
                          symbol_less(), "replaced by a library without c10's symbols",
                          "MixedBuilds")
          .expect_field_contains("/error/message", "undefined symbol")
          .expect_field_contains("/message", "its libraries come from different builds")
          .expect_field_contains("/message", "Install libtorch from one release")
          .expect_field_lacks("/error/message", "/")
          .with_privacy_canaries(),
      changed_libc10_case("torch_unloadable_not_elf",
                          "a corrupt libtorch library file is TORCH_IMPORT_FAILED (4), never a pass",
                          not_elf(), "replaced by text that is no ELF object", "CorruptLibrary")
          .expect_field_contains("/error/message", "libc10")
          .expect_field_contains("/message", "is not a valid shared library")
          .expect_field_contains("/message", "Reinstall the libtorch package")
          .expect_field_lacks("/error/message", "/")
          .with_privacy_canaries(),
      cuda_dependency_hidden("cuda_runtime_hidden", "CUDA runtime (libcudart)",
                             hide_cuda_runtime, "libcudart.so", {}),
      cuda_dependency_hidden("cuda_runtime_hidden_cpu_mode", "CUDA runtime (libcudart)",
                             hide_cuda_runtime, "libcudart.so", {"--device", "cpu"}),
      cuda_dependency_hidden("cublas_hidden", "cuBLAS", hide_cublas, "libcublas", {}),
      cuda_dependency_hidden("cublas_hidden_cpu_mode", "cuBLAS", hide_cublas, "libcublas",
                             {"--device", "cpu"}),
      Case("torch_folder_without_torch")
          .guards("the stable probe given a torch folder without libtorch is TORCH_MISSING (3), "
                  "naming the folder variable and how to install torch")
          .needs(Requirement::StableProbe)
          .directory("empty-torch")
          .env("KERNODECK_TORCH_DIR", "{tmp}/empty-torch")
          .args({"--device", "cpu"})
          .outcome("TORCH_MISSING", "import")
          .expect_field("/tool/probe", "stable_abi")
          .expect_field("/error/type", "TorchPackageMissing")
          .expect_field("/error/message", "the folder KERNODECK_TORCH_DIR names has no torch package")
          .expect_field_contains("/message", "python3 -m pip install torch")
          .expect_null("/pytorch/version")
          .expect_report_lacks("empty-torch"),
      Case("torch_python_without_torch")
          .guards("the interpreter KERNODECK_TORCH_PYTHON names, without torch, is TORCH_MISSING "
                  "(3), naming that Python and pip install torch in its environment")
          .prepare(venv_without_torch, "a virtual environment of its own, without torch, made "
                                       "by the python3 on PATH (python3 -m venv --without-pip)")
          .env("KERNODECK_TORCH_PYTHON", "{tmp}/venv/bin/python3")
          .args({"--device", "cpu"})
          .outcome("TORCH_MISSING", "import")
          .expect_field("/error/type", "TorchPackageMissing")
          .expect_field("/error/message", "the Python of KERNODECK_TORCH_PYTHON has no torch package")
          .expect_field("/tool/probe", "python")
          .expect_field_contains("/message", "Install torch into the Python environment"),
      cuda_library_shadowed("cause_cuda_library_shadowed",
                            "the image's CUDA toolkit folder that LD_LIBRARY_PATH names",
                            "cuda_toolkit")
          .env("LD_LIBRARY_PATH", "{fixtures}/cuda-shadow/cuda-13.0/lib64"),
      cuda_library_shadowed("cause_cuda_library_shadowed_other_folder",
                            "a folder LD_LIBRARY_PATH names", "ld_library_path")
          .prepare(
              [](const std::string& tmp) {
                const std::string dir = tmp + "/libs";
                const std::string old = kdh::runner().fixtures_dir +
                                        "/cuda-shadow/cuda-13.0/lib64/libnvJitLink.so.13";
                if (mkdir(dir.c_str(), 0755) != 0) return std::string("cannot make ") + dir;
                return symlink(old.c_str(), (dir + "/libnvJitLink.so.13").c_str()) == 0
                           ? std::string()
                           : "cannot link " + old;
              },
              "{tmp}/libs first on LD_LIBRARY_PATH, holding the older libnvJitLink.so.13 "
              "stand-in")
          .env("LD_LIBRARY_PATH", "{tmp}/libs"),
      Case("probe_module_missing")
          .guards("a check without its probe module is INTERNAL_ERROR (1), not a libtorch problem")
          .with_probe("{tmp}/no-such-probe.so")
          .args({"--device", "cpu"})
          .outcome("INTERNAL_ERROR", "import"),
      Case("probe_module_not_a_probe")
          .guards("a module without the probe interface is INTERNAL_ERROR (1)")
          .with_probe("{fixtures}/libkd_c10_standin.so")
          .args({"--device", "cpu"})
          .outcome("INTERNAL_ERROR", "import"),
  };
}

std::vector<Case> all_import_cases() {
  std::vector<Case> all = import_cases();
  for (Case& c : import_cause_cases()) all.push_back(std::move(c));
  for (Case& c : damaged_library_cases()) all.push_back(std::move(c));
  return all;
}

}  // namespace

KERNODECK_LAYER(import, all_import_cases());
