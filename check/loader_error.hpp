// Classifies what the dynamic loader said when the probe module failed to
// load: a libtorch library that cannot be found is TORCH_MISSING; anything
// else (undefined symbol, wrong ELF class, a missing dependency of libtorch
// such as the CUDA runtime) is TORCH_IMPORT_FAILED.
#pragma once

#include <string_view>

#include "outcome.hpp"

namespace kd {

Outcome classify_loader_error(std::string_view dlerror_text);

}  // namespace kd
