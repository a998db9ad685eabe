// The application layer, the product guide's fourth, after the computation has passed: the
// python probe's answers (probe/python_probe.py, `application`) of the environment's
// distributions that require torch, listed from their metadata alone, and of the modules asked
// with --import, each imported in the interpreter and the torch the computation ran in, its
// libraries that link libtorch loaded as torch loads an extension's ops library. The check
// walks this stage over those answers as over the others (worker.hpp, run_python_answers):
//
//   run_stages(probe, request, sink, [&](const EventSink& sink) {
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

#include "protocol.hpp"
#include "python_probe.hpp"

namespace kd {

// Walks the application stage over the python probe's answers: the stage and its facts, and
// for a module asked that failed, the outcome, through `sink`; the facts of that failure and
// of each warning into `findings`. `asked` are the modules of --import, in order. False once it
// has finished the run.
bool application_stage(const PythonAnswers& answers, const std::vector<std::string>& asked,
                       WorkerFindings& findings, const EventSink& sink);

// The module the python probe was importing when it stopped answering: the last it said it
// was importing without answering for it; "" for none.
std::string module_being_imported(const PythonAnswers& answers);

}  // namespace kd
