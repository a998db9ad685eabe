// Classifies what the dynamic loader said when the probe module failed to
// load: a libtorch library that cannot be found is TORCH_MISSING; anything
// else (undefined symbol, wrong ELF class, a missing dependency of libtorch
// such as the CUDA runtime) is TORCH_IMPORT_FAILED.
#pragma once

#include <string_view>

#include "outcome.hpp"

namespace kd {

Outcome classify_loader_error(std::string_view dlerror_text);

// True when the loader could not map a library for lack of memory (an
// address-space or memory limit): still TORCH_IMPORT_FAILED, but the cause
// to name is memory, not the package. A full static TLS block is no such
// failure.
bool loader_ran_out_of_memory(std::string_view dlerror_text);

}  // namespace kd
