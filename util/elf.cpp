#include "util/elf.hpp"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace kd {
namespace {

constexpr std::uint64_t kNoEnd = std::numeric_limits<std::uint64_t>::max();
// Bounds on what is read of one file: its dynamic section, one string of it.
constexpr std::uint64_t kMaxDynamic = 1 << 16;
constexpr std::size_t kMaxString = 4096;

// offset + length, or kNoEnd where it overflows.
std::uint64_t end_of(std::uint64_t offset, std::uint64_t length) {
  return offset > kNoEnd - length ? kNoEnd : offset + length;
}

// A file opened for reading at offsets: only the parts asked for are read.
class File {
 public:
  explicit File(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    struct stat st {};
    regular_ = fd_ >= 0 && fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
    size_ = regular_ ? static_cast<std::uint64_t>(st.st_size) : 0;
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() {
    if (fd_ >= 0) close(fd_);
  }
  bool usable() const { return regular_; }
  std::uint64_t size() const { return size_; }
  // Exactly `length` bytes at `offset`, all inside the file.
  bool read(std::uint64_t offset, void* out, std::size_t length) const {
    if (end_of(offset, length) > size_) return false;
    auto* p = static_cast<char*>(out);
    while (length > 0) {
      ssize_t n = pread(fd_, p, length, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      offset += static_cast<std::uint64_t>(n);
      length -= static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  int fd_;
  bool regular_ = false;
  std::uint64_t size_ = 0;
};

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

bool host_is_little_endian() {
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

// The loaded segments, where the dynamic section's addresses are mapped back to file offsets.
struct Segments {
  std::vector<Elf64_Phdr> loads;
  std::optional<Elf64_Phdr> dynamic;

  // The file offset of [address, address + length), which must lie in the file part of
  // one loaded segment.
  std::optional<std::uint64_t> offset_of(std::uint64_t address, std::uint64_t length) const {
    for (const auto& ph : loads) {
      if (address >= ph.p_vaddr && end_of(address - ph.p_vaddr, length) <= ph.p_filesz) {
        return ph.p_offset + (address - ph.p_vaddr);
      }
    }
    return std::nullopt;
  }
};

// The dynamic section, read: its entries up to DT_NULL, where its string table is, and
// whether every table it names lies in the file.
struct DynamicTable {
  std::vector<Elf64_Dyn> entries;
  std::optional<std::uint64_t> strtab;  // file offset
  std::uint64_t strsz = 0;
  bool inside = true;
};

DynamicTable read_dynamic_table(const File& file, const Segments& segments) {
  DynamicTable table;
  if (!segments.dynamic) return table;
  const std::uint64_t size = std::min(segments.dynamic->p_filesz, kMaxDynamic);
  std::uint64_t strtab_address = 0;
  bool has_strtab = false;
  for (std::uint64_t off = 0; off + sizeof(Elf64_Dyn) <= size; off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d{};
    if (!file.read(segments.dynamic->p_offset + off, &d, sizeof d)) {
      table.inside = false;
      return table;
    }
    if (d.d_tag == DT_NULL) break;
    table.entries.push_back(d);
    if (d.d_tag == DT_STRTAB) {
      strtab_address = d.d_un.d_ptr;
      has_strtab = true;
    }
    if (d.d_tag == DT_STRSZ) table.strsz = d.d_un.d_val;
  }
  for (const Elf64_Dyn& d : table.entries) {
    switch (d.d_tag) {
      case DT_SYMTAB:
      case DT_HASH:
      case DT_GNU_HASH:
      case DT_VERSYM:
      case DT_VERNEED:
      case DT_VERDEF:
        table.inside = table.inside && segments.offset_of(d.d_un.d_ptr, 1).has_value();
        break;
      default:
        break;
    }
  }
  if (has_strtab) table.strtab = segments.offset_of(strtab_address, std::max<std::uint64_t>(table.strsz, 1));
  if (!table.entries.empty() && !table.strtab) table.inside = false;
  return table;
}

// The string at `index` of the dynamic string table; nullopt when it lies outside.
std::optional<std::string> dynamic_string(const File& file, const DynamicTable& table,
                                          std::uint64_t index) {
  if (!table.strtab || index >= table.strsz) return std::nullopt;
  const std::size_t length =
      static_cast<std::size_t>(std::min<std::uint64_t>(kMaxString, table.strsz - index));
  std::string text(length, '\0');
  if (!file.read(*table.strtab + index, text.data(), length)) return std::nullopt;
  size_t end = text.find('\0');
  if (end == std::string::npos) return std::nullopt;
  text.resize(end);
  return text;
}

// The needs and search paths of a sound dynamic section; DynamicOutside where one of its
// strings lies outside the file.
ElfDamage read_needs(const File& file, const Segments& segments, ElfDynamic& out) {
  DynamicTable table = read_dynamic_table(file, segments);
  if (!table.inside) return ElfDamage::DynamicOutside;
  std::optional<std::string> runpath, rpath;
  for (const Elf64_Dyn& d : table.entries) {
    if (d.d_tag != DT_NEEDED && d.d_tag != DT_RUNPATH && d.d_tag != DT_RPATH) continue;
    auto text = dynamic_string(file, table, d.d_un.d_val);
    if (!text) return ElfDamage::DynamicOutside;
    if (d.d_tag == DT_NEEDED) out.needed.push_back(*text);
    if (d.d_tag == DT_RUNPATH) runpath = *text;
    if (d.d_tag == DT_RPATH) rpath = *text;
  }
  // The loader ignores DT_RPATH when DT_RUNPATH is there.
  out.runpath_is_rpath = !runpath && rpath;
  out.runpath = split_path_list(runpath ? *runpath : rpath.value_or(""));
  return ElfDamage::None;
}

// The program headers' segments, and the size the headers need of the file: the end of the
// program headers, of each loaded segment, of the dynamic section and of the section headers.
std::uint64_t read_segments(const File& file, const Elf64_Ehdr& eh, Segments& segments) {
  std::uint64_t needed = end_of(eh.e_phoff, std::uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr));
  if (needed > file.size()) return needed;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!file.read(eh.e_phoff + std::uint64_t{i} * sizeof ph, &ph, sizeof ph)) return kNoEnd;
    if (ph.p_type == PT_LOAD) segments.loads.push_back(ph);
    if (ph.p_type == PT_DYNAMIC) segments.dynamic = ph;
    if (ph.p_type == PT_LOAD || ph.p_type == PT_DYNAMIC) {
      needed = std::max(needed, end_of(ph.p_offset, ph.p_filesz));
    }
  }
  if (eh.e_shoff != 0) {
    needed = std::max(needed, end_of(eh.e_shoff, std::uint64_t{eh.e_shnum} * eh.e_shentsize));
  }
  return needed;
}

// The header of a 64-bit file of this byte order, judged and followed; `layout` has its size.
void judge_elf64(const File& file, ElfLayout& layout) {
  Elf64_Ehdr eh{};
  if (!file.read(0, &eh, sizeof eh)) {
    layout.damage = ElfDamage::BadHeader;  // "file too short" for the loader
    return;
  }
  layout.machine = eh.e_machine;
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum == PN_XNUM) {
    layout.damage = ElfDamage::BadHeader;
    return;
  }
  Segments segments;
  layout.needed_size = read_segments(file, eh, segments);
  if (layout.needed_size > layout.size) {
    layout.damage = ElfDamage::TooShort;
    return;
  }
  layout.damage = read_needs(file, segments, layout.dynamic);
}

// A sound 64-bit file's program headers and dynamic section; false for any other.
bool read_dynamic(const File& file, Segments& segments, DynamicTable& table) {
  Elf64_Ehdr eh{};
  if (!file.usable() || !file.read(0, &eh, sizeof eh) ||
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_phentsize != sizeof(Elf64_Phdr) || read_segments(file, eh, segments) > file.size()) {
    return false;
  }
  table = read_dynamic_table(file, segments);
  return table.inside && table.strtab.has_value();
}

std::uint32_t gnu_hash(const std::string& name) {
  std::uint32_t h = 5381;
  for (unsigned char c : name) h = h * 33 + c;
  return h;
}

// Where the tables of a DT_GNU_HASH section are, in the file.
struct GnuHash {
  std::uint32_t buckets = 0, symoffset = 0, bloom_size = 0, bloom_shift = 0;
  std::uint64_t bloom = 0, bucket = 0, chain = 0;  // file offsets
};

std::optional<GnuHash> gnu_hash_table(const File& file, const Segments& segments,
                                      std::uint64_t address) {
  auto at = segments.offset_of(address, 16);
  std::uint32_t head[4] = {};
  // A table without buckets or bloom words, or with a shift past the hash's 32 bits, is none.
  if (!at || !file.read(*at, head, sizeof head) || head[0] == 0 || head[2] == 0 || head[3] >= 32) {
    return std::nullopt;
  }
  GnuHash g{head[0], head[1], head[2], head[3], *at + 16, 0, 0};
  g.bucket = g.bloom + std::uint64_t{g.bloom_size} * 8;
  g.chain = g.bucket + std::uint64_t{g.buckets} * 4;
  return g;
}

// The symbol at `index` of the table at file offset `symtab`: its name, and whether it is
// defined here. nullopt where it lies outside the file or its name outside the string table.
std::optional<std::pair<std::string, bool>> symbol_at(const File& file, const DynamicTable& table,
                                                      std::uint64_t symtab, std::uint64_t index) {
  Elf64_Sym sym{};
  if (!file.read(symtab + index * sizeof sym, &sym, sizeof sym)) return std::nullopt;
  if (sym.st_name == 0) return std::pair<std::string, bool>{"", false};
  auto name = dynamic_string(file, table, sym.st_name);
  if (!name) return std::nullopt;
  return std::pair<std::string, bool>{*name, sym.st_shndx != SHN_UNDEF};
}

// The GNU hash chain of `name`: what the symbols its hash leads to say.
SymbolAnswer walk_chain(const File& file, const DynamicTable& table, const GnuHash& g,
                        std::uint64_t symtab, const std::string& name) {
  const std::uint32_t h = gnu_hash(name);
  std::uint64_t word = 0;
  std::uint32_t index = 0;
  if (!file.read(g.bloom + std::uint64_t{(h / 64) % g.bloom_size} * 8, &word, sizeof word) ||
      !file.read(g.bucket + std::uint64_t{h % g.buckets} * 4, &index, sizeof index)) {
    return SymbolAnswer::Blank;  // the hash table itself lies outside the file
  }
  const std::uint64_t mask = (std::uint64_t{1} << (h % 64)) | (std::uint64_t{1} << ((h >> g.bloom_shift) % 64));
  if ((word & mask) != mask || index < g.symoffset) return SymbolAnswer::NotListed;
  SymbolAnswer answer = SymbolAnswer::NotListed;
  for (std::uint32_t n = 0; n < (1u << 20); ++n, ++index) {
    std::uint32_t chained = 0;
    if (!file.read(g.chain + std::uint64_t{index - g.symoffset} * 4, &chained, sizeof chained)) {
      return SymbolAnswer::Blank;
    }
    if ((chained | 1) == (h | 1)) {
      auto sym = symbol_at(file, table, symtab, index);
      if (!sym || sym->first.empty()) return SymbolAnswer::Blank;
      if (sym->first == name && sym->second) return SymbolAnswer::Defined;
      answer = SymbolAnswer::Mismatch;
    }
    if ((chained & 1) != 0) break;
  }
  return answer;
}

}  // namespace

std::optional<ElfLayout> read_elf_layout(const std::string& path) {
  File file(path);
  if (!file.usable()) return std::nullopt;
  ElfLayout layout;
  layout.size = file.size();
  unsigned char ident[EI_NIDENT + 4] = {};
  if (file.size() < EI_NIDENT || !file.read(0, ident, EI_NIDENT) ||
      std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    layout.damage = ElfDamage::BadHeader;  // "file too short", "invalid ELF header"
    return layout;
  }
  layout.elf_class = ident[EI_CLASS];
  if (layout.elf_class != ELFCLASS64) {
    // Another class: the loader skips it. Its machine, in the file's byte order.
    if (file.read(0, ident, sizeof ident)) {
      const unsigned char* m = ident + EI_NIDENT + 2;
      layout.machine = ident[EI_DATA] == ELFDATA2MSB ? (m[0] << 8) | m[1] : m[0] | (m[1] << 8);
    }
    return layout;
  }
  const unsigned char host_order = host_is_little_endian() ? ELFDATA2LSB : ELFDATA2MSB;
  if (ident[EI_DATA] != host_order || ident[EI_VERSION] != EV_CURRENT) {
    layout.damage = ElfDamage::BadHeader;  // the loader refuses it, and says why
    return layout;
  }
  layout.judged = true;
  judge_elf64(file, layout);
  return layout;
}

std::optional<ElfDynamic> read_elf_dynamic(const std::string& path) {
  auto layout = read_elf_layout(path);
  if (!layout || !layout->judged || layout->damage != ElfDamage::None) return std::nullopt;
  return layout->dynamic;
}

SymbolAnswer find_dynamic_symbol(const std::string& path, const std::string& name) {
  File file(path);
  Segments segments;
  DynamicTable table;
  if (name.empty() || !read_dynamic(file, segments, table)) return SymbolAnswer::NotListed;
  std::optional<std::uint64_t> hash_address, symtab;
  for (const Elf64_Dyn& d : table.entries) {
    if (d.d_tag == DT_GNU_HASH) hash_address = d.d_un.d_ptr;
    if (d.d_tag == DT_SYMTAB) symtab = segments.offset_of(d.d_un.d_ptr, sizeof(Elf64_Sym));
  }
  if (!hash_address || !symtab) return SymbolAnswer::NotListed;
  auto g = gnu_hash_table(file, segments, *hash_address);
  if (!g) return SymbolAnswer::NotListed;
  return walk_chain(file, table, *g, *symtab, name);
}

std::optional<ElfHeader> read_elf_header(const std::string& path) {
  File file(path);
  unsigned char ident[EI_NIDENT + 4] = {};
  if (!file.usable() || !file.read(0, ident, sizeof ident)) return std::nullopt;
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
