// Covers util/elf.hpp on real files (this test's own executable) and copies of
// them cut or changed: what the headers need of the file, and the damage seen.
#include "util/elf.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "util/files.hpp"
#include "util/tests/temp_dir.hpp"

namespace kd {
namespace {

std::string self_bytes() {
  char path[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  auto bytes = n > 0 ? read_file(std::string(path, static_cast<size_t>(n)), 1ULL << 30) : std::nullopt;
  return bytes.value_or("");
}

std::string write(const test::TempDir& dir, const std::string& name, const std::string& bytes) {
  std::ofstream(dir.file(name), std::ios::binary) << bytes;
  return dir.file(name);
}

TEST(ElfLayout, ASoundFileNeedsNoMoreThanItHas) {
  test::TempDir dir;
  const std::string bytes = self_bytes();
  ASSERT_GT(bytes.size(), sizeof(Elf64_Ehdr));
  auto layout = read_elf_layout(write(dir, "sound", bytes));
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->damage, ElfDamage::None);
  EXPECT_TRUE(layout->judged);
  EXPECT_EQ(layout->size, bytes.size());
  EXPECT_GT(layout->needed_size, bytes.size() / 2);
  EXPECT_LE(layout->needed_size, bytes.size());
  EXPECT_EQ(layout->machine, host_elf_machine());
  auto dynamic = read_elf_dynamic(dir.file("sound"));
  ASSERT_TRUE(dynamic);
  EXPECT_NE(std::find(dynamic->needed.begin(), dynamic->needed.end(), "libc.so.6"),
            dynamic->needed.end());
}

TEST(ElfLayout, ACutFileIsTooShortForWhatItsHeadersPlaceInIt) {
  test::TempDir dir;
  const std::string bytes = self_bytes();
  auto whole = read_elf_layout(write(dir, "whole", bytes));
  ASSERT_TRUE(whole);
  for (size_t size : {size_t{1024}, bytes.size() / 2, static_cast<size_t>(whole->needed_size) - 1}) {
    auto layout = read_elf_layout(write(dir, "cut", bytes.substr(0, size)));
    ASSERT_TRUE(layout);
    EXPECT_EQ(layout->damage, ElfDamage::TooShort) << size;
    EXPECT_EQ(layout->size, size);
    EXPECT_EQ(layout->needed_size, whole->needed_size) << size;
    EXPECT_FALSE(read_elf_dynamic(dir.file("cut")));
  }
  // Cut inside the program headers, it needs at least their end.
  auto headers = read_elf_layout(write(dir, "headers", bytes.substr(0, sizeof(Elf64_Ehdr) + 8)));
  ASSERT_TRUE(headers);
  EXPECT_EQ(headers->damage, ElfDamage::TooShort);
  EXPECT_GT(headers->needed_size, sizeof(Elf64_Ehdr) + 8);
}

TEST(ElfLayout, AHeaderThatDoesNotParse) {
  test::TempDir dir;
  const std::string bytes = self_bytes();
  for (const std::string& broken : {std::string("not an ELF object at all\n"), bytes.substr(0, 40),
                                    std::string()}) {
    auto layout = read_elf_layout(write(dir, "broken", broken));
    ASSERT_TRUE(layout);
    EXPECT_EQ(layout->damage, ElfDamage::BadHeader) << broken.size();
    EXPECT_EQ(layout->needed_size, 0u);
  }
  std::string other_order = bytes;
  other_order[EI_DATA] = other_order[EI_DATA] == ELFDATA2LSB ? ELFDATA2MSB : ELFDATA2LSB;
  EXPECT_EQ(read_elf_layout(write(dir, "order", other_order))->damage, ElfDamage::BadHeader);
  std::string no_phdrs = bytes;
  Elf64_Half zero = 0;
  std::memcpy(&no_phdrs[offsetof(Elf64_Ehdr, e_phentsize)], &zero, sizeof zero);
  EXPECT_EQ(read_elf_layout(write(dir, "phdrs", no_phdrs))->damage, ElfDamage::BadHeader);
}

TEST(ElfLayout, AnotherClassIsNotJudged) {
  test::TempDir dir;
  std::string bytes = self_bytes();
  bytes[EI_CLASS] = ELFCLASS32;
  auto layout = read_elf_layout(write(dir, "class32", bytes.substr(0, 1024)));
  ASSERT_TRUE(layout);
  EXPECT_FALSE(layout->judged);
  EXPECT_EQ(layout->damage, ElfDamage::None);
  EXPECT_EQ(layout->elf_class, ELFCLASS32);
  EXPECT_EQ(layout->machine, host_elf_machine());
  EXPECT_FALSE(read_elf_dynamic(dir.file("class32")));
}

// The file offset of the dynamic section's entry `tag`, found through the program headers.
size_t dynamic_entry(const std::string& bytes, Elf64_Sxword tag) {
  Elf64_Ehdr eh{};
  std::memcpy(&eh, bytes.data(), sizeof eh);
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    std::memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_DYNAMIC) continue;
    for (size_t off = ph.p_offset; off + sizeof(Elf64_Dyn) <= ph.p_offset + ph.p_filesz;
         off += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d{};
      std::memcpy(&d, bytes.data() + off, sizeof d);
      if (d.d_tag == tag) return off;
    }
  }
  return 0;
}

TEST(ElfLayout, ADynamicSectionPointingOutsideTheFile) {
  test::TempDir dir;
  std::string bytes = self_bytes();
  const size_t strtab = dynamic_entry(bytes, DT_STRTAB);
  ASSERT_GT(strtab, 0u);
  Elf64_Dyn d{};
  std::memcpy(&d, bytes.data() + strtab, sizeof d);
  d.d_un.d_ptr = 0x7ff000000000;  // no loaded segment holds it
  std::memcpy(&bytes[strtab], &d, sizeof d);
  auto layout = read_elf_layout(write(dir, "strtab", bytes));
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->damage, ElfDamage::DynamicOutside);

  bytes = self_bytes();
  const size_t needed = dynamic_entry(bytes, DT_NEEDED);
  ASSERT_GT(needed, 0u);
  std::memcpy(&d, bytes.data() + needed, sizeof d);
  d.d_un.d_val = 0x7fffffff;  // past the string table
  std::memcpy(&bytes[needed], &d, sizeof d);
  EXPECT_EQ(read_elf_layout(write(dir, "needed", bytes))->damage, ElfDamage::DynamicOutside);
}

// The file offset of a loaded address, through the program headers; 0 where none holds it.
size_t offset_of(const std::string& bytes, std::uint64_t address) {
  Elf64_Ehdr eh{};
  std::memcpy(&eh, bytes.data(), sizeof eh);
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    std::memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && address >= ph.p_vaddr && address < ph.p_vaddr + ph.p_filesz) {
      return ph.p_offset + (address - ph.p_vaddr);
    }
  }
  return 0;
}

TEST(FindDynamicSymbol, AHashTableOfAnImpossibleShiftIsNone) {
  test::TempDir dir;
  std::string bytes = self_bytes();
  const size_t entry = dynamic_entry(bytes, DT_GNU_HASH);
  ASSERT_GT(entry, 0u);
  Elf64_Dyn d{};
  std::memcpy(&d, bytes.data() + entry, sizeof d);
  const size_t table = offset_of(bytes, d.d_un.d_ptr);
  ASSERT_GT(table, 0u);
  // nbuckets, symoffset, bloom_size, bloom_shift: a shift of 32 or more would shift the hash
  // past its width (found by the fuzz target `elf`).
  const std::uint32_t shift = 40;
  std::memcpy(&bytes[table + 12], &shift, sizeof shift);
  EXPECT_EQ(find_dynamic_symbol(write(dir, "shift", bytes), "main"), SymbolAnswer::NotListed);
  EXPECT_EQ(find_dynamic_symbol(dir.file("absent.so"), "main"), SymbolAnswer::NotListed);
}

TEST(ElfLayout, NothingToReadIsNoLayout) {
  test::TempDir dir;
  EXPECT_FALSE(read_elf_layout(dir.file("absent.so")));
  EXPECT_FALSE(read_elf_layout(dir.path()));  // a folder
}

}  // namespace
}  // namespace kd
