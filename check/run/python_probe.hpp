// The python probe, the check's side: the program (probe/python/, its sections joined by the
// build, built into the check) that the interpreter of the user's environment runs as the
// worker, and its answers. The
// program imports torch as the application does and answers the calls of the probe interface
// (probe_abi.h) in the order the stages make them, as JSON lines on the worker's event
// descriptor beside the protocol's stage events:
//
//   {"event":"answer","call":"gpu_info","status":0,"available":0,"device_count":0,...}
//   {"event":"done"}
//
// The check then walks the same stages as for every probe over those answers
// (worker.hpp, run_python_answers): one recogniser of causes and one verification.
#pragma once

#include <nlohmann/json.hpp>

#include "facts/python_answers.hpp"
#include "run/cli.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace kd {

// tool.probe of a run through the interpreter's own import.
inline constexpr const char* kProbeKindPython = "python";

// The program, byte for byte as the build joined it (<build>/check/python_probe.py).
std::string_view python_probe_program();

// The worker's argv: the interpreter running the program for a device, an index, and, as a JSON
// object, what it is asked after the computation (torch.compile, the modules of --import, the
// weights files of --weights) and the check's private folder, where torch's caches and temporary
// files go (the check removes it). -B: the check writes nothing into the environment it
// certifies (no __pycache__).
std::vector<std::string> python_worker_argv(const std::string& python, bool gpu, long long index,
                                            const Options& options = {},
                                            const std::string& private_folder = "");

}  // namespace kd
