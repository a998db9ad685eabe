// How GoogleTest runs one case: skip it (or, on a runner that declared a GPU, fail it) when
// the runner lacks what it needs, else run it, judge it (expectations.hpp), and clean up.
#pragma once

#include "case.hpp"

namespace kdh {

void run_and_check(const Case& c);

}  // namespace kdh
