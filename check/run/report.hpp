// Builds the report of CONTRACT.md ("The report") from what the parent
// learned, and renders it: the same bytes go to stdout and to the file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "run/cli.hpp"
#include "facts/outcome.hpp"
#include "facts/protocol.hpp"
#include "facts/sanitize.hpp"

namespace kd {

struct HostCheckResult {
  std::string status;  // ok, not_found, timeout, failed
  std::optional<std::string> driver_version;
  std::optional<long long> memory_total_mib;
};

struct ReportInput {
  Options options;
  Outcome outcome = Outcome::InternalError;
  Stage stage = Stage::Import;
  WorkerFindings findings;  // pytorch and execution as far as reached
  std::optional<ErrorInfo> error;
  std::optional<HostCheckResult> host;
  bool output_written = false;
  bool probe_override = false;  // a probe module named by KERNODECK_PROBE_MODULE
  std::string probe_kind = "libtorch";  // the probe that served: "libtorch", "stable_abi", "python"
  // How the stable probe's torch was found (torch_location.hpp), as fixed words: the report's
  // runtime.torch_source and runtime.python_environment; empty (null) for the compiled probe.
  std::string torch_source;
  std::string python_environment;
  // A cause the check recognised (causes.hpp): the message says it instead
  // of the meaning and next action.
  std::optional<Cause> cause;
  // What the check noticed without failing for it (a distribution made for another torch): the
  // report's `warnings`, in the order met. Their words come from the catalogue too.
  struct Warning {
    Stage stage;
    std::string type;
    std::string message;
  };
  std::vector<Warning> warnings;
};

// "what happened. next action." for the report's `message`.
std::string compose_message(const ReportInput& input);

ojson build_report(const ReportInput& input, const Sanitizer& sanitizer);

// Two-space indented JSON and a final newline.
std::string render_report(const ojson& report);

// The one-line verdict for stderr, from a built report.
std::string verdict_line(const ojson& report);

}  // namespace kd
