#include "stages/import/library_damage.hpp"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

#include "facts/sanitize.hpp"
#include "util/files.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace kd {
namespace {

// Bounds on what one examination reads.
constexpr size_t kMaxFiles = 512;
constexpr size_t kMaxCache = size_t{64} << 20;
constexpr size_t kMaxRecord = size_t{64} << 20;
constexpr int kSitePackagesDepth = 5;  // site-packages/nvidia/cu13/lib/<file>: 4 folders up

std::string real_path(const std::string& path) {
  char real[PATH_MAX];
  return realpath(path.c_str(), real) != nullptr ? std::string(real) : path;
}

// A colon-separated list, as the loader splits it: an empty element is the working folder.
std::vector<std::string> path_list(const char* list) {
  std::vector<std::string> out;
  if (list == nullptr || *list == '\0') return out;
  std::string_view rest(list);
  for (;;) {
    size_t sep = rest.find_first_of(":;");
    std::string_view item = rest.substr(0, sep);
    out.emplace_back(item.empty() ? std::string_view(".") : item);
    if (sep == std::string_view::npos) break;
    rest = rest.substr(sep + 1);
  }
  return out;
}

// A DT_RPATH or DT_RUNPATH list with $ORIGIN, the folder of the object that carries it.
std::vector<std::string> expanded(const std::vector<std::string>& dirs, const std::string& object) {
  std::vector<std::string> out;
  const std::string origin = dirname_of(object);
  for (std::string dir : dirs) {
    replace_all(dir, "${ORIGIN}", origin);
    replace_all(dir, "$ORIGIN", origin);
    out.push_back(dir);
  }
  return out;
}

std::uint32_t u32_at(std::string_view bytes, size_t at) {
  std::uint32_t v = 0;
  if (at + sizeof v <= bytes.size()) std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

// The NUL-terminated string at `at`; "" outside.
std::string string_at(std::string_view bytes, size_t at) {
  if (at >= bytes.size()) return {};
  size_t end = bytes.find('\0', at);
  return end == std::string_view::npos ? std::string() : std::string(bytes.substr(at, end - at));
}

// The file at `path` as the loader would take it, or nullopt where it goes on searching: no
// such file, one this process may not read, one of another class or machine.
std::optional<ElfLayout> taken(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (faccessat(AT_FDCWD, path.c_str(), R_OK, AT_EACCESS) != 0) return std::nullopt;
  auto layout = read_elf_layout(path);
  if (!layout) return std::nullopt;
  if (layout->elf_class != 0 && layout->elf_class != ELFCLASS64) return std::nullopt;
  if (layout->judged && layout->machine != host_elf_machine()) return std::nullopt;
  return layout;
}

// The folders the loader searches for a need of files[requester], before ld.so.cache.
std::vector<std::string> folders_for(const std::vector<ImportFile>& files, int requester,
                                     const LoaderSearch& search) {
  std::vector<std::string> out;
  const ElfDynamic& own = files[static_cast<size_t>(requester)].layout.dynamic;
  const bool runpath = !own.runpath.empty() && !own.runpath_is_rpath;
  auto add = [&out](const std::vector<std::string>& dirs) {
    out.insert(out.end(), dirs.begin(), dirs.end());
  };
  if (!runpath) {
    // DT_RPATH of the object that needs it, then of the one that loaded that, and on up.
    for (int i = requester; i >= 0; i = files[static_cast<size_t>(i)].loader) {
      const ImportFile& f = files[static_cast<size_t>(i)];
      if (f.layout.dynamic.runpath_is_rpath) add(expanded(f.layout.dynamic.runpath, f.path));
    }
    add(search.executable_rpath);
  }
  add(search.library_path);
  if (runpath) add(expanded(own.runpath, files[static_cast<size_t>(requester)].path));
  return out;
}

struct Resolved {
  std::string path;
  ElfLayout layout;
};

std::optional<Resolved> resolve(const std::string& name, const std::vector<ImportFile>& files,
                                int requester, const LoaderSearch& search) {
  auto at = [](const std::string& path) -> std::optional<Resolved> {
    auto layout = taken(path);
    if (!layout) return std::nullopt;
    return Resolved{path, *layout};
  };
  if (name.find('/') != std::string::npos) return at(name);
  for (const auto& dir : folders_for(files, requester, search)) {
    if (auto found = at(dir + "/" + name)) return found;
  }
  for (const auto& [key, path] : search.cache) {
    if (key != name) continue;
    if (auto found = at(path)) return found;
  }
  for (const auto& dir : search.system_folders) {
    if (auto found = at(dir + "/" + name)) return found;
  }
  return std::nullopt;
}

// The closure, as import_closure describes it; `loaded` names are left out.
class Closure {
 public:
  Closure(const LoaderSearch& search, const std::vector<std::string>& loaded)
      : search_(search), loaded_(loaded.begin(), loaded.end()) {}

  void add_root(const std::string& path) {
    auto layout = read_elf_layout(path);
    if (layout) add(path, *layout, -1);
  }

  std::vector<ImportFile> walk() {
    for (size_t i = 0; i < files_.size() && files_.size() < kMaxFiles; ++i) {
      if (files_[i].layout.damage != ElfDamage::None) continue;
      const std::vector<std::string> needs = files_[i].layout.dynamic.needed;
      for (const std::string& name : needs) {
        if (loaded_.count(name) != 0) continue;
        int index = by_name_.count(name) != 0 ? by_name_[name] : -1;
        if (index < 0) {
          auto found = resolve(name, files_, static_cast<int>(i), search_);
          if (!found) continue;  // not found: the loader's own words say so
          index = add(found->path, found->layout, static_cast<int>(i));
          by_name_[name] = index;
        }
        files_[i].needs.push_back(index);
      }
    }
    return files_;
  }

 private:
  int add(const std::string& path, const ElfLayout& layout, int loader) {
    const std::string real = real_path(path);
    if (auto it = by_real_.find(real); it != by_real_.end()) return it->second;
    ImportFile f;
    f.path = path;
    f.layout = layout;
    f.loader = loader;
    files_.push_back(std::move(f));
    const int index = static_cast<int>(files_.size() - 1);
    by_real_[real] = index;
    by_name_.emplace(file_name(path), index);
    return index;
  }

  const LoaderSearch& search_;
  std::set<std::string> loaded_;
  std::vector<ImportFile> files_;
  std::map<std::string, int> by_real_;
  std::map<std::string, int> by_name_;
};

std::vector<ImportFile> closure_of(const std::vector<std::string>& roots,
                                   const LoaderSearch& search,
                                   const std::vector<std::string>& loaded) {
  Closure closure(search, loaded);
  for (const auto& root : roots) closure.add_root(root);
  return closure.walk();
}

// The name a report may carry: the real file's name, as a token.
std::string report_name(const std::string& path) {
  std::string name = Sanitizer::token(file_name(real_path(path)));
  return name.empty() ? "a library of an unusual name" : name;
}

LibraryCopy damaged_copy(const ImportFile& f, const char* damage) {
  LibraryCopy copy{report_name(f.path), CopyState::Damaged, std::nullopt};
  copy.size = static_cast<long long>(f.layout.size);
  if (f.layout.needed_size > 0) copy.needed_size = static_cast<long long>(f.layout.needed_size);
  copy.damage = damage;
  return copy;
}

// The RECORDs of a site-packages folder, by the path each lists relative to it; nullopt for a
// folder without *.dist-info.
using RecordIndex = std::map<std::string, RecordEntry>;

std::optional<RecordIndex> records_in(const std::string& folder) {
  std::optional<RecordIndex> all;
  for (const auto& entry : folder_entries(folder)) {
    if (!is_dist_info(entry)) continue;
    if (!all) all.emplace();
    if (auto text = read_file(folder + "/" + entry + "/RECORD", kMaxRecord)) {
      all->merge(parse_record(*text));
    }
  }
  return all;
}

// What one examination has read of each folder above the files it looked at.
using RecordFolders = std::map<std::string, std::optional<RecordIndex>>;

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_ld_so_cache(std::string_view bytes) {
  constexpr std::string_view kOld = "ld.so-1.7.0";
  constexpr std::string_view kNew = "glibc-ld.so.cache1.1";
  constexpr size_t kHeader = 48, kEntry = 24;
  size_t base = 0;
  if (bytes.substr(0, kOld.size()) == kOld) {
    // The old format first: its header (magic, count) and entries of 12 bytes, then the new.
    base = (16 + size_t{u32_at(bytes, 12)} * 12 + 7) & ~size_t{7};
  }
  std::vector<std::pair<std::string, std::string>> out;
  if (base >= bytes.size() || bytes.substr(base, kNew.size()) != kNew) return out;
  const std::string_view cache = bytes.substr(base);
  const size_t count = u32_at(cache, 20);
  for (size_t i = 0; i < count && kHeader + (i + 1) * kEntry <= cache.size(); ++i) {
    const size_t entry = kHeader + i * kEntry;
    std::string key = string_at(cache, u32_at(cache, entry + 4));
    std::string value = string_at(cache, u32_at(cache, entry + 8));
    if (!key.empty() && !value.empty()) out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

std::vector<std::string> system_library_folders() {
#if defined(__x86_64__)
  const std::string triplet = "x86_64-linux-gnu";
#elif defined(__aarch64__)
  const std::string triplet = "aarch64-linux-gnu";
#elif defined(__powerpc64__)
  const std::string triplet = "powerpc64le-linux-gnu";
#elif defined(__s390x__)
  const std::string triplet = "s390x-linux-gnu";
#else
  const std::string triplet = "riscv64-linux-gnu";
#endif
  return {"/lib/" + triplet, "/usr/lib/" + triplet, "/lib64", "/usr/lib64", "/lib", "/usr/lib"};
}

LoaderSearch LoaderSearch::of_this_process(const std::string& self_exe) {
  LoaderSearch s;
  s.library_path = path_list(std::getenv("LD_LIBRARY_PATH"));
  if (auto cache = read_file("/etc/ld.so.cache", kMaxCache)) s.cache = parse_ld_so_cache(*cache);
  s.system_folders = system_library_folders();
  const std::string exe = real_path(self_exe);
  if (auto dynamic = read_elf_dynamic(exe); dynamic && dynamic->runpath_is_rpath) {
    s.executable_rpath = expanded(dynamic->runpath, exe);
  }
  // What the program itself loaded, the loader does not look for again.
  for (const ImportFile& f : closure_of({exe}, s, {})) {
    const auto& needed = f.layout.dynamic.needed;
    s.loaded.insert(s.loaded.end(), needed.begin(), needed.end());
  }
  return s;
}

std::vector<ImportFile> import_closure(const std::vector<std::string>& roots,
                                       const LoaderSearch& search) {
  return closure_of(roots, search, search.loaded);
}

std::optional<LibraryCopy> damaged_by_headers(const std::vector<ImportFile>& files) {
  for (const ImportFile& f : files) {
    switch (f.layout.damage) {
      case ElfDamage::None: break;
      case ElfDamage::TooShort: return damaged_copy(f, "truncated");
      case ElfDamage::BadHeader: return damaged_copy(f, "bad_header");
      case ElfDamage::DynamicOutside: return damaged_copy(f, "dynamic_outside");
    }
  }
  return std::nullopt;
}

std::map<std::string, RecordEntry> parse_record(std::string_view text) {
  std::map<std::string, RecordEntry> out;
  constexpr std::string_view kAlgorithm = "sha256=";
  for (std::string_view line : split_lines(text)) {
    // path,sha256=<digest>,size: the path may hold commas, the others do not.
    size_t last = line.rfind(',');
    size_t middle = last == std::string_view::npos || last == 0 ? std::string_view::npos
                                                                 : line.rfind(',', last - 1);
    if (middle == std::string_view::npos || line.front() == '"') continue;
    std::string_view hash = line.substr(middle + 1, last - middle - 1);
    std::string size(trim(line.substr(last + 1)));
    if (hash.substr(0, kAlgorithm.size()) != kAlgorithm || size.empty() ||
        size.find_first_not_of("0123456789") != std::string::npos || size.size() > 18) {
      continue;
    }
    out[std::string(line.substr(0, middle))] =
        RecordEntry{std::string(hash.substr(kAlgorithm.size())), std::stoull(size)};
  }
  return out;
}

namespace {

// The RECORD entry of `path`: of the first folder above it that holds *.dist-info folders.
std::optional<RecordEntry> entry_in(const std::string& path, RecordFolders& folders) {
  const std::string real = real_path(path);
  std::string folder = dirname_of(real);
  for (int depth = 0; depth < kSitePackagesDepth && folder.size() > 1; ++depth) {
    auto it = folders.find(folder);
    if (it == folders.end()) it = folders.emplace(folder, records_in(folder)).first;
    if (it->second) {
      auto entry = it->second->find(real.substr(folder.size() + 1));
      if (entry == it->second->end()) return std::nullopt;
      return entry->second;
    }
    folder = dirname_of(folder);
  }
  return std::nullopt;
}

}  // namespace

std::optional<RecordEntry> record_entry_of(const std::string& path) {
  RecordFolders folders;
  return entry_in(path, folders);
}

std::optional<LibraryCopy> damaged_by_record(const std::vector<const ImportFile*>& files,
                                             Clock::time_point deadline,
                                             const std::function<bool()>& stop) {
  std::vector<std::pair<const ImportFile*, RecordEntry>> listed;
  RecordFolders folders;
  std::set<const ImportFile*> seen;
  for (const ImportFile* f : files) {
    if (!seen.insert(f).second) continue;
    auto entry = entry_in(f->path, folders);
    // Another size is another file, not this one damaged in place: a file of another build
    // (MixedBuilds), or a cut one, which its headers show.
    if (entry && entry->size == f->layout.size) listed.emplace_back(f, *entry);
  }
  std::stable_sort(listed.begin(), listed.end(),
                   [](const auto& a, const auto& b) { return a.second.size < b.second.size; });
  auto over = [&] { return Clock::now() >= deadline || (stop && stop()); };
  for (const auto& [f, entry] : listed) {
    if (over()) break;
    auto digest = sha256_file(f->path, over);
    if (digest && base64url(*digest) != entry.sha256) return damaged_copy(*f, "record_mismatch");
  }
  return std::nullopt;
}

namespace {

bool is_named(const ImportFile& f, const std::string& name) {
  return !name.empty() && (file_name(f.path) == name || file_name(real_path(f.path)) == name);
}

// After an undefined symbol: the files whose GNU hash table lists the symbol, yet hold no
// symbol of that name where it points; then the needer and the files it needs directly.
std::optional<LibraryCopy> damaged_by_symbol(const std::vector<ImportFile>& files,
                                             const ImportFailure& failure) {
  std::vector<const ImportFile*> listing, blank, needer;
  for (const ImportFile& f : files) {
    const SymbolAnswer answer = find_dynamic_symbol(f.path, failure.symbol);
    if (answer == SymbolAnswer::Mismatch || answer == SymbolAnswer::Blank) listing.push_back(&f);
    if (answer == SymbolAnswer::Blank) blank.push_back(&f);
    if (!is_named(f, failure.needer)) continue;
    needer.push_back(&f);
    for (int need : f.needs) needer.push_back(&files[static_cast<size_t>(need)]);
  }
  if (auto damaged = damaged_by_record(listing, failure.deadline, failure.stop)) return damaged;
  for (const ImportFile* f : blank) {
    // No RECORD to compare it with: its own tables disagree.
    if (!record_entry_of(f->path)) return damaged_copy(*f, "symbol_table");
  }
  return damaged_by_record(needer, failure.deadline, failure.stop);
}

}  // namespace

std::optional<LibraryCopy> examine_import(const std::vector<std::string>& roots,
                                          const LoaderSearch& search,
                                          const ImportFailure& failure) {
  const std::vector<ImportFile> files = import_closure(roots, search);
  if (auto damaged = damaged_by_headers(files)) return damaged;
  if (failure.undefined_symbol) return damaged_by_symbol(files, failure);
  std::vector<const ImportFile*> every;
  for (const ImportFile& f : files) every.push_back(&f);
  return damaged_by_record(every, failure.deadline, failure.stop);
}

std::string damage_words(const LibraryCopy& d) {
  const std::string size = std::to_string(d.size.value_or(0));
  const std::string damage = d.damage.value_or("");
  if (damage == "truncated") {
    return d.name + ": file too short: " + size + " bytes where its headers need " +
           std::to_string(d.needed_size.value_or(0));
  }
  if (damage == "bad_header") return d.name + ": invalid ELF header (a file of " + size + " bytes)";
  if (damage == "dynamic_outside") {
    return d.name + ": its dynamic section points outside the file (" + size + " bytes)";
  }
  if (damage == "symbol_table") {
    return d.name + ": its symbol table holds no name where its hash table lists the symbol the "
                    "loader did not find (" + size + " bytes)";
  }
  return d.name + ": its SHA-256 differs from the one its wheel's RECORD lists (" + size +
         " bytes, the size listed)";
}

}  // namespace kd
