// The parent: everything between a parsed command line and the exit status.
// Pre-flights the output file, runs the worker under a deadline, classifies
// how it ended, runs the optional host check, builds and writes the report.
// Never links libtorch and never touches a GPU driver.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "run/cli.hpp"

namespace kd {

// Name of the one seam of the conformance suite: a probe module to load
// instead of the built-in one. A report made through it says so.
inline constexpr const char* kProbeOverrideVariable = "KERNODECK_PROBE_MODULE";

// Writes the whole report to stdout; returns 0, or the errno that stopped it.
using ReportWriter = std::function<int(const std::string& report)>;

struct CheckRun {
  int exit_code = 1;
  std::string report;          // the JSON document, already given to the ReportWriter
  std::string verdict;         // stderr: one line
  std::vector<std::string> warnings;  // stderr, before the verdict: a line a warning
  int die_signal = 0;          // interrupted: end by this signal instead, with no report
  std::string stdout_problem;  // stderr, before the verdict: stdout could not take the report
};

// Runs the check, writes the --output file when asked, then the report
// through `write_stdout`; the exit code and verdict account for both.
CheckRun run_check(const Options& options, const std::string& self_exe,
                   const ReportWriter& write_stdout);

// A usage error only the probe that serves can tell: --import asks for the interpreter of the
// application, which the compiled probe, the stable probe and the suite's fault-injection
// probe do not have. The message for stderr (exit 2), or nullopt where the options can run.
std::optional<std::string> refused_for_probe(const Options& options, const std::string& self_exe);

// The run of a check that failed in itself (an exception escaped): still a
// full report, INTERNAL_ERROR.
CheckRun internal_error_run(const Options& options, const std::string& what,
                            const ReportWriter& write_stdout);

// The probe that serves this run: the python probe, the interpreter of the environment
// importing its own torch, where KERNODECK_TORCH_PYTHON names that interpreter (and
// KERNODECK_TORCH_DIR no torch folder); else the
// compiled probe where it is installed beside the binary; else the stable probe for a torch
// folder KERNODECK_TORCH_DIR names; else the python probe with the python3 beside the check or
// on PATH (path empty: the interpreter is looked for when the run starts, torch_location.hpp). `kind` is the report's tool.probe
// (probe_abi.h's KD_PROBE_KIND_*, or kProbeKindPython).
struct ProbeChoice {
  std::string path;
  std::string kind;
};
ProbeChoice default_probe(const std::string& self_exe);

}  // namespace kd
