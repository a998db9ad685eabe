#include "elf_needed.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace kdh {
namespace {

template <typename T>
bool read_at(const std::string& data, size_t offset, T& out) {
  if (offset > data.size() || data.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, data.data() + offset, sizeof(T));
  return true;
}

}  // namespace

std::optional<std::vector<std::string>> elf_needed(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // Only the headers and the dynamic section matter, but modules are small
  // next to libtorch, and this runs once per test process.
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh{};
  if (!read_at(data, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64) {
    return std::nullopt;
  }
  // The dynamic section and the string table it points into.
  Elf64_Off dyn_off = 0;
  Elf64_Xword dyn_size = 0;
  std::vector<Elf64_Phdr> loads;
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!read_at(data, eh.e_phoff + i * eh.e_phentsize, ph)) return std::nullopt;
    if (ph.p_type == PT_DYNAMIC) {
      dyn_off = ph.p_offset;
      dyn_size = ph.p_filesz;
    } else if (ph.p_type == PT_LOAD) {
      loads.push_back(ph);
    }
  }
  if (dyn_size == 0) return std::vector<std::string>{};
  std::vector<Elf64_Xword> needed_offsets;
  Elf64_Addr strtab_addr = 0;
  for (size_t off = dyn_off; off + sizeof(Elf64_Dyn) <= dyn_off + dyn_size;
       off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d{};
    if (!read_at(data, off, d) || d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_NEEDED) needed_offsets.push_back(d.d_un.d_val);
    if (d.d_tag == DT_STRTAB) strtab_addr = d.d_un.d_ptr;
  }
  // DT_STRTAB is an address: map it back to a file offset.
  std::optional<size_t> strtab_off;
  for (const auto& ph : loads) {
    if (strtab_addr >= ph.p_vaddr && strtab_addr < ph.p_vaddr + ph.p_filesz) {
      strtab_off = ph.p_offset + (strtab_addr - ph.p_vaddr);
    }
  }
  if (!strtab_off) return std::nullopt;
  std::vector<std::string> names;
  for (auto rel : needed_offsets) {
    size_t start = *strtab_off + rel;
    if (start >= data.size()) return std::nullopt;
    size_t end = data.find('\0', start);
    if (end == std::string::npos) return std::nullopt;
    names.push_back(data.substr(start, end - start));
  }
  return names;
}

}  // namespace kdh
