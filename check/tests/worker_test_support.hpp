// What the worker's tests share (run_stages_test.cpp, verify_test.cpp, worker_test.cpp): the
// numbers of a correct computation, and a walk's lines folded as the parent folds them.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "facts/protocol.hpp"
#include "probe/probe_abi.h"
#include "run/worker.hpp"

namespace kd {

using Lines = std::vector<std::string>;

inline constexpr kd_compute_result kGoodResult = {{2, 2, 6, 4}, {56, 28, 56, 28}, 196, 1,
                                                  KD_GRADIENT_AUTOGRAD, 0, {0, 0, 0, 0}};

struct Walk {
  Lines lines;
  WorkerFindings findings;
};

// Every line the worker emits must be valid protocol, and the last one its
// verdict: the parent would call anything else WORKER_FAILED.
inline void check_protocol(const Walk& w) {
  EXPECT_EQ(w.findings.protocol_problem, "");
  ASSERT_FALSE(w.lines.empty());
  EXPECT_NE(w.lines.back().find("\"event\":\"outcome\""), std::string::npos) << w.lines.back();
  for (size_t i = 0; i + 1 < w.lines.size(); ++i) {
    EXPECT_EQ(w.lines[i].find("\"event\":\"outcome\""), std::string::npos) << w.lines[i];
  }
  EXPECT_TRUE(w.findings.outcome.has_value());
}

inline Walk fold(const Lines& lines) {
  Walk w;
  w.lines = lines;
  for (const auto& l : lines) apply_event(w.findings, l);
  check_protocol(w);
  return w;
}

}  // namespace kd
