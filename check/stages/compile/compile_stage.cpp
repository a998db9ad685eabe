#include "stages/compile/compile_stage.hpp"

#include <cmath>
#include <cstring>

#include "causes/causes.hpp"
#include "facts/json_fields.hpp"

namespace kd {
namespace {

ojson seconds_of(const nlohmann::json& answer) {
  const std::optional<double> ms = json_field::duration(answer, "ms");
  return ms ? ojson(std::round(*ms) / 1000.0) : ojson(nullptr);
}

}  // namespace

bool compile_stage(const PythonAnswers& answers, const WorkerRequest& request,
                   WorkerFindings& findings, FindingsSink& sink) {
  sink.stage(Stage::Compile);
  const nlohmann::json* answer = answers.find("compile");
  if (answer == nullptr) {
    sink.outcome(Outcome::InternalError, Stage::Compile,
                 ErrorInfo{failure_type(Failure::WorkerException),
                           "the python probe gave no answer for torch.compile"});
    return false;
  }
  ojson compiled = {{"backend", "inductor"}, {"seconds", seconds_of(*answer)}, {"verified", false}};
  if (answer->value("status", 2) != 0) {
    sink.facts("execution", {{"compile", compiled}});
    findings.compile_failure =
        compile_facts_of(answer->value("facts", nlohmann::json::object()),
                         request.device == Device::Cuda);
    const CauseInfo& row = cause_info(recognise_compile(*findings.compile_failure));
    const CompileFacts& f = *findings.compile_failure;
    sink.outcome(row.outcome, Stage::Compile,
                 ErrorInfo{std::string(row.type),
                           (f.exception.empty() ? "" : f.exception + ": ") + f.words});
    return false;
  }
  kd_compute_result r{};
  auto loss = answer->find("loss");
  const bool read = read_four(*answer, "product", r.product) &&
                    read_four(*answer, "gradient", r.gradient) && loss != answer->end() &&
                    loss->is_number();
  if (read) r.loss = loss->get<float>();
  r.gradient_source = KD_GRADIENT_AUTOGRAD;
  const Verification v = verify(r);
  compiled["verified"] = read && v.product_ok && v.gradient_ok && v.loss_ok;
  sink.facts("execution", {{"compile", compiled}});
  if (compiled["verified"] == true) return true;
  sink.outcome(Outcome::CompileFailed, Stage::Compile,
               ErrorInfo{failure_type(Failure::CheckMismatch),
                         "through torch.compile, " +
                             (read ? v.problem : std::string("the result is malformed"))});
  return false;
}

}  // namespace kd
