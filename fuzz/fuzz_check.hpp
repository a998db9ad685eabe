// What every fuzz target shares: a broken property ends the run at once with a message on
// stderr, and libFuzzer keeps the input that broke it (crash-<sha1> in the artifact folder).
#pragma once

#include <cstdio>
#include <cstdlib>

// Not assert(): it must hold in every build type.
#define KD_FUZZ_REQUIRE(condition, what)                                                  \
  do {                                                                                     \
    if (!(condition)) {                                                                    \
      std::fprintf(stderr, "broken property at %s:%d: %s (%s)\n", __FILE__, __LINE__,     \
                   what, #condition);                                                      \
      std::abort();                                                                        \
    }                                                                                      \
  } while (false)
