// What an ELF file's headers say, read without loading it: the libraries it
// needs and where it asks the loader to look (DT_NEEDED, DT_RUNPATH or
// DT_RPATH), the class and machine it is built for, and whether the file holds
// what its headers place in it. The check uses it to look where the loader
// looks for a library it said it could not find, and to tell a damaged library
// (a truncated download) after an import that failed; the harness to learn
// which libtorch the probe module needs. Only the headers and the dynamic
// section are read (pread), so a library of hundreds of MiB costs a few reads.
//
//   if (auto d = kd::read_elf_dynamic(probe)) for (auto& dir : d->runpath) ...
//   auto layout = kd::read_elf_layout(path);
//   if (layout && layout->damage != kd::ElfDamage::None) ... layout->size < layout->needed_size
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kd {

struct ElfDynamic {
  std::vector<std::string> needed;   // DT_NEEDED, in order
  std::vector<std::string> runpath;  // DT_RUNPATH, else DT_RPATH, split at ':' ($ORIGIN kept)
  bool runpath_is_rpath = false;     // `runpath` came from DT_RPATH: the file has no DT_RUNPATH
};

// nullopt when the file is not a readable, sound 64-bit ELF object.
std::optional<ElfDynamic> read_elf_dynamic(const std::string& path);

struct ElfHeader {
  int elf_class = 0;     // ELFCLASS32 or ELFCLASS64
  unsigned machine = 0;  // e_machine: EM_X86_64, EM_AARCH64, ...
};

// nullopt when the file cannot be read or is not ELF.
std::optional<ElfHeader> read_elf_header(const std::string& path);

// How a file fails the layout its own headers give it.
enum class ElfDamage {
  None,
  BadHeader,       // no ELF header that parses: too short for one, no ELF magic, program
                   // headers of the wrong size or none
  TooShort,        // shorter than the end of its last loaded segment, its program headers,
                   // its dynamic section or its section headers
  DynamicOutside,  // the dynamic section points outside the file (its tables, a string)
};

struct ElfLayout {
  ElfDamage damage = ElfDamage::None;
  std::uint64_t size = 0;         // the file's size
  std::uint64_t needed_size = 0;  // the size its headers need; 0 where the header does not parse
  int elf_class = 0;              // of a header that parses far enough; 0 otherwise
  unsigned machine = 0;
  bool judged = false;            // a 64-bit file of this byte order: its headers followed
  ElfDynamic dynamic;             // read only from a judged file found sound
};

// The layout of an ELF file, judged by its own headers where it is 64-bit. A
// file of another class is reported with its class and machine and not judged
// (the loader skips it); one of 64 bits in the other byte order, or without
// ELF magic, has a BadHeader (the loader refuses it). nullopt when it cannot be
// opened or is not a regular file.
std::optional<ElfLayout> read_elf_layout(const std::string& path);

// What a sound 64-bit file's GNU hash table (DT_GNU_HASH) says of a dynamic symbol, and what
// the symbol table holds where it points.
enum class SymbolAnswer {
  NotListed,  // the hash table does not list the name (or the file has none to ask)
  Defined,    // the file defines it
  Mismatch,   // the name's hash is listed, by symbols of other names (a collision, or damage)
  Blank,      // the name's hash is listed by a symbol without a name, or one outside the file:
              // the symbol table does not hold what its hash table lists (damaged in place)
};
SymbolAnswer find_dynamic_symbol(const std::string& path, const std::string& name);

// The e_machine this program was built for.
unsigned host_elf_machine();
// "x86_64", "aarch64", ...; "em_N" for one without a name here.
std::string elf_machine_name(unsigned machine);

}  // namespace kd
