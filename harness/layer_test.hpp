// One GoogleTest value-parameterized test per layer. A suite file lists its
// cases and says:
//
//   KERNODECK_LAYER(output, output_cases());
//
// which gives tests named `output.run/<case id>`: the layer is the JUnit
// classname, the case id the test name. It is written there only: the macro
// gives it to each case of the table.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "case.hpp"
#include "expectations.hpp"

namespace kdh {

class LayerTest : public testing::TestWithParam<Case> {};

inline std::string case_name(const testing::TestParamInfo<Case>& info) { return info.param.id; }

}  // namespace kdh

#define KERNODECK_LAYER(layer, cases)                                            \
  using layer = ::kdh::LayerTest;                                                \
  TEST_P(layer, run) { ::kdh::run_and_check(GetParam()); }                       \
  INSTANTIATE_TEST_SUITE_P(, layer, ::testing::ValuesIn(::kdh::in_layer(#layer, cases)), \
                           ::kdh::case_name)
