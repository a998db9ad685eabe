// The DT_NEEDED entries of an ELF shared object: which libraries the loader
// will look for when it loads it. Lets the suite learn, without running the
// check, which libtorch the check's probe module was built against.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kdh {

// nullopt when the file is not a readable 64-bit ELF object.
std::optional<std::vector<std::string>> elf_needed(const std::string& path);

}  // namespace kdh
