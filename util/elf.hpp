// What an ELF file's headers say, read without loading it: the libraries it
// needs and where it asks the loader to look (DT_NEEDED, DT_RUNPATH or
// DT_RPATH), and the class and machine it is built for. The check uses it to
// look where the loader looks for a library it said it could not find; the
// harness to learn which libtorch the probe module needs.
//
//   if (auto d = kd::read_elf_dynamic(probe)) for (auto& dir : d->runpath) ...
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kd {

struct ElfDynamic {
  std::vector<std::string> needed;   // DT_NEEDED, in order
  std::vector<std::string> runpath;  // DT_RUNPATH, else DT_RPATH, split at ':' ($ORIGIN kept)
};

// nullopt when the file is not a readable 64-bit ELF object.
std::optional<ElfDynamic> read_elf_dynamic(const std::string& path);

struct ElfHeader {
  int elf_class = 0;     // ELFCLASS32 or ELFCLASS64
  unsigned machine = 0;  // e_machine: EM_X86_64, EM_AARCH64, ...
};

// nullopt when the file cannot be read or is not ELF.
std::optional<ElfHeader> read_elf_header(const std::string& path);

// The e_machine this program was built for.
unsigned host_elf_machine();
// "x86_64", "aarch64", ...; "em_N" for one without a name here.
std::string elf_machine_name(unsigned machine);

}  // namespace kd
