// The ELF reader (util/elf.hpp), which the check points at damaged files on purpose: whatever a
// file holds, it is read without a crash, a read outside the file or a hang, and its verdict
// agrees with the sizes it gives. The same bytes go to the readers of the loader's cache and a
// wheel's RECORD (check/stages/import/library_damage.hpp). Seeds: a small shared library with a DT_NEEDED, a
// DT_RUNPATH and a GNU hash table, and a cut copy of it.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "stages/import/library_damage.hpp"
#include "util/elf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = memfd_create("kd-elf-fuzz", MFD_CLOEXEC);
  KD_FUZZ_REQUIRE(fd >= 0, "a memory file can be made");
  const auto* bytes = reinterpret_cast<const char*>(data);
  KD_FUZZ_REQUIRE(size == 0 || write(fd, bytes, size) == static_cast<ssize_t>(size),
                  "the input is written whole");
  const std::string path = "/proc/self/fd/" + std::to_string(fd);

  auto layout = kd::read_elf_layout(path);
  KD_FUZZ_REQUIRE(layout.has_value(), "a regular file always has a layout");
  KD_FUZZ_REQUIRE(layout->size == size, "the layout's size is the file's");
  switch (layout->damage) {
    case kd::ElfDamage::None:
      KD_FUZZ_REQUIRE(layout->needed_size <= size, "a sound file holds what its headers need");
      break;
    case kd::ElfDamage::TooShort:
      KD_FUZZ_REQUIRE(layout->needed_size > size, "a file too short needs more than it has");
      break;
    case kd::ElfDamage::BadHeader:
      KD_FUZZ_REQUIRE(layout->needed_size == 0, "a header that does not parse needs nothing");
      break;
    case kd::ElfDamage::DynamicOutside:
      KD_FUZZ_REQUIRE(layout->judged, "only a judged file has a dynamic section");
      break;
  }
  const bool sound = layout->judged && layout->damage == kd::ElfDamage::None;
  KD_FUZZ_REQUIRE(kd::read_elf_dynamic(path).has_value() == sound,
                  "the dynamic section is read from a sound file only");
  for (const char* name : {"kd_seed_symbol", "kd_seed_other", "x", ""}) {
    (void)kd::find_dynamic_symbol(path, name);
  }
  close(fd);

  const std::string_view text(bytes, size);
  for (const auto& [name, value] : kd::parse_ld_so_cache(text)) {
    KD_FUZZ_REQUIRE(!name.empty() && !value.empty(), "a cache entry has a name and a path");
  }
  for (const auto& [file, entry] : kd::parse_record(text)) {
    KD_FUZZ_REQUIRE(text.find(file) != std::string_view::npos, "a RECORD path is the text's");
  }
  return 0;
}
