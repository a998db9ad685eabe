// After an import that failed or killed the worker, the parent looks at the
// files the import needed, without loading them: libtorch's libraries and the
// closure of their DT_NEEDED entries, resolved as the loader resolves them
// (DT_RPATH up the chain of loaders, LD_LIBRARY_PATH, DT_RUNPATH,
// /etc/ld.so.cache, the system's folders), each judged by its own headers
// (util/elf.hpp: shorter than its last loaded segment or its section headers,
// an ELF header that does not parse, a dynamic section pointing outside the
// file). Where none is damaged so, a second look compares the files that a
// wheel's RECORD lists, with the size it lists, to the SHA-256 it lists: a file
// damaged in place. Nothing here runs on the pass path.
//
//   LoaderSearch search = LoaderSearch::of_this_process(self_exe);
//   ImportFailure failure{/*undefined_symbol=*/true, "libc10_cuda.so", deadline_in(30)};
//   if (auto damaged = examine_import({probe_path}, search, failure)) ... damaged->name
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "facts/evidence.hpp"
#include "util/elf.hpp"
#include "util/time.hpp"

namespace kd {

// Where the loader looks beside each object's own paths, read once.
struct LoaderSearch {
  std::vector<std::string> library_path;      // LD_LIBRARY_PATH, in order
  std::vector<std::string> executable_rpath;  // the program's DT_RPATH, $ORIGIN expanded
                                              // (none when it has DT_RUNPATH)
  std::vector<std::pair<std::string, std::string>> cache;  // ld.so.cache: name, path
  std::vector<std::string> system_folders;
  // What the program itself loaded (its DT_NEEDED closure, by name): the loader takes those
  // it already has and does not look for them again.
  std::vector<std::string> loaded;

  // This process's: its environment, its executable, /etc/ld.so.cache.
  static LoaderSearch of_this_process(const std::string& self_exe);
};

// The entries of an ld.so.cache in the format glibc writes since 2.32
// ("glibc-ld.so.cache1.1", alone or after the old one), in the cache's order;
// empty when `bytes` is not such a cache.
std::vector<std::pair<std::string, std::string>> parse_ld_so_cache(std::string_view bytes);

// The system's folders for libraries of this machine, in the loader's order.
std::vector<std::string> system_library_folders();

// A file the import needs, as the loader would take it.
struct ImportFile {
  std::string path;  // as the loader opens it: the folder searched and the name
  ElfLayout layout;
  int loader = -1;   // the file whose need brought it in; -1 for a root
  std::vector<int> needs;  // the files its DT_NEEDED entries resolved to
};

// Each root and the closure of the DT_NEEDED entries of the sound ones, breadth first, each
// file once. A need the loader would not find is left out (the loader says so itself).
std::vector<ImportFile> import_closure(const std::vector<std::string>& roots,
                                       const LoaderSearch& search);

// The first of `files` that its own headers show damaged.
std::optional<LibraryCopy> damaged_by_headers(const std::vector<ImportFile>& files);

// A line of a wheel's RECORD: "torch/lib/libc10.so,sha256=<base64url>,1671217".
struct RecordEntry {
  std::string sha256;  // URL-safe base64 without padding, as RECORD writes it
  std::uint64_t size = 0;
};
// The entries of a RECORD that have a SHA-256 and a size, by their path.
std::map<std::string, RecordEntry> parse_record(std::string_view text);

// The RECORD entry of a file: of the wheel that installed it, found in the
// site-packages folder above it (a folder of *.dist-info/RECORD).
std::optional<RecordEntry> record_entry_of(const std::string& path);

// Of `files`, those a RECORD lists with their size, hashed smallest first until one differs
// from its RECORD's SHA-256, `deadline` passes or `stop` says so.
std::optional<LibraryCopy> damaged_by_record(const std::vector<const ImportFile*>& files,
                                             Clock::time_point deadline,
                                             const std::function<bool()>& stop = {});

// How the import failed, for the second look.
struct ImportFailure {
  bool undefined_symbol = false;  // the loader's "undefined symbol"; else the worker died
  std::string needer;             // the file name the loader said lacks a symbol
  Clock::time_point deadline;     // when the second look stops hashing
  std::string symbol;             // the symbol the loader did not find
  std::function<bool()> stop;     // true: stop hashing now (an interrupt); may be empty
};

// The whole examination: the first file damaged by its headers. Else, after an undefined
// symbol: the files whose hash table lists the symbol without a symbol of that name, by their
// RECORD; one of them no RECORD lists whose symbol table has no name where its hash table
// points (damage "symbol_table"); then the needer and its direct needs, by their RECORD. After
// a death: every file, by its RECORD.
std::optional<LibraryCopy> examine_import(const std::vector<std::string>& roots,
                                          const LoaderSearch& search,
                                          const ImportFailure& failure);

// The words of error.message for a damaged file: "libc10.so: file too short: 680 bytes where
// its headers need 1671216".
std::string damage_words(const LibraryCopy& damaged);

}  // namespace kd
