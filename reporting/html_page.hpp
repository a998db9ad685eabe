// The certificate as one self-contained HTML page (no script, no network, no other file): the
// counts and the environment at the top, the layers of the contract as a ladder, then every
// case by layer with its promise, verdict, reason, the warnings of the check's JSON report of it
// and that report (a failed case whose report names a cause of the check's catalogue with that
// cause and its next action), and last the causes the check tells apart, each marked with the
// cases of the run that met it.
#pragma once

#include <string>

#include "cause_coverage.hpp"
#include "junit_report.hpp"

namespace kd::junit {

// The page of a sealed or read report, as docs/dashboards.md describes it: its view first when it
// has one (a fleet's tables, above the environment; its own ladder, counting GPUs), each case's
// JSON report from `case_json` (report_of_case) and the cause of `causes` it names.
// For tests: <main id="certificate"> carries data-tests, data-passed, data-failed,
// data-errors and data-skipped (of every case in the report, the certificate's own included,
// as summary_line counts them); the facts are rows of <table id="environment">; each case is a
// <div class="case" data-case="<layer>.<id>" data-verdict>, its cause a <div class="cause"> (a
// failed or erred case) or <div class="cause-met">, each warning a <div class="warning">; the
// catalogue is <section id="causes" data-causes data-met>, a row per cause with data-met.
std::string certificate_html(const Report& report, const CaseReports& case_json,
                             const Causes& causes);

}  // namespace kd::junit
