// Covers certificate.hpp: the facts of the check's own reports and the certificate.
#include "certificate.hpp"
#include "junit_xml.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "junit_test_support.hpp"

namespace kd::junit {
namespace {

using namespace kd::junit::testing;

std::string check_report(const std::string& probe, const std::string& device,
                         const std::string& code, const std::string& name,
                         const std::string& host = "null", const std::string& gradient = "autograd") {
  return R"({"tool": {"name": "kernodeck-diagnostic", "version": "1.0.0", "probe": ")" + probe +
         R"("}, "code": ")" + code + R"(", "requested": {"device": ")" + device +
         R"("}, "pytorch": {"version": "2.15.0", "cuda": "13.2", "hip": null, "backend": "cuda",)"
         R"( "visible_device_count": )" + (device == "cuda" ? "1" : "null") +
         R"(}, "execution": {"device_name": )" + name + R"(, "capability": )" +
         (name == "null" ? "null" : "\"9.0\"") +
         R"(, "gradient_verified": true, "gradient_source": ")" + gradient + R"("}, "host": )" +
         host + "}";
}

TEST(JunitCertificate, FactsComeFromTheRealProbesReportsOnly) {
  Scratch s("facts");
  s.write("device.gpu_pass_index_0.json",
          check_report("libtorch", "cuda", "GPU_CHECK_PASSED", "\"NVIDIA H200\""));
  s.write("device.gpu_pass_index_1.json",
          check_report("libtorch", "cuda", "GPU_CHECK_PASSED", "\"NVIDIA H200\""));
  s.write("host.real.json",
          check_report("stable_abi", "cpu", "CPU_CHECK_PASSED", "null",
                       R"({"status": "ok", "driver_version": "570.86.15"})", "explicit"));
  s.write("device.fault.json",
          check_report("override", "cuda", "GPU_CHECK_PASSED", "\"Simulated\"",
                       R"({"status": "ok", "driver_version": "550.54.15"})", "simulated"));
  s.write("cli.usage.json", "not json");
  s.write("cli.usage.stderr.txt", "ignored: not .json");
  std::vector<std::string> warnings;
  const Certificate c = certificate_of(read_check_reports(s.dir, kd::Sanitizer({})), warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("cli.usage.json"), std::string::npos);
  EXPECT_EQ(c.reports, 4u);
  EXPECT_EQ(c.real_reports, 3u);
  EXPECT_EQ(c.check_version, "1.0.0");
  EXPECT_EQ(c.libtorch_version, "2.15.0");
  EXPECT_EQ(c.backend, "cuda");
  EXPECT_EQ(c.cuda_version, "13.2");
  EXPECT_EQ(c.hip_version, "none");
  // Both probes' reports are the machine's; the seam's are not, nor its gradient's source.
  EXPECT_EQ(c.probe, "libtorch, stable_abi");
  EXPECT_EQ(c.gradient_source, "autograd, explicit");
  EXPECT_EQ(c.gpu_model, "NVIDIA H200");
  EXPECT_EQ(c.gpu_capability, "9.0");
  // Each of the two per-GPU cases saw one GPU (a resource spec): two GPUs were certified.
  EXPECT_EQ(c.gpu_count, "2");
  EXPECT_EQ(c.driver_version, "570.86.15");
  EXPECT_EQ(c.commit, "unknown");
  EXPECT_EQ(c.gpu_declared, "not said");
  EXPECT_THROW(read_check_reports(s.dir / "missing", kd::Sanitizer({}), /*missing_ok=*/false),
               InputError);
}

TEST(JunitCertificate, NothingToldStaysUnknown) {
  Scratch s("empty");
  s.write("import.missing.json",
          R"({"tool": {"name": "kernodeck-diagnostic", "version": "1.0.0", "probe": "libtorch"},)"
          R"( "requested": {"device": "cuda"}, "pytorch": {"version": null},)"
          R"( "host": {"status": "not_found", "driver_version": null}})");
  std::vector<std::string> warnings;
  const Certificate c = certificate_of(read_check_reports(s.dir, kd::Sanitizer({})), warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.libtorch_version, "unknown");
  EXPECT_EQ(c.backend, "unknown");
  EXPECT_EQ(c.cuda_version, "unknown");
  EXPECT_EQ(c.gpu_model, "none");
  EXPECT_EQ(c.gradient_source, "none verified");
  EXPECT_EQ(c.gpu_count, "unknown");
  EXPECT_EQ(c.driver_version, "not available (host check: not_found)");
}

TEST(JunitCertificate, APassingRunIsCertifiedInPlainWords) {
  Report report = certified_report(false);
  seal(report);
  ASSERT_EQ(report.suites.size(), 2u);
  EXPECT_EQ(report.suites[0].name, "certificate");
  const ReportCase& c = report.suites[0].cases.at(0);
  EXPECT_EQ(c.verdict, Verdict::Passed);
  EXPECT_EQ(c.name, "certificate");
  EXPECT_NE(c.system_out.find("kd 1.0.0 (commit abc), variant pypi: CERTIFIED"), std::string::npos)
      << c.system_out;
  EXPECT_NE(c.system_out.find("GPU: NVIDIA H200 (count 1"), std::string::npos) << c.system_out;
  EXPECT_NE(c.system_out.find("Per layer: cli 1 passed, 1 skipped."), std::string::npos)
      << c.system_out;

  const std::string xml = write_junit(report);
  const XmlDoc doc = parse_xml(xml, "test");
  for (const auto* suite = first_element(root_of(doc), "testsuite"); suite;
       suite = next_element(suite, "testsuite")) {
    const auto* properties = first_element(suite, "properties");
    ASSERT_NE(properties, nullptr);
    EXPECT_EQ(attribute_of_each(properties, "property", "name"),
              (std::vector<std::string>{
                  "kernodeck.variant", "kernodeck.check.version", "kernodeck.check.commit",
                  "kernodeck.libtorch.version", "kernodeck.backend", "kernodeck.cuda.version",
                  "kernodeck.hip.version", "kernodeck.probe", "kernodeck.gradient.source",
                  "kernodeck.gpu.model", "kernodeck.gpu.capability",
                  "kernodeck.gpu.count", "kernodeck.driver.version", "kernodeck.gpu.declared",
                  "kernodeck.case_reports"}));
  }
  EXPECT_NE(xml.find("classname=\"kernodeck.certificate\""), std::string::npos) << xml;
  // A report read back by --merge keeps its certificate.
  EXPECT_EQ(write_junit(read_junit(xml, "a.xml")), xml);
}

TEST(JunitCertificate, AFailingRunIsNotCertifiedAndItsCaseFails) {
  Report report = certified_report(true);
  seal(report);
  const ReportCase& c = report.suites[0].cases.at(0);
  EXPECT_EQ(c.verdict, Verdict::Failure);
  EXPECT_EQ(c.type, "certificate");
  EXPECT_EQ(c.message, "not certified: 1 failure and 0 errors");
  EXPECT_EQ(c.body.substr(0, c.body.find('\n')), c.message);
  EXPECT_NE(c.body.find("NOT CERTIFIED"), std::string::npos) << c.body;
  EXPECT_EQ(summary_line(report.counts()), "tests=4 passed=1 failures=2 errors=0 skipped=1");
}

}  // namespace
}  // namespace kd::junit
