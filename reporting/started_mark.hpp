// The mark a case leaves when it starts, "<GoogleTest's XML file>.started": one line per case,
// its full GoogleTest name. started_mark.cpp writes it in every conformance program;
// run_from_started reads it, so that a case that crashed before writing its XML is still known.
#pragma once

namespace kd::junit {

inline constexpr const char* kStartedSuffix = ".started";

}  // namespace kd::junit
