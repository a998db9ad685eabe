#include "case_driver.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "expectations.hpp"
#include "requirements.hpp"
#include "run_case.hpp"

namespace kdh {

void run_and_check(const Case& c) {
  if (auto unmet = unmet_requirements(c)) {
    if (unmet->fatal) {
      FAIL() << c.layer << "." << c.id << " cannot run, and this runner declared a GPU "
             << "(KERNODECK_EXPECT_GPU=1): " << unmet->reason;
    }
    GTEST_SKIP() << unmet->reason;
  }
  CaseRun run = run_case(c);
  std::vector<std::string> problems = evaluate(c, run);
  if (!problems.empty()) ADD_FAILURE() << failure_context(c, run, problems);
  cleanup(run);
}

}  // namespace kdh
