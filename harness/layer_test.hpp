// Registers a layer's table of cases with GoogleTest, each case as a test of its own with its own
// file and line (testing::RegisterTest), so that the case's record and GoogleTest's listing point
// at the case's declaration, whether it was written in the table, in a loop or by a helper. A suite file lists
// its cases and says:
//
//   KERNODECK_LAYER(output, output_cases());
//
// which gives tests named `output.run/<case id>`: the layer is the JUnit classname, the case id
// the test name, and the value parameter GoogleTest records is "<layer>.<id> guards: <promise>".
// The layer is written there only: the macro gives it to each case of the table.
#pragma once

#include <vector>

#include "case.hpp"
#include "run_case.hpp"  // CaseRun, for the checks of a case's own (Case::also)

namespace kdh {

// Registers `cases` as the tests of `layer`. An id that is not [A-Za-z0-9_]+, or that two cases
// of the layer share, stops the program before any test runs, naming the case and where it is.
int register_layer(const char* layer, std::vector<Case> cases);

}  // namespace kdh

#define KERNODECK_LAYER(layer, cases) \
  [[maybe_unused]] static const int kernodeck_layer_##layer = ::kdh::register_layer(#layer, cases)
