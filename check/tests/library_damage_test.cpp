// Covers library_damage.hpp: where the loader would take each file the import
// needs, a damaged one found by its headers, and one damaged in place found by
// its wheel's RECORD. The files are copies of a real module (the test probe).
#include "stages/import/library_damage.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "probe/probe_abi.h"
#include "util/files.hpp"
#include "util/sha256.hpp"
#include "util/tests/temp_dir.hpp"

#ifndef KD_TEST_PROBE_MODULE
#error "KD_TEST_PROBE_MODULE must name the test probe module"
#endif

namespace kd {
namespace {

std::string module_bytes() { return read_file(KD_TEST_PROBE_MODULE, 1ULL << 30).value_or(""); }

std::string write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// No folder beyond the system's, nothing loaded already: every need is looked for.
LoaderSearch bare_search() {
  LoaderSearch s;
  s.system_folders = system_library_folders();
  return s;
}

TEST(ParseRecord, PathsWithTheirDigestAndSize) {
  auto entries = parse_record(
      "torch/lib/libc10.so,sha256=ux_lubFtElwnJYkf0STuULYmRpGYHw5Kr7NxVJ4sblk,1671217\r\n"
      "torch/__pycache__/x.pyc,,\n"
      "odd,name.so,sha256=AAAA,12\n"
      "\"quoted,name.so\",sha256=BBBB,3\n"
      "torch/lib/libc10_cuda.so,md5=zzz,10\n"
      "broken line\n");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries["torch/lib/libc10.so"].sha256, "ux_lubFtElwnJYkf0STuULYmRpGYHw5Kr7NxVJ4sblk");
  EXPECT_EQ(entries["torch/lib/libc10.so"].size, 1671217u);
  EXPECT_EQ(entries["odd,name.so"].size, 12u);
}

// An ld.so.cache of the new format with these entries, after `prefix` bytes of the old one.
std::string cache_of(const std::vector<std::pair<std::string, std::string>>& entries, bool old) {
  std::string strings, table;
  const size_t header = 48, entry = 24;
  const size_t strings_at = header + entries.size() * entry;
  for (const auto& [key, value] : entries) {
    std::uint32_t fields[6] = {0x0303, static_cast<std::uint32_t>(strings_at + strings.size()), 0};
    strings += key + '\0';
    fields[2] = static_cast<std::uint32_t>(strings_at + strings.size());
    strings += value + '\0';
    table.append(reinterpret_cast<const char*>(fields), sizeof fields);
  }
  std::string cache = "glibc-ld.so.cache1.1";
  std::uint32_t counts[2] = {static_cast<std::uint32_t>(entries.size()),
                             static_cast<std::uint32_t>(strings.size())};
  cache.append(reinterpret_cast<const char*>(counts), sizeof counts);
  cache.resize(header, '\0');
  cache += table + strings;
  if (!old) return cache;
  std::string before = "ld.so-1.7.0";
  before.resize(16, '\0');  // magic, its padding, and no old entries
  return before + cache;
}

TEST(ParseLdSoCache, TheNewFormatAloneOrAfterTheOld) {
  const std::vector<std::pair<std::string, std::string>> entries{
      {"libc10.so", "/usr/lib/x86_64-linux-gnu/libc10.so"}, {"libm.so.6", "/lib/libm.so.6"}};
  EXPECT_EQ(parse_ld_so_cache(cache_of(entries, false)), entries);
  EXPECT_EQ(parse_ld_so_cache(cache_of(entries, true)), entries);
  EXPECT_TRUE(parse_ld_so_cache("not a cache").empty());
  EXPECT_TRUE(parse_ld_so_cache(cache_of(entries, false).substr(0, 60)).size() < 2);
}

TEST(ParseLdSoCache, ThisMachinesCacheListsTheCLibrary) {
  auto bytes = read_file("/etc/ld.so.cache", 64 << 20);
  if (!bytes) GTEST_SKIP() << "no /etc/ld.so.cache here";
  bool libc = false;
  for (const auto& [name, path] : parse_ld_so_cache(*bytes)) libc = libc || name == "libc.so.6";
  EXPECT_TRUE(libc);
}

TEST(ImportClosure, TheRootAndWhatItNeedsSoundButWhatIsAlreadyLoaded) {
  LoaderSearch search = LoaderSearch::of_this_process("/proc/self/exe");
  auto files = import_closure({KD_TEST_PROBE_MODULE}, search);
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(files[0].path, KD_TEST_PROBE_MODULE);
  EXPECT_EQ(files[0].loader, -1);
  for (const auto& f : files) {
    EXPECT_EQ(f.layout.damage, ElfDamage::None) << f.path;
    // This program's own C library is taken as loaded, not looked for again.
    EXPECT_EQ(f.path.find("/libc.so.6"), std::string::npos) << f.path;
  }
  EXPECT_FALSE(damaged_by_headers(files));
}

TEST(DamagedByHeaders, ACutRootIsNamedWithItsSizes) {
  test::TempDir dir;
  const std::string bytes = module_bytes();
  const std::string cut = write(dir.file("libkd_cut.so"), bytes.substr(0, bytes.size() / 2));
  auto damaged = damaged_by_headers(import_closure({cut}, bare_search()));
  ASSERT_TRUE(damaged);
  EXPECT_EQ(damaged->name, "libkd_cut.so");
  EXPECT_EQ(damaged->found, CopyState::Damaged);
  EXPECT_EQ(damaged->size, static_cast<long long>(bytes.size() / 2));
  EXPECT_GT(damaged->needed_size.value_or(0), static_cast<long long>(bytes.size() / 2));
  EXPECT_EQ(damaged->damage, "truncated");
  EXPECT_EQ(damage_words(*damaged),
            "libkd_cut.so: file too short: " + std::to_string(bytes.size() / 2) +
                " bytes where its headers need " + std::to_string(*damaged->needed_size));
  write(dir.file("libkd_text.so"), "this is no ELF object\n");
  damaged = damaged_by_headers(import_closure({dir.file("libkd_text.so")}, bare_search()));
  ASSERT_TRUE(damaged);
  EXPECT_EQ(damaged->damage, "bad_header");
  EXPECT_FALSE(damaged->needed_size);
  EXPECT_EQ(damage_words(*damaged), "libkd_text.so: invalid ELF header (a file of 22 bytes)");
}

// The C library's real file, whose copies a folder on LD_LIBRARY_PATH offers the loader first.
std::string c_library() {
  for (const auto& [name, path] : bare_search().cache) {
    if (name == "libc.so.6") return path;
  }
  for (const auto& dir : system_library_folders()) {
    if (access((dir + "/libc.so.6").c_str(), R_OK) == 0) return dir + "/libc.so.6";
  }
  return "";
}

TEST(ImportClosure, ANeedIsTakenWhereTheLoaderLooksFirstSkippingWhatItSkips) {
  test::TempDir first;
  const std::string libc = c_library();
  ASSERT_FALSE(libc.empty());
  const std::string bytes = read_file(libc, 1ULL << 30).value_or("");
  LoaderSearch search = bare_search();
  search.cache = LoaderSearch::of_this_process("/proc/self/exe").cache;
  search.library_path = {first.path()};
  // A cut copy first on LD_LIBRARY_PATH is the one taken, and named.
  write(first.file("libc.so.6"), bytes.substr(0, 4096));
  auto damaged = damaged_by_headers(import_closure({KD_TEST_PROBE_MODULE}, search));
  ASSERT_TRUE(damaged);
  EXPECT_EQ(damaged->name, "libc.so.6");
  // A copy of the other class is skipped, as the loader skips it: the real one is taken.
  std::string other = bytes.substr(0, 4096);
  other[EI_CLASS] = ELFCLASS32;
  write(first.file("libc.so.6"), other);
  auto files = import_closure({KD_TEST_PROBE_MODULE}, search);
  EXPECT_FALSE(damaged_by_headers(files));
  bool found = false;
  for (const auto& f : files) found = found || f.path.find("/libc.so.6") != std::string::npos;
  EXPECT_TRUE(found);
}

// A wheel's layout: site/kd_pkg-1.0.dist-info/RECORD listing site/kd_pkg/lib/libkd.so.
struct Wheel {
  test::TempDir site;
  std::string library;
  Wheel(const std::string& listed_bytes, const std::string& installed_bytes) {
    mkdir(site.file("kd_pkg-1.0.dist-info").c_str(), 0755);
    mkdir(site.file("kd_pkg").c_str(), 0755);
    mkdir(site.file("kd_pkg/lib").c_str(), 0755);
    write(site.file("kd_pkg-1.0.dist-info/RECORD"),
          "kd_pkg/__init__.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\n"
          "kd_pkg/lib/libkd.so,sha256=" + base64url(sha256(listed_bytes)) + "," +
              std::to_string(listed_bytes.size()) + "\n");
    library = write(site.file("kd_pkg/lib/libkd.so"), installed_bytes);
  }
};

TEST(DamagedByRecord, ADigestThatDiffersForTheSizeListed) {
  const std::string bytes = module_bytes();
  std::string changed = bytes;
  changed[changed.size() / 2] = static_cast<char>(changed[changed.size() / 2] ^ 0x5a);
  Wheel damaged(bytes, changed);
  auto entry = record_entry_of(damaged.library);
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->size, bytes.size());
  auto files = import_closure({damaged.library}, bare_search());
  ASSERT_FALSE(damaged_by_headers(files));  // its headers are sound
  auto found = damaged_by_record({&files[0]}, deadline_in(30));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->name, "libkd.so");
  EXPECT_EQ(found->damage, "record_mismatch");
  EXPECT_EQ(found->size, static_cast<long long>(bytes.size()));
  // Past the deadline, or once told to stop, nothing is hashed.
  EXPECT_FALSE(damaged_by_record({&files[0]}, Clock::now()));
  EXPECT_FALSE(damaged_by_record({&files[0]}, deadline_in(30), [] { return true; }));

  Wheel sound(bytes, bytes);
  files = import_closure({sound.library}, bare_search());
  EXPECT_FALSE(damaged_by_record({&files[0]}, deadline_in(30)));
  // Another size is another file (of another build), not this one damaged in place.
  Wheel other(bytes, bytes + "padding");
  files = import_closure({other.library}, bare_search());
  EXPECT_FALSE(damaged_by_record({&files[0]}, deadline_in(30)));
}

ImportFailure failure_of(bool undefined_symbol, const std::string& needer,
                         const std::string& symbol) {
  ImportFailure failure;
  failure.undefined_symbol = undefined_symbol;
  failure.needer = needer;
  failure.symbol = symbol;
  failure.deadline = deadline_in(30);
  return failure;
}

TEST(ExamineImport, AnUndefinedSymbolLooksAtTheNeederAndWhatItNeeds) {
  const std::string bytes = module_bytes();
  std::string changed = bytes;
  changed[changed.size() / 2] = static_cast<char>(changed[changed.size() / 2] ^ 0x5a);
  Wheel wheel(bytes, changed);
  ImportFailure failure = failure_of(true, "libkd.so", "");
  auto found = examine_import({wheel.library}, bare_search(), failure);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->damage, "record_mismatch");
  EXPECT_EQ(damage_words(*found), "libkd.so: its SHA-256 differs from the one its wheel's RECORD "
                                  "lists (" + std::to_string(bytes.size()) +
                                  " bytes, the size listed)");
  // A death looks at every file; an undefined symbol of a needer not among them, at none.
  EXPECT_TRUE(
      examine_import({wheel.library}, bare_search(), failure_of(false, "", "")));
  EXPECT_FALSE(examine_import({wheel.library}, bare_search(),
                              failure_of(true, "libother.so", "")));
  Wheel sound(bytes, bytes);
  EXPECT_FALSE(examine_import({sound.library}, bare_search(), failure));
}

// The module with every entry of its dynamic symbol table but the first overwritten by zeros.
std::string symbols_overwritten(std::string bytes) {
  Elf64_Ehdr eh{};
  std::memcpy(&eh, bytes.data(), sizeof eh);
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh{};
    std::memcpy(&sh, bytes.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
    if (sh.sh_type == SHT_DYNSYM) {
      std::memset(&bytes[sh.sh_offset + sizeof(Elf64_Sym)], 0, sh.sh_size - sizeof(Elf64_Sym));
    }
  }
  return bytes;
}

TEST(ExamineImport, ASymbolItsHashTableListsButItsSymbolTableLacks) {
  test::TempDir dir;
  const std::string entry = KD_PROBE_ENTRY_SYMBOL;
  const std::string sound = write(dir.file("libkd_sound.so"), module_bytes());
  const std::string changed = write(dir.file("libkd_changed.so"), symbols_overwritten(module_bytes()));
  EXPECT_EQ(find_dynamic_symbol(sound, entry), SymbolAnswer::Defined);
  EXPECT_EQ(find_dynamic_symbol(sound, "kd_no_such_symbol"), SymbolAnswer::NotListed);
  EXPECT_EQ(find_dynamic_symbol(changed, entry), SymbolAnswer::Blank);
  // Its headers are sound, and no RECORD lists it: its own tables tell.
  ImportFailure failure = failure_of(true, "libkd_needer.so", entry);
  auto found = examine_import({sound, changed}, bare_search(), failure);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->name, "libkd_changed.so");
  EXPECT_EQ(found->damage, "symbol_table");
  ASSERT_TRUE(found->needed_size);
  EXPECT_LE(*found->needed_size, found->size.value_or(0));
  EXPECT_FALSE(examine_import({sound}, bare_search(), failure));
}

TEST(LoaderSearch, TheLibraryPathAsTheLoaderSplitsIt) {
  const char* saved = getenv("LD_LIBRARY_PATH");
  std::string keep = saved != nullptr ? saved : "";
  setenv("LD_LIBRARY_PATH", "/kd/one::/kd/two;/kd/three", 1);
  LoaderSearch s = LoaderSearch::of_this_process("/proc/self/exe");
  if (saved != nullptr) setenv("LD_LIBRARY_PATH", keep.c_str(), 1); else unsetenv("LD_LIBRARY_PATH");
  EXPECT_EQ(s.library_path, (std::vector<std::string>{"/kd/one", ".", "/kd/two", "/kd/three"}));
  EXPECT_NE(std::find(s.loaded.begin(), s.loaded.end(), "libc.so.6"), s.loaded.end());
}

}  // namespace
}  // namespace kd
