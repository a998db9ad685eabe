// The application layer, the product guide's fourth, after the computation has passed: the
// python probe's answers (probe/python/application.py, `application`) of the environment's
// distributions that require torch, listed from their metadata alone, and of the modules asked
// with --import, each imported in the interpreter and the torch the computation ran in, its
// libraries that link libtorch loaded as torch loads an extension's ops library. The check
// walks this stage over those answers as over the others (worker.hpp, run_python_answers):
//
//   run_stages(probe, request, sink, [&](FindingsSink& sink) {
//     return application_stage(answers, request.imports, findings, sink);
//   });
//
// It gives the report's `application` block, a warning for each distribution made for another
// torch than the one imported (never a change of the exit code), and the first module that
// failed as EXTENSION_IMPORT_FAILED, its cause from the catalogue (causes.hpp,
// recognise_extension).
#pragma once

#include <string>
#include <vector>

#include "facts/protocol.hpp"
#include "facts/python_answers.hpp"

namespace kd {

// What the application layer was asked: the modules of --import and the weights files of
// --weights (their base names, as the python probe answers for them), in order.
struct ApplicationAsked {
  std::vector<std::string> imports;
  std::vector<std::string> weights;
};

// Walks the application stage over the python probe's answers: the stage and its facts, and
// for a module asked or a weights file that failed, the outcome, through `sink`; the facts of
// that failure and of each warning into `findings`. False once it has finished the run.
bool application_stage(const PythonAnswers& answers, const ApplicationAsked& asked,
                       WorkerFindings& findings, FindingsSink& sink);

// What the python probe was doing when it stopped answering, in words: "importing kd_hang",
// "opening model.safetensors" (the last step it began without answering for it); "" for none.
std::string application_step(const PythonAnswers& answers);

}  // namespace kd
