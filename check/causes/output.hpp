// The output's causes: the report not written whole where it was asked (the file of --output,
// standard output).
#pragma once

#include "causes/catalogue_entry.hpp"

namespace kd::catalogue {

// The causes, in the order they are tried: the first whose row fits is the cause.
// clang-format off
inline constexpr CauseInfo kOutputCauses[] = {
    // ---- output ----
    {CAUSE(StdoutWriteFailed),                Output,  OutputWriteFailed, kStdout,       kOtherwise,
     "standard output refused the report",
     "writing the report to standard output failed after a pass (a full disk, a reader that "
     "left); the report did not reach standard output, so the line on stderr carries this message",
     "The report could not be written whole to standard output ({write_error}).",
     "Give the check a standard output that takes the whole report (a disk with room, a reader "
     "that reads to the end), or use --output."},
};
// clang-format on

}  // namespace kd::catalogue
