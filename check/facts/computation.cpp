#include "facts/computation.hpp"

#include <sstream>

namespace kd {
namespace {

constexpr float kProduct[4] = {2, 2, 6, 4};
constexpr float kGradient[4] = {56, 28, 56, 28};

std::string matrix_text(const float (&m)[4]) {
  std::ostringstream s;
  s << "[[" << m[0] << "," << m[1] << "],[" << m[2] << "," << m[3] << "]]";
  return s.str();
}

bool matches(const float (&got)[4], const float (&want)[4]) {
  for (int i = 0; i < 4; ++i) {
    // Exact: NaN compares unequal, inf differs from every expected value.
    if (!(got[i] == want[i])) return false;
  }
  return true;
}

}  // namespace

Verification verify(const kd_compute_result& r) {
  Verification v;
  v.product_ok = matches(r.product, kProduct);
  // Beside an autograd gradient the stable probe gives the formula's as well: both must hold.
  const bool explicit_ok = r.explicit_computed == 0 || matches(r.explicit_gradient, kGradient);
  v.gradient_ok = matches(r.gradient, kGradient) && explicit_ok;
  v.loss_ok = r.loss == kExpectedLoss;
  if (!v.product_ok) {
    v.problem = "product " + matrix_text(r.product) + " differs from the expected " +
                matrix_text(kProduct);
  } else if (!v.loss_ok) {
    std::ostringstream s;
    s << "loss " << r.loss << " differs from the expected " << kExpectedLoss;
    v.problem = s.str();
  } else if (!matches(r.gradient, kGradient)) {
    v.problem = std::string(r.gradient_source == KD_GRADIENT_EXPLICIT ? "explicit " : "") +
                "gradient " + matrix_text(r.gradient) + " differs from the expected " +
                matrix_text(kGradient);
  } else if (!v.gradient_ok) {
    v.problem = "explicit gradient " + matrix_text(r.explicit_gradient) +
                " differs from the expected " + matrix_text(kGradient) +
                " (the autograd gradient is right)";
  }
  return v;
}

}  // namespace kd
