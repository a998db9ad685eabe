// The application's precisions (--dtype, and the weights' own floating dtypes): the contract's
// computation again in each, verified here from the numbers a probe gave (facts/precision.hpp),
// whichever probe computed them: the python probe's answers, walked by the application stage
// (application.hpp), or the compiled probe's KD_PRECISION_ENTRY, called by the worker after the
// computation (precision_stage):
//
//   hooks.after_compute = [&](FindingsSink& sink) { return precision_stage(request, sink); };
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "facts/precision.hpp"
#include "facts/protocol.hpp"
#include "stages/stage.hpp"

namespace kd {

// application.precisions: an entry per run, in order; the first run that failed (could not
// compute, or gave numbers that differ: their first mismatch in `wrong`) into `failure`.
ojson precision_entries(const std::vector<PrecisionRun>& runs,
                        std::optional<PrecisionRun>& failure, std::string& wrong);

// The verdict of a precision that failed, through `sink`: wrong numbers CHECK_FAILED
// (CheckMismatch), else its cause from the catalogue (RUNTIME_ERROR). Always false.
bool precision_failed(const PrecisionRun& failed, const std::string& wrong, FindingsSink& sink);

// error.message of a precision the computation could not run in: the exception and torch's
// words, or the dtype this torch lacks.
std::string precision_words(const PrecisionRun& run);

// The compiled probe's application stage (--dtype): each precision computed in the worker's
// process through the probe module's KD_PRECISION_ENTRY, stopping at the first that fails; the
// report's application block (its precisions alone) and the verdict through `sink`. False once
// it has finished the run.
bool precision_stage(const WorkerRequest& request, FindingsSink& sink);

// The precision that failed, as the parent knows it from a worker's report: the last entry of
// application.precisions not verified, and error.message (the compiled probe's worker, whose
// facts come as its report); nullopt where none failed.
std::optional<PrecisionRun> failed_precision_of(const WorkerFindings& findings);

}  // namespace kd
