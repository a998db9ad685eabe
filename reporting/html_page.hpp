// The certificate as one self-contained HTML page (no script, no network, no other file): the
// counts and the environment at the top, the layers of the contract as a ladder, then every
// case by layer with its promise, verdict, reason, the warnings of the check's JSON report of it
// and that report (a failed case whose report names a cause of the check's catalogue with that
// cause and its next action), and last the causes the check tells apart, each marked with the
// cases of the run that met it.
#pragma once

#include <string>
#include <string_view>

#include "cause_coverage.hpp"
#include "junit_report.hpp"

namespace kd::junit {

// `text` with & < > " ' as character references.
std::string html_escape(std::string_view text);

// The page of a sealed or read report: its view first when it has one (a fleet's tables, above
// the environment), the layers of the contract (kLayers: import, backend, device, compute,
// application) with their state (the view's own ladder where it has one: a fleet's counts GPUs),
// then every case by layer with the promise
// it recorded ("Promise: ..." first in its system-out), its verdict, its skip reason or failure,
// and its JSON report in <details>: from `case_json` (report_of_case). Where that report's
// error.type is a cause of `causes`, a failed or erred case shows the cause's title and next
// action and the report's message (<div class="cause">), any other case a line naming the cause;
// each warning of that report is a <div class="warning"> of the case, whatever its verdict (its
// stage, type and message; the type linked to the catalogue's row when it is a cause of it), and
// <p id="warnings"> under the counts says how many there are (data-warnings);
// then <section id="causes">: one row per cause of `causes` (layer, cause, error.type, next
// action), each linked to the cases that met it (data-met, their number), in their report's
// error.type or in a warning's type. Without a catalogue (no rows) the section says so and no
// case names a cause.
// For tests: <main id="certificate"> carries data-tests, data-passed, data-failed,
// data-errors and data-skipped (of every case in the report, the certificate's own included,
// as summary_line counts them); the facts are rows of <table id="environment">.
std::string certificate_html(const Report& report, const CaseReports& case_json,
                             const Causes& causes);

}  // namespace kd::junit
