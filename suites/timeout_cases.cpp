// Layer "timeout": the worker's time limit. The verdict comes within 0.5 s
// of the limit, names the stage reached, and nothing of the check survives.
#include "layer_test.hpp"

namespace {

using kdh::Case;

// The limit is 5 s; the verdict must come after it and within 0.5 s of it.
Case timed(const std::string& id, const std::string& fault, const std::string& stage,
           kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .with_fault(fault)
      .args({"--timeout", "5"})
      .outcome("TIMEOUT", stage)
      .expect_field("/error/type", "Timeout")
      .at_least(5.0)
      .within(5.5);
}

std::vector<Case> timeout_cases() {
  return {
      timed("hang_while_loading", "hang=import", "import")
          .guards("a libtorch that never finishes loading is TIMEOUT (10) at stage import"),
      timed("hang_in_backend", "hang=backend", "backend")
          .guards("TIMEOUT names the stage reached when time ran out"),
      timed("hang_starting_device", "hang=device", "device")
          .guards("a device that never starts is TIMEOUT (10) at stage device"),
      timed("hang_computing", "hang=compute", "compute")
          .guards("a computation that never ends is TIMEOUT (10) at stage compute")
          .expect_not_null("/execution/timings_ms/load")
          .expect_null("/execution/timings_ms/compute"),
      timed("hang_with_grandchild", "spawn=compute", "compute")
          .guards("on timeout the worker's whole process group is ended, grandchildren too"),
  };
}

}  // namespace

KERNODECK_LAYER(timeout, timeout_cases());
