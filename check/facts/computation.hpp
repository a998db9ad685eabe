// The contract's fixed computation and what it must give (CONTRACT.md, "The fixed computation"):
// the product, the loss 196 and the gradient, against which every stage that runs it (compute,
// compile) and the python probe's answers are verified.
#pragma once

#include <string>

#include "probe/probe_abi.h"

namespace kd {

// The fixed computation's loss, (sum of a @ b)^2.
inline constexpr float kExpectedLoss = 196;

struct Verification {
  bool product_ok = false;
  bool gradient_ok = false;
  bool loss_ok = false;
  std::string problem;  // the first mismatch, for the report
};
Verification verify(const kd_compute_result& result);

}  // namespace kd
