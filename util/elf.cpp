#include "util/elf.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace kd {
namespace {

template <typename T>
bool read_at(const std::string& data, size_t offset, T& out) {
  if (offset > data.size() || data.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, data.data() + offset, sizeof(T));
  return true;
}

bool is_elf64(const Elf64_Ehdr& eh) {
  return std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64;
}

std::optional<std::string> string_at(const std::string& data, size_t start) {
  if (start >= data.size()) return std::nullopt;
  size_t end = data.find('\0', start);
  if (end == std::string::npos) return std::nullopt;
  return data.substr(start, end - start);
}

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= list.size()) {
    size_t colon = list.find(':', start);
    if (colon == std::string::npos) colon = list.size();
    if (colon > start) parts.push_back(list.substr(start, colon - start));
    start = colon + 1;
  }
  return parts;
}

// The dynamic section's entries and the file offset of its string table.
struct DynamicTable {
  std::vector<Elf64_Dyn> entries;
  bool has_strtab = false;
  size_t strtab = 0;
};

std::optional<DynamicTable> dynamic_table(const std::string& data, const Elf64_Ehdr& eh) {
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
  DynamicTable table;
  Elf64_Addr strtab_addr = 0;
  for (size_t off = dyn_off; dyn_size > 0 && off + sizeof(Elf64_Dyn) <= dyn_off + dyn_size;
       off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d{};
    if (!read_at(data, off, d) || d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_STRTAB) strtab_addr = d.d_un.d_ptr;
    table.entries.push_back(d);
  }
  // DT_STRTAB is an address: mapped back to a file offset.
  for (const auto& ph : loads) {
    if (strtab_addr >= ph.p_vaddr && strtab_addr < ph.p_vaddr + ph.p_filesz) {
      table.strtab = ph.p_offset + (strtab_addr - ph.p_vaddr);
      table.has_strtab = true;
    }
  }
  return table;
}

}  // namespace

std::optional<ElfDynamic> read_elf_dynamic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // Only the headers and the dynamic section matter, but the modules read
  // here are small next to libtorch, and are read once.
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh{};
  if (!read_at(data, 0, eh) || !is_elf64(eh)) return std::nullopt;
  auto table = dynamic_table(data, eh);
  if (!table) return std::nullopt;
  ElfDynamic out;
  if (table->entries.empty()) return out;
  if (!table->has_strtab) return std::nullopt;
  std::string runpath, rpath;
  for (const Elf64_Dyn& d : table->entries) {
    if (d.d_tag != DT_NEEDED && d.d_tag != DT_RUNPATH && d.d_tag != DT_RPATH) continue;
    auto text = string_at(data, table->strtab + d.d_un.d_val);
    if (!text) return std::nullopt;
    if (d.d_tag == DT_NEEDED) out.needed.push_back(*text);
    if (d.d_tag == DT_RUNPATH) runpath = *text;
    if (d.d_tag == DT_RPATH) rpath = *text;
  }
  // The loader ignores DT_RPATH when DT_RUNPATH is there.
  out.runpath = split_path_list(runpath.empty() ? rpath : runpath);
  return out;
}

std::optional<ElfHeader> read_elf_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char ident[EI_NIDENT + 4] = {};
  if (!in.read(reinterpret_cast<char*>(ident), sizeof ident)) return std::nullopt;
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return std::nullopt;
  ElfHeader h;
  h.elf_class = ident[EI_CLASS];
  // e_type (2 bytes) then e_machine (2 bytes), in the file's byte order.
  const unsigned char* m = ident + EI_NIDENT + 2;
  h.machine = ident[EI_DATA] == ELFDATA2MSB ? (m[0] << 8) | m[1] : m[0] | (m[1] << 8);
  return h;
}

unsigned host_elf_machine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__powerpc64__)
  return EM_PPC64;
#elif defined(__s390x__)
  return EM_S390;
#elif defined(__riscv)
  return EM_RISCV;
#else
  return EM_NONE;
#endif
}

std::string elf_machine_name(unsigned machine) {
  switch (machine) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_PPC64: return "ppc64le";
    case EM_S390: return "s390x";
    case EM_RISCV: return "riscv64";
    default: return "em_" + std::to_string(machine);
  }
}

}  // namespace kd
