// Covers compute.hpp's verify: the computation's numbers held exactly against the expected
// product, gradient and loss, NaN and infinity never passing, the first mismatch named.
#include "facts/computation.hpp"


#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "worker_test_support.hpp"

namespace kd {
namespace {

TEST(Verify, TheExpectedNumbersPass) {
  Verification v = verify(kGoodResult);
  EXPECT_TRUE(v.product_ok);
  EXPECT_TRUE(v.gradient_ok);
  EXPECT_TRUE(v.loss_ok);
  EXPECT_EQ(v.problem, "");
}

TEST(Verify, ComparisonIsExact) {
  kd_compute_result r = kGoodResult;
  r.product[2] = std::nextafter(6.0f, 7.0f);
  Verification v = verify(r);
  EXPECT_FALSE(v.product_ok);
  EXPECT_TRUE(v.gradient_ok);
  EXPECT_NE(v.problem.find("product"), std::string::npos);

  r = kGoodResult;
  r.gradient[0] = std::nextafter(56.0f, 0.0f);
  v = verify(r);
  EXPECT_TRUE(v.product_ok);
  EXPECT_FALSE(v.gradient_ok);
  EXPECT_NE(v.problem.find("gradient"), std::string::npos);

  r = kGoodResult;
  r.loss = std::nextafter(196.0f, 200.0f);
  v = verify(r);
  EXPECT_FALSE(v.loss_ok);
  EXPECT_NE(v.problem.find("loss"), std::string::npos);
}

TEST(Verify, NanAndInfinityNeverPass) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(),
                    std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    for (int i = 0; i < 4; ++i) {
      kd_compute_result r = kGoodResult;
      r.product[i] = bad;
      EXPECT_FALSE(verify(r).product_ok) << i;
      r = kGoodResult;
      r.gradient[i] = bad;
      EXPECT_FALSE(verify(r).gradient_ok) << i;
    }
    kd_compute_result r = kGoodResult;
    r.loss = bad;
    EXPECT_FALSE(verify(r).loss_ok);
  }
}

TEST(Verify, ATransposedProductFails) {
  kd_compute_result r = kGoodResult;
  // [[2,6],[2,4]]: b @ a instead of a @ b.
  r.product[1] = 6;
  r.product[2] = 2;
  EXPECT_FALSE(verify(r).product_ok);
}

TEST(Verify, TheFirstMismatchIsNamed) {
  kd_compute_result r = kGoodResult;
  r.product[0] = 0;
  r.gradient[0] = 0;
  Verification v = verify(r);
  EXPECT_FALSE(v.product_ok);
  EXPECT_FALSE(v.gradient_ok);
  EXPECT_EQ(v.problem.rfind("product", 0), 0u) << v.problem;
}

}  // namespace
}  // namespace kd
