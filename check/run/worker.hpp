// The worker: the check's own binary re-executed in a new process group. It
// loads the probe module (and with it libtorch), walks the stages import ->
// backend -> device -> compute, verifies the numbers itself and tells the
// parent everything through the protocol of protocol.hpp. The parent alone
// watches the clock.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/protocol.hpp"
#include "facts/python_answers.hpp"
#include "probe/probe_abi.h"
#include "stages/stage.hpp"

namespace kd {

// argv[1] that turns the binary into a worker; not an option for people.
inline constexpr std::string_view kWorkerArg = "__kernodeck_worker__";
// The worker's last argument where precisions are asked (--dtype): "dtypes=float16,bfloat16".
inline constexpr std::string_view kDtypesArg = "dtypes=";
// The worker writes its events on this descriptor.
inline constexpr int kEventFd = 3;

// argv of the worker, and back.
std::vector<std::string> worker_argv(const std::string& self_exe, const WorkerRequest& request);
bool parse_worker_argv(const std::vector<std::string>& args, WorkerRequest& request);

// Loads the probe module and runs every stage; always ends with an outcome event.
void run_worker(const WorkerRequest& request, FindingsSink& sink);

// What the python probe adds to the stages: the backend's own libraries once the backend is
// known (backend_libraries.hpp), and after the computation has passed, torch.compile's
// (compile_stage.hpp) and the application layer's (application.hpp). Each says its findings
// through the sink; false once it has finished the run with its outcome.
using StageHook = std::function<bool(FindingsSink& sink)>;
struct StageHooks {
  StageHook after_backend;
  StageHook after_compute;
};

// The stages after loading, with a probe in hand; the hooks, where given, run at their places,
// before the pass is given.
void run_stages(const kd_probe& probe, const WorkerRequest& request, FindingsSink& sink,
                const StageHooks& hooks = {});

// The python probe's run, once its interpreter has ended after all its answers
// (python_probe.hpp): the import as it answered, then the same stages as for every probe, over
// its answers. `searched` says how the interpreter was found ("the python3 on PATH"). The
// import's facts and warnings go into `findings` (the interpreter's own, the caller reads from
// its answer); the stages' findings, to `sink` (in the parent: folded into the findings).
void run_python_answers(const PythonAnswers& answers, const WorkerRequest& request,
                        const std::string& searched, WorkerFindings& findings,
                        FindingsSink& sink);

// The worker process's main: events on kEventFd, then _exit.
[[noreturn]] void worker_main(const std::vector<std::string>& args);

}  // namespace kd
