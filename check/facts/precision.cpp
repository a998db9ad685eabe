#include "facts/precision.hpp"

#include <sstream>

#include "facts/json_fields.hpp"

namespace kd {
namespace {

using json_field::count;
using json_field::flag;
using json_field::number;
using json_field::numbers;
using json_field::text;

std::string matrix_text(const std::vector<double>& m) {
  std::ostringstream s;
  s << "[[" << m[0] << "," << m[1] << "],[" << m[2] << "," << m[3] << "]]";
  return s.str();
}

// Exact: the inputs are small integers, exact in every precision the check computes in; NaN
// compares unequal.
bool same(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i])) return false;
  }
  return true;
}

}  // namespace

PrecisionRun precision_run_of(const nlohmann::json& answer) {
  PrecisionRun r;
  if (!answer.is_object()) return r;
  r.dtype = text(answer, "dtype");
  r.device = text(answer, "device");
  r.ran = flag(answer, "ok");
  r.product = numbers(answer, "product");
  r.gradient = numbers(answer, "gradient");
  r.loss = number(answer, "loss");
  r.seconds = json_field::duration(answer, "seconds");
  const nlohmann::json facts = answer.value("facts", nlohmann::json::object());
  if (facts.is_object()) {
    r.missing = flag(facts, "missing");
    r.exception = text(facts, "exception");
    r.words = text(facts, "words");
  }
  return r;
}

std::string precision_mismatch(const PrecisionRun& r) {
  static const std::vector<double> kProduct{2, 2, 6, 4}, kGradient{56, 28, 56, 28};
  if (r.product.size() != 4) return "no product";
  if (!same(r.product, kProduct)) {
    return "product " + matrix_text(r.product) + " differs from the expected " +
           matrix_text(kProduct);
  }
  if (!r.loss || !(*r.loss == 196)) {
    std::ostringstream s;
    s << "loss " << (r.loss ? std::to_string(*r.loss) : std::string("none"))
      << " differs from the expected 196";
    return s.str();
  }
  const bool float8 = r.dtype.rfind("float8", 0) == 0;
  if (!float8 && r.gradient.size() != 4) return "no gradient";
  if (!float8 && !same(r.gradient, kGradient)) {
    return "gradient " + matrix_text(r.gradient) + " differs from the expected " +
           matrix_text(kGradient);
  }
  return "";
}

WeightsMemory weights_memory_of(const nlohmann::json& answer) {
  WeightsMemory m;
  if (!answer.is_object()) return m;
  m.weights_bytes = count(answer, "weights_bytes").value_or(0);
  m.available_bytes = count(answer, "available_bytes");
  m.limited_by = text(answer, "limited_by");
  m.fits = flag(answer, "fits", true);
  m.seconds = json_field::duration(answer, "seconds");
  return m;
}

}  // namespace kd
