// --compile: the contract's computation a second time through torch.compile and its default
// backend (inductor), after the eager one, as the python probe answered it (compile_stage in
// probe/python/compile.py); verified as the eager computation is (facts/computation.hpp, verify). The report's
// execution.compile says how it went; a failure is COMPILE_FAILED at stage compile, its cause
// from what the toolchain lacked (compile_facts.hpp, recognise_compile). Its caches went to the
// check's private folder, which the parent removes.
#pragma once

#include "facts/computation.hpp"
#include "facts/protocol.hpp"
#include "facts/python_answers.hpp"
#include "stages/stage.hpp"

namespace kd {

// Walks the compile stage over the python probe's answers: the stage, execution.compile and,
// where it failed, the outcome, through `sink`. False once it has finished the run.
bool compile_stage(const PythonAnswers& answers, const WorkerRequest& request,
                   WorkerFindings& findings, FindingsSink& sink);

}  // namespace kd
