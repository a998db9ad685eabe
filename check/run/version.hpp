// The check's own identity, fixed at build time.
#pragma once

namespace kd {

#ifndef KERNODECK_VERSION
#error "KERNODECK_VERSION must be defined by the build"
#endif

inline constexpr const char* kToolName = "kernodeck-diagnostic";
inline constexpr const char* kToolVersion = KERNODECK_VERSION;

}  // namespace kd
