// Covers cause_coverage.hpp: the cause catalogue read as data, and the cause a report names.
#include "cause_coverage.hpp"

#include <gtest/gtest.h>

#include <string>

#include "junit_test_support.hpp"

namespace kd::junit {
namespace {

using namespace kd::junit::testing;

TEST(JunitCauses, ReadsEveryRowOfTheCatalogueInItsOrder) {
  const Causes causes = sample_causes();
  ASSERT_EQ(causes.rows.size(), 3u);
  const CauseRow& first = causes.rows[0];
  EXPECT_EQ(first.key, "no_device_nodes");
  EXPECT_EQ(first.title, "no GPU device node in the container");
  EXPECT_EQ(first.stage, "device");
  EXPECT_EQ(first.code, "GPU_UNAVAILABLE");
  EXPECT_EQ(first.exit_code, 6);
  EXPECT_EQ(first.error_type, "NoDeviceNodes");
  EXPECT_EQ(first.next_action,
            "Start the container with its GPUs exposed (--gpus or the device plugin).");
  EXPECT_EQ(causes.rows[2].key, "gpu_fault");
  EXPECT_EQ(causes.by_type("LoaderError"), &causes.rows[1]);
  EXPECT_EQ(causes.by_type("NotACause"), nullptr);
  EXPECT_TRUE(read_causes("").rows.empty());
}

TEST(JunitCauses, RefusesWhatIsNotTheCatalogue) {
  EXPECT_THROW(parse_causes("not json", "x"), InputError);
  EXPECT_THROW(parse_causes("{\"key\": \"a\"}", "x"), InputError);
  EXPECT_THROW(parse_causes("[1]", "x"), InputError);
  const std::string row = R"({"key": "a", "title": "t", "stage": "device", "code": "C",
                               "exit_code": 6, "error_type": "A", "next_action": "n"})";
  EXPECT_EQ(parse_causes("[" + row + "]", "x").rows.size(), 1u);
  // A row without its next action, and two rows of one error.type.
  std::string no_action = row;
  no_action.replace(no_action.find("\"next_action\": \"n\""), 18, "\"next_action\": \"\"");
  EXPECT_THROW(parse_causes("[" + no_action + "]", "x"), InputError);
  try {
    parse_causes("[" + row + ", " + row + "]", "build/causes.json");
    ADD_FAILURE() << "a repeated error_type was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("build/causes.json, row 2 repeats the error_type A"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_causes("/nonexistent/causes.json"), InputError);
}

TEST(JunitCauses, AReportNamesTheCauseOfItsErrorType) {
  const Causes causes = sample_causes();
  const auto met = cause_met(causes, check(report_naming("GpuFault", "The computation failed.")));
  ASSERT_TRUE(met.has_value());
  EXPECT_EQ(met->row, &causes.rows[2]);
  EXPECT_EQ(met->message, "The computation failed.");
  // An error.type the catalogue does not hold, none, and what is not a report name no cause.
  EXPECT_FALSE(cause_met(causes, check(report_naming("TorchMissing", "x"))).has_value());
  EXPECT_FALSE(cause_met(causes, check("{\"error\": null}")).has_value());
  EXPECT_FALSE(cause_met(causes, check("{\"error\": {\"message\": \"m\"}}")).has_value());
  EXPECT_FALSE(cause_met(causes, check("[]")).has_value());
  EXPECT_FALSE(cause_met(causes, check("cut sho")).has_value());
  EXPECT_FALSE(cause_met({}, check(report_naming("GpuFault", "x"))).has_value());
}

TEST(JunitCauses, ACaseReportIsFoundUnderItsVariantFirst) {
  const CaseReports reports{{"pypi/device.gpu", check("variant's")}, {"device.gpu", check("own")}};
  ASSERT_NE(report_of_case(reports, "pypi", "device", "gpu"), nullptr);
  EXPECT_EQ(report_of_case(reports, "pypi", "device", "gpu")->text, "variant's");
  EXPECT_EQ(report_of_case(reports, "debian", "device", "gpu")->text, "own");
  EXPECT_EQ(report_of_case(reports, "", "device", "gpu")->text, "own");
  EXPECT_EQ(report_of_case(reports, "", "device", "other"), nullptr);
}

}  // namespace
}  // namespace kd::junit
