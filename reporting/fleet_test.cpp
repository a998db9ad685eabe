// Covers fleet.hpp: how a folder of per-GPU reports becomes one JUnit report, and the
// fleet view of the summary and the HTML page.
#include "fleet.hpp"
#include "html_page.hpp"
#include "junit_xml.hpp"
#include "summary.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "junit_test_support.hpp"

namespace kd::junit {
namespace {

using namespace kd::junit::testing;

namespace fs = std::filesystem;
using json = nlohmann::json;

// A report with every key of the contract, as the real probe writes it on the CPU: a pass, or
// libtorch that failed to load.
json report(const std::string& code, int exit_code, const std::string& stage) {
  const bool passed = exit_code == 0;
  const auto when_passed = [passed](json v) { return passed ? v : json(nullptr); };
  json r = {
      {"schema_version", 1},
      {"tool", {{"name", "kernodeck-diagnostic"}, {"version", "1.0.0"}, {"probe", "libtorch"}}},
      {"status", passed ? "passed" : "failed"},
      {"code", code},
      {"exit_code", exit_code},
      {"stage", stage},
      {"message", passed ? "Product and gradient were verified on the CPU only."
                         : "libtorch was found but failed to load."},
      {"requested",
       {{"device", "cpu"}, {"device_index", 0}, {"timeout_s", 30}, {"host_check", false},
        {"imports", json::array()}, {"weights", json::array()}, {"compile", false}}},
      {"runtime", {{"os_family", "Linux"}, {"arch", "x86_64"}, {"check_build", nullptr},
                   {"torch_source", nullptr}, {"python_environment", nullptr},
                   {"python_version", nullptr}}},
      {"pytorch", {{"version", when_passed("1.13.1")}, {"cuda", nullptr}, {"hip", nullptr},
                   {"backend", when_passed("none")}, {"gpu_available", nullptr},
                   {"visible_device_count", nullptr}, {"cudnn", nullptr}, {"nccl", nullptr},
                   {"miopen", nullptr}, {"rccl", nullptr}, {"import_warnings", nullptr}}},
      {"execution", {{"device", when_passed("cpu")}, {"device_name", nullptr},
                     {"capability", nullptr}, {"product_verified", passed},
                     {"gradient_verified", passed}, {"loss", when_passed(196.0)},
                     {"synchronized", nullptr}, {"gradient_source", when_passed("autograd")},
                     {"timings_ms", {{"load", 500.0}, {"device_init", nullptr},
                                     {"compute", when_passed(250.0)}}},
                     {"memory", nullptr}, {"compile", nullptr}}},
      {"application", nullptr},
      {"host", nullptr},
      {"output", {{"requested", false}, {"written", false}}},
      {"error", passed ? json(nullptr)
                       : json({{"type", "LoaderError"},
                               {"message", "libtorch_cpu.so.1.13: file too short"}})},
      {"warnings", json::array()}};
  return r;
}

// A report of the python probe whose computation passed and whose module of the application,
// asked with --import, is not installed: EXTENSION_IMPORT_FAILED at the application layer.
json application_failure() {
  json r = report("CPU_CHECK_PASSED", 0, "complete");
  r["tool"]["probe"] = "python";
  r["status"] = "failed";
  r["code"] = "EXTENSION_IMPORT_FAILED";
  r["exit_code"] = 13;
  r["stage"] = "application";
  r["message"] = "my_app is not installed in this Python environment (Python 3.11.2, torch 1.13.1).";
  r["requested"]["imports"] = {"my_app"};
  r["runtime"]["torch_source"] = "torch_python_variable";
  r["runtime"]["python_environment"] = "system";
  r["runtime"]["python_version"] = "3.11.2";
  r["pytorch"]["import_warnings"] = json::array();
  r["application"] = {{"extensions",
                       {{{"module", "my_app"}, {"distribution", nullptr}, {"version", nullptr},
                         {"requires_torch", nullptr}, {"torch_matches", nullptr},
                         {"imported", false}, {"seconds", 0.001}}}},
                      {"weights", json::array()}};
  r["error"] = {{"type", "ExtensionNotInstalled"},
                {"message", "ModuleNotFoundError: No module named 'my_app'"},
                {"evidence", nullptr}};
  return r;
}

class FleetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kd-fleet-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  void write_json(const std::string& name, const json& doc) { write(name, doc.dump(2)); }

  const FleetUnit& unit(const Fleet& fleet, const std::string& id) {
    for (const FleetUnit& u : fleet.units)
      if (u.id() == id) return u;
    ADD_FAILURE() << "no unit " << id;
    static const FleetUnit none;
    return none;
  }

  fs::path dir_;
};

TEST(FleetExpected, ReadsNamesSkippingCommentsAndBlanks) {
  EXPECT_EQ(parse_expected("# the job's tasks\nnode1.0\n\n  node-2.gpu1  # second\r\nh.a.b.3\n"),
            (std::vector<std::string>{"node1.0", "node-2.gpu1", "h.a.b.3"}));
}

TEST(FleetExpected, RejectsWhatIsNotNodeDotUnit) {
  EXPECT_THROW(parse_expected("node1\n"), InputError);
  EXPECT_THROW(parse_expected("node1.\n"), InputError);
  EXPECT_THROW(parse_expected(".0\n"), InputError);
  EXPECT_THROW(parse_expected("node 1.0\n"), InputError);
  EXPECT_THROW(parse_expected("../etc.0\n"), InputError);
}

// The fleet's two tables: failing nodes first; each layer where GPUs stopped in the layers' order,
// then any other stage a failed report names, then the GPUs without a report.
TEST(FleetView, NodesFailingFirstAndWhereEachLayerFailsInTheLayersOrder) {
  const auto unit = [](const std::string& node, UnitState state, const std::string& stage) {
    FleetUnit u;
    u.node = node;
    u.unit = "0";
    u.state = state;
    u.report.stage = stage;
    u.report.code = "X";
    u.report.exit_code = 1;
    return u;
  };
  Fleet fleet;
  fleet.units = {unit("a", UnitState::Failed, "output"),  unit("b", UnitState::Missing, ""),
                 unit("c", UnitState::Failed, "compute"), unit("d", UnitState::Passed, "complete"),
                 unit("e", UnitState::Failed, "import"),  unit("f", UnitState::Unreadable, ""),
                 unit("g", UnitState::Failed, "compute")};
  const Report report = fleet_report(fleet, "t");
  ASSERT_TRUE(report.view.has_value());
  const auto column = [](const ViewTable& table, std::size_t i) {
    std::vector<std::string> out;
    for (const ViewRow& row : table.rows) out.push_back(row.cells.at(i).text);
    return out;
  };
  EXPECT_EQ(column(report.view->tables.at(0), 0),
            (std::vector<std::string>{"a", "b", "c", "e", "f", "g", "d"}));
  const ViewTable& where = report.view->tables.at(1);
  EXPECT_EQ(column(where, 0),
            (std::vector<std::string>{"import", "compute", "output", "no report"}));
  EXPECT_EQ(column(where, 1), (std::vector<std::string>{"1", "2", "1", "2"}));
  EXPECT_EQ(column(where, 2),
            (std::vector<std::string>{"e.0 X(1)", "c.0 X(1), g.0 X(1)", "a.0 X(1)", "b.0, f.0"}));
}

TEST_F(FleetTest, WithoutExpectedUnitsOrFolderIsAnInputError) {
  EXPECT_THROW(read_fleet(dir_, {}), InputError);
  EXPECT_THROW(read_fleet(dir_ / "absent", {"n1.0"}), InputError);
}

TEST_F(FleetTest, EachReportBecomesItsVerdictAndAMissingOneAnError) {
  write_json("n1.0.json", report("CPU_CHECK_PASSED", 0, "complete"));
  write_json("n2.0.json", report("CPU_CHECK_PASSED", 0, "complete"));
  write_json("n3.0.json", report("TORCH_IMPORT_FAILED", 4, "import"));
  const Fleet fleet = read_fleet(dir_, {"n1.0", "n2.0", "n3.0", "n3.1"});

  ASSERT_EQ(fleet.units.size(), 4u);
  EXPECT_EQ(unit(fleet, "n1.0").state, UnitState::Passed);
  EXPECT_EQ(unit(fleet, "n2.0").state, UnitState::Passed);
  EXPECT_EQ(unit(fleet, "n3.0").state, UnitState::Failed);
  EXPECT_EQ(unit(fleet, "n3.0").verdict_words(), "TORCH_IMPORT_FAILED(4) import");
  EXPECT_EQ(unit(fleet, "n3.0").error(), "LoaderError: libtorch_cpu.so.1.13: file too short");
  EXPECT_EQ(unit(fleet, "n3.1").state, UnitState::Missing);
  EXPECT_TRUE(fleet.warnings.empty()) << fleet.warnings.front();
  EXPECT_EQ(fleet.facts.libtorch_version, "1.13.1");

  const Report r = fleet_report(fleet, "image on the cluster");
  // The certificate first, then a suite per node.
  ASSERT_EQ(r.suites.size(), 4u);
  EXPECT_EQ(r.suites[0].name, "certificate");
  EXPECT_EQ(r.suites[0].cases[0].verdict, Verdict::Failure);
  EXPECT_EQ(r.suites[1].name, "n1");
  EXPECT_EQ(r.suites[3].name, "n3");
  const ReportCase& broken = r.suites[3].cases[0];
  EXPECT_EQ(broken.verdict, Verdict::Failure);
  EXPECT_EQ(broken.type, "TORCH_IMPORT_FAILED");
  EXPECT_EQ(broken.message,
            "TORCH_IMPORT_FAILED(4) import: libtorch was found but failed to load.");
  EXPECT_NE(broken.body.find("file too short"), std::string::npos) << broken.body;
  EXPECT_NE(broken.body.find("\"exit_code\": 4"), std::string::npos) << broken.body;
  const ReportCase& missing = r.suites[3].cases[1];
  EXPECT_EQ(missing.verdict, Verdict::Error);
  EXPECT_EQ(missing.type, "missing-report");
  EXPECT_NE(missing.message.find("never wrote n3.1.json"), std::string::npos) << missing.message;
  EXPECT_EQ(r.suites[1].cases[0].verdict, Verdict::Passed);
  EXPECT_EQ(r.suites[1].cases[0].classname, "n1");
  EXPECT_EQ(r.suites[1].cases[0].name, "0");
  EXPECT_DOUBLE_EQ(r.suites[1].cases[0].time, 0.75);

  const Counts c = r.counts();
  EXPECT_EQ(c.tests, 5u);
  EXPECT_EQ(c.passed, 2u);
  EXPECT_EQ(c.failures, 2u);  // the broken GPU and the certificate
  EXPECT_EQ(c.errors, 1u);

  const std::string xml = write_junit(r);
  const XmlDoc doc = parse_xml(xml, "test");
  const auto* root = root_of(doc);
  EXPECT_STREQ(attribute(root, "name"), "image on the cluster");
  EXPECT_STREQ(attribute(root, "tests"), "5");
  const auto* n3 = next_element(next_element(next_element(first_element(root, "testsuite"))));
  ASSERT_NE(n3, nullptr);
  EXPECT_STREQ(attribute(n3, "name"), "n3");
  EXPECT_STREQ(attribute(n3, "failures"), "1");
  EXPECT_STREQ(attribute(n3, "errors"), "1");
  const auto* failure = first_element(first_element(n3, "testcase"), "failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_STREQ(attribute(failure, "type"), "TORCH_IMPORT_FAILED");
  EXPECT_STREQ(attribute(first_element(n3, "testcase"), "classname"), "kernodeck.n3");
}

TEST_F(FleetTest, AHealthyFleetIsCertified) {
  write_json("a.gpu0.json", report("CPU_CHECK_PASSED", 0, "complete"));
  write_json("a.gpu1.json", report("CPU_CHECK_PASSED", 0, "complete"));
  const Report r = fleet_report(read_fleet(dir_, {"a.gpu0", "a.gpu1"}), "fleet");
  EXPECT_EQ(r.suites[0].cases[0].verdict, Verdict::Passed) << r.suites[0].cases[0].body;
  EXPECT_EQ(r.counts().passed, 3u);
}

TEST_F(FleetTest, WhatIsNotAWholeRealReportIsAnError) {
  write("cut.0.json", R"({"schema_version": 1, "tool": {"name": "kernodeck-di)");
  write("empty.0.json", "");
  write("foreign.0.json", R"({"tool": {"name": "other"}})");
  json contradicts = report("CPU_CHECK_PASSED", 0, "complete");
  contradicts["exit_code"] = 3;
  write_json("contradicts.0.json", contradicts);
  json lacks = report("CPU_CHECK_PASSED", 0, "complete");
  lacks.erase("stage");
  write_json("lacks.0.json", lacks);
  json simulated = report("CPU_CHECK_PASSED", 0, "complete");
  simulated["tool"]["probe"] = "override";
  write_json("simulated.0.json", simulated);
  write("notes.json", "{}");
  write("readme.txt", "not a report");

  const Fleet fleet = read_fleet(dir_, {"cut.0", "empty.0", "foreign.0", "contradicts.0",
                                        "lacks.0", "simulated.0"});
  ASSERT_EQ(fleet.units.size(), 6u);
  for (const FleetUnit& u : fleet.units)
    EXPECT_EQ(u.state, UnitState::Unreadable) << u.id() << ": " << u.message;
  // Judged by the contract's rules, the ones every case's report is held to.
  EXPECT_NE(unit(fleet, "contradicts.0").message.find("must exit 0"), std::string::npos)
      << unit(fleet, "contradicts.0").message;
  EXPECT_NE(unit(fleet, "lacks.0").message.find("report lacks /stage"), std::string::npos)
      << unit(fleet, "lacks.0").message;
  EXPECT_NE(unit(fleet, "simulated.0").message.find("fault-injection"), std::string::npos);
  ASSERT_EQ(fleet.warnings.size(), 1u);
  EXPECT_NE(fleet.warnings[0].find("notes.json"), std::string::npos) << fleet.warnings[0];

  const Report r = fleet_report(fleet, "fleet");
  EXPECT_EQ(r.counts().errors, 6u);
  for (const ReportSuite& s : r.suites) {
    if (s.name == "simulated") {
      EXPECT_EQ(s.cases[0].type, "fault-injection");
    } else if (s.name == "cut") {
      EXPECT_EQ(s.cases[0].type, "unreadable-report");
    }
  }
}

TEST_F(FleetTest, AnUnexpectedReportIsShownWithAWarning) {
  write_json("n1.0.json", report("CPU_CHECK_PASSED", 0, "complete"));
  write_json("stray.0.json", report("TORCH_IMPORT_FAILED", 4, "import"));
  const Fleet fleet = read_fleet(dir_, {"n1.0"});
  ASSERT_EQ(fleet.units.size(), 2u);
  EXPECT_FALSE(unit(fleet, "stray.0").expected);
  EXPECT_EQ(unit(fleet, "stray.0").state, UnitState::Failed);
  ASSERT_EQ(fleet.warnings.size(), 1u);
  EXPECT_NE(fleet.warnings[0].find("not in the expected list"), std::string::npos);
}

TEST_F(FleetTest, SummaryAndPageShowNodesByOutcomeAndWhereLayersFail) {
  write_json("n1.0.json", report("CPU_CHECK_PASSED", 0, "complete"));
  write_json("n2.0.json", report("CPU_CHECK_PASSED", 0, "complete"));
  write_json("n3.0.json", report("TORCH_IMPORT_FAILED", 4, "import"));
  json device = report("GPU_UNAVAILABLE", 6, "device");
  write_json("n2.1.json", device);
  const Fleet fleet = read_fleet(dir_, {"n1.0", "n2.0", "n2.1", "n3.0", "n4.0"});
  const Report junit = fleet_report(fleet, "fleet");

  const std::string md = summary_markdown(junit, fleet_reports(fleet), {});
  EXPECT_NE(md.find("| n3 | failing | 1 | 0 | 1 | 0 | TORCH_IMPORT_FAILED(4) import |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| n2 | partly failing | 2 | 1 | 1 | 0 | GPU_UNAVAILABLE(6) device |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| n1 | healthy | 1 | 1 | 0 | 0 | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("| n4 | failing | 1 | 0 | 0 | 1 | no report |"), std::string::npos) << md;
  EXPECT_NE(md.find("| import | 1 | n3.0 TORCH_IMPORT_FAILED(4) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| device | 1 | n2.1 GPU_UNAVAILABLE(6) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| no report | 1 | n4.0 |"), std::string::npos) << md;
  // Failing nodes are listed before healthy ones.
  EXPECT_LT(md.find("| n4 |"), md.find("| n1 |")) << md;

  const std::string html = certificate_html(junit, fleet_reports(fleet), {});
  EXPECT_NE(html.find("id=\"fleet\""), std::string::npos);
  EXPECT_NE(html.find("<tr data-node=\"n3\" data-outcome=\"failing\">"), std::string::npos);
  // The ladder counts GPUs: n3 failed at import, n2.1 passed import and backend, failed at
  // device; the two passes passed all; n4 has no report.
  EXPECT_NE(html.find("data-counts=\"gpus\""), std::string::npos) << html;
  EXPECT_NE(html.find("data-layer=\"import\" data-state=\"failed\"><strong>import</strong>: failed "
                      "(GPUs: 3 passed, 1 failed here, 0 never reached it, 1 without a report)"),
            std::string::npos) << html;
  EXPECT_NE(html.find("<strong>backend</strong>: passed (GPUs: 3 passed, 0 failed here, 1 never"),
            std::string::npos) << html;
  EXPECT_NE(html.find("<strong>device</strong>: failed (GPUs: 2 passed, 1 failed here, 1 never"),
            std::string::npos) << html;
  // Only the fleet's ladder: the per-case one would count no case in any layer.
  EXPECT_EQ(html.find("id=\"ladder\""), html.rfind("id=\"ladder\"")) << html;
  // Each GPU's report is inline.
  EXPECT_NE(html.find("data-case=\"n3.0\""), std::string::npos);
  EXPECT_NE(html.find("file too short"), std::string::npos);
}

TEST_F(FleetTest, AFailedUnitShowsTheCauseItsReportNames) {
  write_json("n1.0.json", report("CPU_CHECK_PASSED", 0, "complete"));
  write_json("n3.0.json", report("TORCH_IMPORT_FAILED", 4, "import"));  // error.type LoaderError
  json other = report("TORCH_IMPORT_FAILED", 4, "import");
  other["error"]["type"] = "NotInTheCatalogue";
  write_json("n4.0.json", other);
  const Fleet fleet = read_fleet(dir_, {"n1.0", "n3.0", "n4.0"});
  const Report junit = fleet_report(fleet, "fleet");
  const Causes causes = testing::sample_causes();

  const std::string html = certificate_html(junit, fleet_reports(fleet), causes);
  const std::size_t n3 = html.find("data-case=\"n3.0\"");
  const std::size_t n4 = html.find("data-case=\"n4.0\"");
  ASSERT_NE(n3, std::string::npos) << html;
  ASSERT_NE(n4, std::string::npos) << html;
  const std::size_t box = html.find("<div class=\"cause\" data-cause=\"loader_error\">", n3);
  ASSERT_LT(box, n4) << html;
  EXPECT_NE(html.find("Next action: Check the libtorch package &amp; its", box), std::string::npos);
  EXPECT_NE(html.find("The check said: libtorch was found but failed to load.", box),
            std::string::npos);
  EXPECT_EQ(html.find("<div class=\"cause\"", box + 1), std::string::npos) << html;
  EXPECT_NE(html.find("data-error-type=\"LoaderError\" data-met=\"1\" class=\"met by-failed\""),
            std::string::npos)
      << html;

  const std::string md = summary_markdown(junit, fleet_reports(fleet), causes);
  EXPECT_NE(md.find("| - | `kernodeck.n3.0` | failed | TORCH_IMPORT_FAILED(4) import: libtorch was "
                    "found but failed to load. | libtorch <not> loaded (`LoaderError`): Check "),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| - | `kernodeck.n4.0` | failed | TORCH_IMPORT_FAILED(4) import: libtorch was "
                    "found but failed to load. | - |"),
            std::string::npos)
      << md;
}

TEST_F(FleetTest, AModuleOfTheApplicationThatFailsIsTheApplicationLayers) {
  write_json("n1.0.json", report("CPU_CHECK_PASSED", 0, "complete"));
  write_json("n1.1.json", application_failure());
  write_json("n2.0.json", application_failure());
  write_json("n3.0.json", report("GPU_UNAVAILABLE", 6, "device"));
  const Fleet fleet = read_fleet(dir_, {"n1.0", "n1.1", "n2.0", "n3.0"});
  ASSERT_EQ(unit(fleet, "n2.0").state, UnitState::Failed) << unit(fleet, "n2.0").message;
  EXPECT_EQ(unit(fleet, "n2.0").verdict_words(), "EXTENSION_IMPORT_FAILED(13) application");
  EXPECT_EQ(unit(fleet, "n2.0").error(),
            "ExtensionNotInstalled: ModuleNotFoundError: No module named 'my_app'");
  const Report junit = fleet_report(fleet, "fleet");
  EXPECT_EQ(junit.suites[2].name, "n2");
  EXPECT_EQ(junit.suites[2].cases[0].type, "EXTENSION_IMPORT_FAILED");

  // A layer of its own, after the computation's, in the order the check walks them.
  const std::string md = summary_markdown(junit, fleet_reports(fleet), {});
  EXPECT_NE(md.find("| n1 | partly failing | 2 | 1 | 1 | 0 | EXTENSION_IMPORT_FAILED(13) "
                    "application |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| application | 2 | n1.1 EXTENSION_IMPORT_FAILED(13), n2.0 "
                    "EXTENSION_IMPORT_FAILED(13) |"),
            std::string::npos) << md;
  EXPECT_LT(md.find("| device | 1 | n3.0 GPU_UNAVAILABLE(6) |"), md.find("| application | 2 |"))
      << md;

  // The ladder: the GPUs that failed at the application layer passed every layer below it.
  const std::string html = certificate_html(junit, fleet_reports(fleet), {});
  EXPECT_NE(html.find("<strong>compute</strong>: passed (GPUs: 3 passed, 0 failed here, 1 never"),
            std::string::npos) << html;
  EXPECT_NE(html.find("data-layer=\"application\" data-state=\"failed\"><strong>application"
                      "</strong>: failed (GPUs: 1 passed, 2 failed here, 1 never reached it, 0 "
                      "without a report)"),
            std::string::npos) << html;
  EXPECT_NE(html.find("<tr data-layer=\"application\"><td>application</td><td>2</td>"),
            std::string::npos) << html;
}

TEST_F(FleetTest, AFailureAfterTheLayersIsShownWhereItStopped) {
  // The contract lets TIMEOUT and WORKER_FAILED carry the last stage reached, complete too.
  write_json("n1.0.json", report("WORKER_FAILED", 11, "complete"));
  write_json("n1.1.json", report("OUTPUT_WRITE_FAILED", 12, "output"));
  const Fleet fleet = read_fleet(dir_, {"n1.0", "n1.1"});
  const std::string md = summary_markdown(fleet_report(fleet, "fleet"), fleet_reports(fleet), {});
  EXPECT_NE(md.find("| complete | 1 | n1.0 WORKER_FAILED(11) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| output | 1 | n1.1 OUTPUT_WRITE_FAILED(12) |"), std::string::npos) << md;
}

}  // namespace
}  // namespace kd::junit
