// Where the stable probe's libtorch is: the torch of the Python environment the
// user's application runs in, found as that environment's own `import torch`
// would find it, without importing it. In this order:
//   KERNODECK_TORCH_DIR      a torch folder named outright (a torch package, a
//                            libtorch archive, or the folder holding libtorch.so);
//   KERNODECK_TORCH_PYTHON   an interpreter whose `torch` package is used;
//   python3 beside the check (the check installed into a virtual environment's
//                            bin/, as pip installs it);
//   the interpreter the check was built against (a check built with CMake against a
//                            torch wheel through -DKERNODECK_TORCH_PYTHON, with its
//                            compiled probe), where it still runs;
//   python3 on PATH.
// The interpreter is asked for its torch package's folder (importlib's
// find_spec, which imports nothing) and what kind of environment it is. Used by
// the worker before the stable probe loads libtorch, and by the conformance
// harness to learn which libtorch the check it certifies will load.
//
//   TorchLocation where = locate_torch(self_dir, deadline_in(30));
//   if (where.dir.empty()) ... where.searched says how it was looked for
#pragma once

#include <string>

#include "util/time.hpp"

namespace kd {

struct TorchLocation {
  enum class Found {
    Torch,     // `dir` holds libtorch
    NoTorch,   // the folder or the interpreter asked has no torch
    NoPython,  // no interpreter to ask (no python3 on PATH)
  };
  Found found = Found::NoPython;
  std::string dir;  // the torch folder, "" unless found
  // How it was looked for, in fixed words for the report's message: "the folder
  // KERNODECK_TORCH_DIR names", "the Python of KERNODECK_TORCH_PYTHON", "the
  // Python beside the check", "the Python the check was built against", "the python3 on PATH".
  std::string searched;
  // The same as a token for the report's runtime.torch_source: "torch_dir_variable",
  // "torch_python_variable", "python_beside_check", "python_of_build", "python_on_path".
  std::string source;
  // The kind of Python environment asked: "virtualenv", "conda", "system", or ""
  // where no interpreter was asked (KERNODECK_TORCH_DIR) or it did not say.
  std::string environment;
  // Where the interpreter could not be started: the system's error number (EAGAIN under a
  // process limit), 0 otherwise; and where it ran but did not answer, how it ended.
  int spawn_errno = 0;
  std::string failure;
};

// The variables that name the torch outright.
inline constexpr const char* kTorchDirVariable = "KERNODECK_TORCH_DIR";
inline constexpr const char* kTorchPythonVariable = "KERNODECK_TORCH_PYTHON";

// Whether `dir` holds libtorch: lib/libtorch.so, or libtorch.so itself.
bool is_torch_folder(const std::string& dir);
// The libtorch.so of a torch folder.
std::string torch_library(const std::string& dir);

// Which probe serves a check, from the variables of this process and whether its compiled probe
// is installed beside it (the check's own choice, and the conformance harness's to know it): the
// python probe where KERNODECK_TORCH_PYTHON names an interpreter (and KERNODECK_TORCH_DIR no
// folder, which comes first as in locate_torch); else the compiled probe where installed, unless
// it was built against a torch wheel through that wheel's interpreter (build_python): a torch
// that is a Python package is certified by its interpreter's own import, the compiled probe then
// serving only a folder KERNODECK_TORCH_DIR names; else the stable probe for the folder
// KERNODECK_TORCH_DIR names; else the python probe.
enum class ProbeKind { Python, Compiled, Stable };
ProbeKind probe_for(bool compiled_probe_installed);

// The interpreter a check built with CMake against a torch wheel was given
// (-DKERNODECK_TORCH_PYTHON, with its compiled probe), as an absolute path; "" for any other
// build (a libtorch folder or distribution's, the wheel of the check, the kit).
std::string build_python();

// The interpreter whose own `import torch` the python probe runs, looked for in the same order
// without starting it: KERNODECK_TORCH_PYTHON, python3 beside the check, the interpreter of the
// build, python3 on PATH.
struct PythonLocation {
  std::string python;    // its path; "" where none is (found stays NoPython)
  std::string searched;  // as TorchLocation::searched
  std::string source;    // as TorchLocation::source
};
PythonLocation locate_python(const std::string& self_dir);

// Looks for the torch as above, from the folder of the check's own binary;
// the interpreter asked is given until `deadline`.
TorchLocation locate_torch(const std::string& self_dir, Clock::time_point deadline);

}  // namespace kd
