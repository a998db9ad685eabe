// Covers protocol.hpp: the worker's event lines and how the parent folds them, refusing anything malformed.
#include "facts/protocol.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace kd {
namespace {

std::vector<std::string> keys_of(const ojson& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

WorkerFindings fold(const std::vector<std::string>& lines) {
  WorkerFindings f;
  for (const auto& line : lines) apply_event(f, line);
  return f;
}

TEST(Protocol, SkeletonsHaveTheReportKeysInOrderAllNull) {
  ojson p = pytorch_skeleton();
  EXPECT_EQ(keys_of(p), (std::vector<std::string>{"version", "cuda", "hip", "backend",
                                                  "gpu_available", "visible_device_count",
                                                  "cudnn", "nccl", "miopen", "rccl"}));
  for (const auto& item : p.items()) EXPECT_TRUE(item.value().is_null()) << item.key();

  ojson e = execution_skeleton();
  EXPECT_EQ(keys_of(e),
            (std::vector<std::string>{"device", "device_name", "capability", "product_verified",
                                      "gradient_verified", "loss", "synchronized",
                                      "gradient_source", "timings_ms", "memory", "compile"}));
  EXPECT_EQ(keys_of(e["timings_ms"]),
            (std::vector<std::string>{"load", "device_init", "compute"}));
  for (const auto& item : e["timings_ms"].items()) EXPECT_TRUE(item.value().is_null());
  EXPECT_TRUE(e["memory"].is_null());
  EXPECT_TRUE(e["device"].is_null());
}

TEST(Protocol, AWholeRunFoldsIntoFindings) {
  WorkerFindings f = fold({
      stage_event(Stage::Import),
      facts_event("execution", {{"timings_ms", {{"load", 12.5}}}}),
      stage_event(Stage::Backend),
      facts_event("pytorch", {{"version", "2.3.1"}, {"cuda", "12.1"}, {"hip", nullptr},
                              {"backend", "cuda"}}),
      stage_event(Stage::Device),
      facts_event("pytorch", {{"gpu_available", true}, {"visible_device_count", 2}}),
      facts_event("execution", {{"timings_ms", {{"device_init", 300}}}}),
      facts_event("execution", {{"device_name", "NVIDIA H200"}, {"capability", "9.0"}}),
      stage_event(Stage::Compute),
      facts_event("execution", {{"device", "cuda:1"},
                                {"product_verified", true},
                                {"gradient_verified", true},
                                {"loss", 196.0},
                                {"synchronized", true},
                                {"timings_ms", {{"compute", 1.25}}},
                                {"memory", {{"allocated_bytes", 1024}, {"reserved_bytes", 2048}}}}),
      outcome_event(Outcome::GpuCheckPassed, Stage::Compute, std::nullopt),
  });
  EXPECT_EQ(f.protocol_problem, "");
  EXPECT_EQ(f.stage, Stage::Compute);
  ASSERT_TRUE(f.outcome.has_value());
  EXPECT_EQ(*f.outcome, Outcome::GpuCheckPassed);
  EXPECT_EQ(f.outcome_stage, Stage::Compute);
  EXPECT_FALSE(f.error.has_value());
  EXPECT_EQ(f.pytorch["version"], "2.3.1");
  EXPECT_EQ(f.pytorch["cuda"], "12.1");
  EXPECT_TRUE(f.pytorch["hip"].is_null());
  EXPECT_EQ(f.pytorch["backend"], "cuda");
  EXPECT_EQ(f.pytorch["gpu_available"], true);
  EXPECT_EQ(f.pytorch["visible_device_count"], 2);
  // Timings arrive one by one and accumulate.
  EXPECT_EQ(f.execution["timings_ms"]["load"], 12.5);
  EXPECT_EQ(f.execution["timings_ms"]["device_init"], 300);
  EXPECT_EQ(f.execution["timings_ms"]["compute"], 1.25);
  EXPECT_EQ(f.execution["device"], "cuda:1");
  EXPECT_EQ(f.execution["device_name"], "NVIDIA H200");
  EXPECT_EQ(f.execution["capability"], "9.0");
  EXPECT_EQ(f.execution["loss"], 196.0);
  EXPECT_EQ(f.execution["memory"]["allocated_bytes"], 1024);
  EXPECT_EQ(f.execution["memory"]["reserved_bytes"], 2048);
  // Merging keeps the report's key order.
  EXPECT_EQ(keys_of(f.pytorch), keys_of(pytorch_skeleton()));
  EXPECT_EQ(keys_of(f.execution), keys_of(execution_skeleton()));
}

TEST(Protocol, OutcomeWithErrorIsKept) {
  WorkerFindings f = fold({stage_event(Stage::Backend), stage_event(Stage::Device),
                           outcome_event(Outcome::OutOfMemory, Stage::Device,
                                         ErrorInfo{"OutOfMemoryError", "CUDA out of memory"})});
  EXPECT_EQ(f.protocol_problem, "");
  EXPECT_EQ(f.outcome, Outcome::OutOfMemory);
  EXPECT_EQ(f.outcome_stage, Stage::Device);
  ASSERT_TRUE(f.error.has_value());
  EXPECT_EQ(f.error->type, "OutOfMemoryError");
  EXPECT_EQ(f.error->message, "CUDA out of memory");
}

TEST(Protocol, EventLinesAreSingleLines) {
  std::string line = outcome_event(Outcome::RuntimeError, Stage::Compute,
                                   ErrorInfo{"c10::Error", "first\nsecond\r\nthird"});
  EXPECT_EQ(line.find('\n'), std::string::npos);
  WorkerFindings f = fold({line});
  ASSERT_TRUE(f.error.has_value());
  EXPECT_EQ(f.error->message, "first\nsecond\r\nthird");
}

TEST(Protocol, InvalidUtf8FromALibraryDoesNotBreakTheLine) {
  std::string line;
  ASSERT_NO_THROW(line = outcome_event(Outcome::RuntimeError, Stage::Compute,
                                       ErrorInfo{"c10::Error", "bad \xff\xfe bytes"}));
  WorkerFindings f = fold({line});
  EXPECT_EQ(f.protocol_problem, "");
  EXPECT_EQ(f.outcome, Outcome::RuntimeError);
  std::string facts;
  ASSERT_NO_THROW(facts = facts_event("pytorch", {{"version", "2.0\xc3"}}));
  EXPECT_FALSE(facts.empty());
}

TEST(Protocol, NotJsonIsAProblem) {
  for (const char* line : {"", "hello", "{", "[1,2]", "{\"stage\":\"device\"}",
                           "{\"event\":3}", "null"}) {
    WorkerFindings f = fold({line});
    EXPECT_NE(f.protocol_problem, "") << line;
    EXPECT_FALSE(f.outcome.has_value()) << line;
  }
}

TEST(Protocol, UnknownEventIsAProblem) {
  WorkerFindings f = fold({R"({"event":"progress","percent":50})"});
  EXPECT_NE(f.protocol_problem, "");
}

TEST(Protocol, StagesMustMoveForwardAndStayInTheWorker) {
  EXPECT_EQ(fold({stage_event(Stage::Device), stage_event(Stage::Device)}).protocol_problem, "");
  WorkerFindings back = fold({stage_event(Stage::Compute), stage_event(Stage::Backend)});
  EXPECT_NE(back.protocol_problem, "");
  EXPECT_EQ(back.stage, Stage::Compute);
  EXPECT_NE(fold({stage_event(Stage::Output)}).protocol_problem, "");
  EXPECT_NE(fold({stage_event(Stage::Complete)}).protocol_problem, "");
  EXPECT_NE(fold({R"({"event":"stage","stage":"warmup"})"}).protocol_problem, "");
  EXPECT_NE(fold({R"({"event":"stage"})"}).protocol_problem, "");
}

TEST(Protocol, TheFirstProblemIsKept) {
  WorkerFindings f = fold({"garbage", R"({"event":"progress"})"});
  EXPECT_EQ(f.protocol_problem, "an event line is not a JSON event");
}

TEST(Protocol, FactsWithTheWrongTypeAreRefused) {
  for (const ojson& facts : {ojson{{"version", 2}}, ojson{{"backend", "metal"}},
                             ojson{{"gpu_available", 1}}, ojson{{"visible_device_count", -1}},
                             ojson{{"visible_device_count", 1.5}}, ojson{{"cuda", true}}}) {
    WorkerFindings f = fold({facts_event("pytorch", facts)});
    EXPECT_NE(f.protocol_problem, "") << facts.dump();
  }
}

TEST(Protocol, UnknownFactsAreRefused) {
  EXPECT_NE(fold({facts_event("pytorch", {{"hostname", "node-7"}})}).protocol_problem, "");
  EXPECT_NE(fold({facts_event("execution", {{"cwd", "/home/x"}})}).protocol_problem, "");
  EXPECT_NE(fold({facts_event("environment", {{"PATH", "/usr/bin"}})}).protocol_problem, "");
  EXPECT_NE(fold({facts_event("execution", {{"timings_ms", {{"total", 3}}}})}).protocol_problem,
            "");
  EXPECT_NE(fold({facts_event("pytorch", ojson::array({1, 2}))}).protocol_problem, "");
  WorkerFindings f = fold({facts_event("pytorch", {{"hostname", "node-7"}})});
  EXPECT_FALSE(f.pytorch.contains("hostname"));
}

TEST(Protocol, ExecutionDeviceMustBeCpuOrACudaIndex) {
  for (const char* ok : {"cpu", "cuda:0", "cuda:15"}) {
    WorkerFindings f = fold({facts_event("execution", {{"device", ok}})});
    EXPECT_EQ(f.protocol_problem, "") << ok;
    EXPECT_EQ(f.execution["device"], ok);
  }
  for (const char* bad : {"cuda", "cuda:", "cuda:-1", "cuda:1a", "gpu0", "/dev/nvidia0",
                          "CPU", "cuda:0000000000000000000000"}) {
    WorkerFindings f = fold({facts_event("execution", {{"device", bad}})});
    EXPECT_NE(f.protocol_problem, "") << bad;
    EXPECT_TRUE(f.execution["device"].is_null()) << bad;
  }
}

TEST(Protocol, TimingsMustBeFiniteAndNonNegative) {
  EXPECT_NE(fold({facts_event("execution", {{"timings_ms", {{"load", -1}}}})}).protocol_problem,
            "");
  EXPECT_NE(
      fold({facts_event("execution", {{"timings_ms", {{"load", "fast"}}}})}).protocol_problem,
      "");
  EXPECT_NE(fold({facts_event("execution", {{"timings_ms", 5}})}).protocol_problem, "");
  EXPECT_EQ(fold({facts_event("execution", {{"timings_ms", {{"load", 0}}}})}).protocol_problem,
            "");
}

TEST(Protocol, MemoryCountersAreCountsOrNull) {
  WorkerFindings partial = fold(
      {facts_event("execution", {{"memory", {{"allocated_bytes", 5}, {"reserved_bytes", nullptr}}}})});
  EXPECT_EQ(partial.protocol_problem, "");
  EXPECT_EQ(partial.execution["memory"]["allocated_bytes"], 5);
  EXPECT_TRUE(partial.execution["memory"]["reserved_bytes"].is_null());

  WorkerFindings none = fold({facts_event("execution", {{"memory", nullptr}})});
  EXPECT_EQ(none.protocol_problem, "");
  EXPECT_TRUE(none.execution["memory"].is_null());

  WorkerFindings negative =
      fold({facts_event("execution", {{"memory", {{"allocated_bytes", -1}}}})});
  EXPECT_NE(negative.protocol_problem, "");
  EXPECT_TRUE(negative.execution["memory"].is_null());
}

TEST(Protocol, TheParentAloneDecidesTimeoutWorkerFailedAndOutput) {
  for (Outcome o : {Outcome::Timeout, Outcome::WorkerFailed, Outcome::OutputWriteFailed}) {
    WorkerFindings f = fold({outcome_event(o, Stage::Compute, std::nullopt)});
    EXPECT_NE(f.protocol_problem, "") << code_of(o);
    EXPECT_FALSE(f.outcome.has_value()) << code_of(o);
  }
}

TEST(Protocol, UnknownOutcomeCodeIsRefused) {
  WorkerFindings f = fold({R"({"event":"outcome","code":"ALL_GOOD","stage":"compute"})"});
  EXPECT_NE(f.protocol_problem, "");
  EXPECT_FALSE(f.outcome.has_value());
}

TEST(Protocol, AFailureMustNameAWorkerStage) {
  EXPECT_NE(fold({R"({"event":"outcome","code":"CHECK_FAILED"})"}).protocol_problem, "");
  EXPECT_NE(fold({R"({"event":"outcome","code":"CHECK_FAILED","stage":"output"})"})
                .protocol_problem,
            "");
  EXPECT_NE(fold({R"({"event":"outcome","code":"CHECK_FAILED","stage":"nowhere"})"})
                .protocol_problem,
            "");
  // A pass ends at "complete"; the parent sets that stage itself.
  WorkerFindings pass = fold({R"({"event":"outcome","code":"CPU_CHECK_PASSED"})"});
  EXPECT_EQ(pass.protocol_problem, "");
  EXPECT_EQ(pass.outcome, Outcome::CpuCheckPassed);
  EXPECT_FALSE(pass.outcome_stage.has_value());
}

TEST(Protocol, MalformedErrorIsRefused) {
  WorkerFindings f =
      fold({R"({"event":"outcome","code":"CHECK_FAILED","stage":"compute","error":"oops"})"});
  EXPECT_NE(f.protocol_problem, "");
  EXPECT_FALSE(f.outcome.has_value());
}

TEST(Protocol, AnErrorWhoseFieldsAreNotTextIsRefusedNotThrown) {
  for (const char* line :
       {R"({"event":"outcome","code":"CHECK_FAILED","stage":"compute","error":{"type":1}})",
        R"({"event":"outcome","code":"CHECK_FAILED","stage":"compute",)"
        R"("error":{"type":"X","message":["a"]}})"}) {
    WorkerFindings f;
    EXPECT_NO_THROW(apply_event(f, line)) << line;
    EXPECT_EQ(f.protocol_problem, "the outcome's error is malformed") << line;
    EXPECT_FALSE(f.outcome.has_value()) << line;
  }
}

TEST(Protocol, ErrorFieldsDefaultWhenAbsent) {
  WorkerFindings f =
      fold({R"({"event":"outcome","code":"RUNTIME_ERROR","stage":"compute","error":{}})"});
  EXPECT_EQ(f.protocol_problem, "");
  ASSERT_TRUE(f.error.has_value());
  EXPECT_EQ(f.error->type, "error");
  EXPECT_EQ(f.error->message, "");
}

TEST(Protocol, NothingMayFollowTheOutcome) {
  WorkerFindings f = fold({outcome_event(Outcome::CheckFailed, Stage::Compute, std::nullopt),
                           outcome_event(Outcome::CpuCheckPassed, Stage::Compute, std::nullopt)});
  EXPECT_NE(f.protocol_problem, "");
  EXPECT_EQ(f.outcome, Outcome::CheckFailed);

  WorkerFindings late = fold({outcome_event(Outcome::CheckFailed, Stage::Compute, std::nullopt),
                              facts_event("execution", {{"product_verified", true}})});
  EXPECT_NE(late.protocol_problem, "");
  EXPECT_TRUE(late.execution["product_verified"].is_null());
}

// What the parent folds as values (FindingsFold, the stages walked over the python probe's
// answers) it folds as the worker's lines (LineSink, then apply_event): one set of rules, the
// refusals included.
WorkerFindings as_lines(const std::function<void(FindingsSink&)>& say) {
  std::vector<std::string> lines;
  LineSink sink([&lines](const std::string& line) { lines.push_back(line); });
  say(sink);
  return fold(lines);
}

WorkerFindings as_values(const std::function<void(FindingsSink&)>& say) {
  WorkerFindings f;
  FindingsFold sink(f);
  say(sink);
  return f;
}

void expect_same(const WorkerFindings& a, const WorkerFindings& b) {
  EXPECT_EQ(a.stage, b.stage);
  EXPECT_EQ(a.pytorch, b.pytorch);
  EXPECT_EQ(a.execution, b.execution);
  EXPECT_EQ(a.application, b.application);
  EXPECT_EQ(a.memory_by_stage, b.memory_by_stage);
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.outcome_stage, b.outcome_stage);
  ASSERT_EQ(a.error.has_value(), b.error.has_value());
  if (a.error) {
    EXPECT_EQ(a.error->type, b.error->type);
    EXPECT_EQ(a.error->message, b.error->message);
    EXPECT_EQ(a.error->evidence.has_value(), b.error->evidence.has_value());
  }
  EXPECT_EQ(a.protocol_problem, b.protocol_problem);
}

TEST(Protocol, ValuesFoldAsTheirLinesDo) {
  const std::vector<std::function<void(FindingsSink&)>> runs = {
      [](FindingsSink& s) {
        s.stage(Stage::Import);
        s.facts("execution", {{"timings_ms", {{"load", 12.5}}}});
        s.stage(Stage::Compute);
        s.facts("pytorch", {{"version", "2.15.0"}, {"backend", "none"}});
        s.facts("memory_by_stage", {{"compute", {{"rss_bytes", 1024},
                                                 {"allocated_bytes", nullptr},
                                                 {"reserved_bytes", nullptr}}}});
        s.stage(Stage::Application);
        s.facts("application", {{"extensions", ojson::array()},
                                {"weights", ojson::array()},
                                {"precisions", {{{"dtype", "bfloat16"}, {"device", "cpu"},
                                                 {"verified", true}, {"seconds", 0.01}}}},
                                {"memory", nullptr}});
        s.outcome(Outcome::CpuCheckPassed, Stage::Application, std::nullopt);
      },
      [](FindingsSink& s) {
        s.stage(Stage::Backend);
        s.outcome(Outcome::RuntimeError, Stage::Backend, ErrorInfo{"RuntimeError", "no kernel"});
      },
      // Refused alike: a fact of the wrong type, a stage going back, an outcome only the parent
      // decides, anything after the outcome.
      [](FindingsSink& s) { s.facts("pytorch", {{"gpu_available", "yes"}}); },
      [](FindingsSink& s) {
        s.stage(Stage::Device);
        s.stage(Stage::Backend);
      },
      [](FindingsSink& s) { s.facts("weights", {{"file", "a.pt"}}); },
      [](FindingsSink& s) { s.outcome(Outcome::Timeout, Stage::Compute, std::nullopt); },
      [](FindingsSink& s) { s.outcome(Outcome::CheckFailed, Stage::Application, std::nullopt); },
      [](FindingsSink& s) {
        s.outcome(Outcome::CheckFailed, Stage::Compute, std::nullopt);
        s.facts("execution", {{"product_verified", true}});
      },
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    SCOPED_TRACE("run " + std::to_string(i));
    expect_same(as_lines(runs[i]), as_values(runs[i]));
  }
  EXPECT_NE(as_values(runs[2]).protocol_problem, "");
  EXPECT_NE(as_values(runs[7]).protocol_problem, "");
  EXPECT_TRUE(as_values(runs[7]).execution["product_verified"].is_null());
  EXPECT_EQ(as_values(runs[0]).application["precisions"][0]["dtype"], "bfloat16");
}

}  // namespace
}  // namespace kd
