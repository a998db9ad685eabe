// Covers application.hpp: the application stage walked over the python probe's answers, as
// the check's parent walks them (run_python_answers): the report's block, the warnings, and the
// first module asked that failed as EXTENSION_IMPORT_FAILED with its cause.
#include "stages/application/application.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "causes/causes.hpp"
#include "run/worker.hpp"
#include "stages/application/precision.hpp"

namespace kd {
namespace {

// The python probe's answers up to a verified computation on the CPU with torch 2.15.0, then
// `application`'s lines.
PythonAnswers answers_with(const std::vector<std::string>& application) {
  std::vector<std::string> lines = {
      R"({"event":"answer","call":"interpreter","python_version":"3.11.2","environment":"virtualenv","torch_folder":""})",
      R"({"event":"answer","call":"import","ok":true,"ms":900.0,"warnings":[],"found":{}})",
      R"({"event":"answer","call":"library_info","status":0,"version":"2.15.0","cuda_version":"13.2","hip_version":"","backend":1})",
      R"({"event":"answer","call":"init_device","status":0,"ms":1.0})",
      R"({"event":"answer","call":"compute","status":0,"ms":2.0,"product":[2,2,6,4],"gradient":[56,28,56,28],"loss":196.0,"synchronized":false,"gradient_source":"autograd"})",
  };
  lines.insert(lines.end(), application.begin(), application.end());
  lines.push_back(R"({"event":"done"})");
  PythonAnswers answers;
  for (const std::string& line : lines) EXPECT_TRUE(take_python_line(answers, line)) << line;
  return answers;
}

const char* const kListed =
    R"({"event":"answer","call":"extensions_listed","ms":3.0,"torch_cxx11_abi":true,"distributions":[)"
    R"({"distribution":"torchvision","version":"0.24.1","requires_torch":"==2.9.1","module":"torchvision","local_tag":""},)"
    R"({"distribution":"kornia","version":"0.8.0","requires_torch":">=2.0","module":"kornia","local_tag":""}]})";

WorkerFindings walk(const PythonAnswers& answers, const std::vector<std::string>& asked,
                    const std::vector<std::string>& weights = {}) {
  WorkerFindings findings;
  WorkerRequest request{Device::Cpu, 0, "", "", asked, {}};
  for (const std::string& path : weights) request.weights.push_back(weights_asked(path));
  FindingsFold fold(findings);
  run_python_answers(answers, request, "the python3 on PATH", findings, fold);
  EXPECT_EQ(findings.protocol_problem, "");
  return findings;
}

TEST(ApplicationStage, EveryRunListsAndAMismatchOnlyWarns) {
  WorkerFindings f = walk(answers_with({kListed}), {});
  EXPECT_EQ(f.outcome, Outcome::CpuCheckPassed);
  EXPECT_EQ(f.stage, Stage::Application);
  const ojson& extensions = f.application["extensions"];
  ASSERT_EQ(extensions.size(), 2u);
  EXPECT_EQ(extensions[0]["distribution"], "torchvision");
  EXPECT_EQ(extensions[0]["requires_torch"], "==2.9.1");
  EXPECT_EQ(extensions[0]["torch_matches"], false);
  EXPECT_TRUE(extensions[0]["imported"].is_null());
  EXPECT_TRUE(extensions[0]["seconds"].is_null());
  EXPECT_EQ(extensions[1]["torch_matches"], true);
  ASSERT_EQ(f.extension_warnings.size(), 1u);
  EXPECT_EQ(f.extension_warnings[0].distribution, "torchvision");
}

TEST(ApplicationStage, TheFirstModuleThatFailsIsTheVerdictTheRestNotReached) {
  const std::vector<std::string> lines = {
      kListed,
      R"({"event":"answer","call":"importing","module":"kornia"})",
      R"({"event":"answer","call":"extension","module":"kornia","ok":true,"distribution":{"distribution":"kornia","version":"0.8.0","requires_torch":">=2.0","module":"kornia","local_tag":""},"cuda_majors":[],"phase":"library","library":"","seconds":0.5})",
      R"({"event":"answer","call":"importing","module":"torchvision"})",
      R"({"event":"answer","call":"extension","module":"torchvision","ok":false,"distribution":{"distribution":"torchvision","version":"0.24.1","requires_torch":"==2.9.1","module":"torchvision","local_tag":""},"cuda_majors":["12"],"phase":"import","library":"","seconds":0.01,"facts":{"exception":"RuntimeError","words":"operator torchvision::nms does not exist","missing_module":"","needed_by":"","undefined_symbol":"","symbol_in_torch":false,"requires_missing":[]}})",
  };
  WorkerFindings f = walk(answers_with(lines), {"kornia", "torchvision", "torchaudio"});
  EXPECT_EQ(f.outcome, Outcome::ExtensionImportFailed);
  EXPECT_EQ(f.outcome_stage, Stage::Application);
  ASSERT_TRUE(f.error);
  EXPECT_EQ(f.error->type, "ExtensionForOtherTorch");
  EXPECT_EQ(f.error->message, "RuntimeError: operator torchvision::nms does not exist");
  ASSERT_TRUE(f.extension_failure);
  EXPECT_EQ(f.extension_failure->cuda_majors, std::vector<std::string>{"12"});
  const ojson& extensions = f.application["extensions"];
  ASSERT_EQ(extensions.size(), 3u);  // the listed torchvision is the module asked
  EXPECT_EQ(extensions[0]["imported"], true);
  EXPECT_EQ(extensions[0]["seconds"], 0.5);
  EXPECT_EQ(extensions[1]["imported"], false);
  EXPECT_EQ(extensions[2]["module"], "torchaudio");
  EXPECT_TRUE(extensions[2]["imported"].is_null());  // never reached
  EXPECT_TRUE(f.extension_warnings.empty());  // the failure is said once, as the verdict
}

TEST(ApplicationStage, AnUndefinedSymbolIsShownDemangled) {
  const std::vector<std::string> lines = {
      kListed,
      R"({"event":"answer","call":"importing","module":"kd_twice"})",
      R"({"event":"answer","call":"extension","module":"kd_twice","ok":false,"distribution":null,"cuda_majors":[],"phase":"import","library":"kd_twice.so","seconds":0.01,"facts":{"exception":"ImportError","words":"/w/kd_twice.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs","missing_module":"","needed_by":"","undefined_symbol":"_ZN3c106detail14torchCheckFailEPKcS2_jRKSs","symbol_in_torch":false,"requires_missing":[]}})",
  };
  WorkerFindings f = walk(answers_with(lines), {"kd_twice"});
  ASSERT_TRUE(f.error);
  EXPECT_EQ(f.error->type, "ExtensionOtherCxxAbi");
  EXPECT_EQ(f.error->message,
            "ImportError: /w/kd_twice.so: undefined symbol: c10::detail::torchCheckFail(char "
            "const*, char const*, unsigned int, std::string const&)");
}

TEST(ApplicationStage, WeightsFilesAreOpenedOnceTheModulesImportedAndTheFirstUnusableIsTheVerdict) {
  const std::vector<std::string> lines = {
      kListed,
      R"({"event":"answer","call":"opening","file":"sd.pt"})",
      R"({"event":"answer","call":"weights","file":"sd.pt","ok":true,"format":"torch_zip","tensors":2,"bytes":24,"dtypes":["float32"],"facts":{"size":1789,"mode":"0644","owner_other":false},"seconds":0.002})",
      R"({"event":"answer","call":"opening","file":"lfs.safetensors"})",
      R"({"event":"answer","call":"weights","file":"lfs.safetensors","ok":false,"format":"git_lfs_pointer","tensors":null,"bytes":null,"dtypes":[],"facts":{"size":135,"mode":"0644","owner_other":false,"lfs_size":1342177280},"seconds":0.0001})",
  };
  WorkerFindings f =
      walk(answers_with(lines), {}, {"/models/sd.pt", "lfs.safetensors", "later.safetensors"});
  EXPECT_EQ(f.outcome, Outcome::WeightsUnusable);
  EXPECT_EQ(f.outcome_stage, Stage::Application);
  ASSERT_TRUE(f.error);
  EXPECT_EQ(f.error->type, "WeightsGitLfsPointer");
  const ojson& weights = f.application["weights"];
  ASSERT_EQ(weights.size(), 3u);
  EXPECT_EQ(weights[0]["file"], "sd.pt");  // the base name, never the folder
  EXPECT_EQ(weights[0]["verified"], true);
  EXPECT_EQ(weights[0]["tensors"], 2);
  EXPECT_EQ(weights[1]["format"], "git_lfs_pointer");
  EXPECT_EQ(weights[1]["verified"], false);
  EXPECT_TRUE(weights[2]["verified"].is_null());  // not reached
  ASSERT_TRUE(f.weights_failure);
  EXPECT_EQ(f.weights_failure->lfs_size, 1342177280);
}

TEST(ApplicationStage, AModuleAskedWithoutAnAnswerIsNeverAPass) {
  const std::vector<std::string> lines = {
      kListed, R"({"event":"answer","call":"importing","module":"kd_hang"})"};
  PythonAnswers answers = answers_with(lines);
  EXPECT_EQ(application_step(answers), "importing kd_hang");
  WorkerFindings f = walk(answers, {"kd_hang"});
  EXPECT_EQ(f.outcome, Outcome::InternalError);
  EXPECT_EQ(f.application["extensions"][0]["imported"], false);
  // Without the listing, the stage cannot be judged either.
  WorkerFindings none = walk(answers_with({}), {});
  EXPECT_EQ(none.outcome, Outcome::InternalError);
}

// ---- precisions and memory ----

const char* const kFits =
    R"({"event":"answer","call":"weights_memory","weights_bytes":24,"available_bytes":1073741824,"limited_by":"cgroup","fits":true,"words":"","seconds":0.001})";
const char* const kOpened =
    R"({"event":"answer","call":"weights","file":"sd.pt","ok":true,"format":"torch_zip","tensors":2,"bytes":24,"dtypes":["float16"],"facts":{},"seconds":0.002})";

std::string precision_line(const std::string& dtype, const std::string& rest) {
  return R"({"event":"answer","call":"precision","dtype":")" + dtype + R"(","device":"cpu",)" +
         rest + R"(,"seconds":0.001})";
}

TEST(ApplicationStage, EachPrecisionIsVerifiedByTheNumbersItGave) {
  const std::vector<std::string> lines = {
      kListed, kFits, kOpened,
      precision_line("float16", R"("ok":true,"product":[2,2,6,4],"gradient":[56,28,56,28],"loss":196.0,"facts":{})"),
      precision_line("float8_e4m3fn", R"("ok":true,"product":[2,2,6,4],"gradient":null,"loss":196.0,"facts":{})"),
      R"({"event":"answer","call":"stage_memory","stage":"application","rss_bytes":4096,"allocated_bytes":null,"reserved_bytes":null})"};
  WorkerFindings f = walk(answers_with(lines), {}, {"sd.pt"});
  EXPECT_EQ(f.outcome, Outcome::CpuCheckPassed);
  const ojson& precisions = f.application["precisions"];
  ASSERT_EQ(precisions.size(), 2u);
  EXPECT_EQ(precisions[0]["dtype"], "float16");
  EXPECT_EQ(precisions[0]["verified"], true);
  EXPECT_EQ(precisions[1]["verified"], true);  // float8: the product and the loss, no gradient
  EXPECT_EQ(f.application["memory"]["limited_by"], "cgroup");
  EXPECT_EQ(f.application["memory"]["fits"], true);
  EXPECT_EQ(f.memory_by_stage["application"]["rss_bytes"], 4096);
  EXPECT_TRUE(f.memory_by_stage["import"].is_null());  // not answered: not measured
}

TEST(ApplicationStage, WrongNumbersInAPrecisionAreACheckFailure) {
  const std::vector<std::string> lines = {
      kListed,
      precision_line("bfloat16", R"("ok":true,"product":[2,2,6,4],"gradient":[56,28,56,29],"loss":196.0,"facts":{})")};
  WorkerFindings f = walk(answers_with(lines), {});
  EXPECT_EQ(f.outcome, Outcome::CheckFailed);
  ASSERT_TRUE(f.error);
  EXPECT_EQ(f.error->type, "CheckMismatch");
  EXPECT_EQ(f.error->message,
            "in bfloat16 on cpu: gradient [[56,28],[56,29]] differs from the expected "
            "[[56,28],[56,28]]");
  EXPECT_EQ(f.application["precisions"][0]["verified"], false);
}

TEST(ApplicationStage, APrecisionThatCannotRunIsARuntimeErrorByItsCause) {
  const std::vector<std::string> kernel = {
      kListed, precision_line("float16", R"("ok":false,"facts":{"missing":false,"exception":"RuntimeError","words":"\"addmm_impl_cpu_\" not implemented for 'Half'"})")};
  WorkerFindings f = walk(answers_with(kernel), {});
  EXPECT_EQ(f.outcome, Outcome::RuntimeError);
  EXPECT_EQ(f.outcome_stage, Stage::Application);
  EXPECT_EQ(f.error->type, "PrecisionKernelMissing");
  ASSERT_TRUE(f.precision_failure);
  const std::vector<std::string> missing = {
      kListed, precision_line("float8_e5m2", R"("ok":false,"facts":{"missing":true,"exception":"","words":""})")};
  EXPECT_EQ(walk(answers_with(missing), {}).error->type, "PrecisionNotInTorch");
  const std::vector<std::string> other = {
      kListed, precision_line("float64", R"("ok":false,"facts":{"missing":false,"exception":"TypeError","words":"something else"})")};
  EXPECT_EQ(walk(answers_with(other), {}).error->type, "PrecisionError");
}

TEST(ApplicationStage, WeightsThatDoNotFitAreOutOfMemoryAndNeverOpened) {
  const std::vector<std::string> lines = {
      kListed,
      R"({"event":"answer","call":"weights_memory","weights_bytes":8589934592,"available_bytes":1073741824,"limited_by":"cgroup","fits":false,"words":"","seconds":0.001})"};
  WorkerFindings f = walk(answers_with(lines), {}, {"big.safetensors"});
  EXPECT_EQ(f.outcome, Outcome::OutOfMemory);
  EXPECT_EQ(f.outcome_stage, Stage::Application);
  EXPECT_EQ(f.error->type, "WeightsExceedMemory");
  EXPECT_TRUE(f.application["weights"][0]["verified"].is_null());  // not reached, not hung
  ASSERT_TRUE(f.weights_memory);
  FactSources sources;
  sources.memory = &*f.weights_memory;
  const Facts facts = cause_facts(sources, Sanitizer({}));
  const Cause words = cause_words(CauseId::WeightsExceedMemory, facts);
  EXPECT_EQ(words.what.substr(0, 70),
            "The weights asked need 8 GiB and this process may use 1 GiB more on th");
  EXPECT_NE(words.next_action.find("Raise the container's memory limit by at least 7 GiB"),
            std::string::npos) << words.next_action;
}

// The compiled probe's worker gives its facts as its report: the parent finds the precision that
// failed in application.precisions and error.message.
TEST(PrecisionStage, TheParentReadsTheFailedPrecisionFromTheWorkersReport) {
  WorkerFindings f;
  f.application = {{"extensions", ojson::array()},
                   {"weights", ojson::array()},
                   {"precisions", {{{"dtype", "bfloat16"}, {"device", "cpu"}, {"verified", true}, {"seconds", 0.1}},
                                   {{"dtype", "float16"}, {"device", "cpu"}, {"verified", false}, {"seconds", 0.1}}}},
                   {"memory", nullptr}};
  f.error = ErrorInfo{"PrecisionKernelMissing",
                      "c10::Error: \"addmm_impl_cpu_\" not implemented for 'Half'", std::nullopt};
  std::optional<PrecisionRun> run = failed_precision_of(f);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->dtype, "float16");
  EXPECT_EQ(run->exception, "c10::Error");
  EXPECT_EQ(run->words, "\"addmm_impl_cpu_\" not implemented for 'Half'");
  EXPECT_FALSE(run->missing);
  f.error = ErrorInfo{"PrecisionNotInTorch", "torch has no dtype float16", std::nullopt};
  EXPECT_TRUE(failed_precision_of(f)->missing);
  f.application["precisions"][1]["verified"] = true;
  EXPECT_FALSE(failed_precision_of(f));
}

}  // namespace
}  // namespace kd
