#include "torch_location.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "kd/supervisor.hpp"
#include "util/files.hpp"

namespace kd {
namespace {

bool present(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// The interpreter's answer: its torch package's folder, then its environment's
// kind, one a line. find_spec imports nothing of torch; the kinds are those
// of the interpreter's own sys.prefix.
constexpr const char* kAsk =
    "import importlib.util as u, os, sys\n"
    "try:\n"
    "    s = u.find_spec('torch')\n"
    "    d = list(s.submodule_search_locations)[0] if s and s.submodule_search_locations else ''\n"
    "except Exception:\n"
    "    d = ''\n"
    "k = 'conda' if os.path.exists(os.path.join(sys.prefix, 'conda-meta')) else "
    "'virtualenv' if sys.prefix != getattr(sys, 'base_prefix', sys.prefix) else 'system'\n"
    "print(d)\n"
    "print(k)\n";

TorchLocation ask_python(const std::string& python, std::string searched, std::string source,
                         Clock::time_point deadline) {
  TorchLocation where;
  where.searched = std::move(searched);
  where.source = std::move(source);
  SpawnSpec spec;
  spec.argv = {python, "-c", kAsk};
  spec.out = CaptureSpec{true, 64 * 1024, false};
  spec.err = CaptureSpec{true, 4 * 1024, true};
  RunResult run = run_supervised(spec, deadline, {});
  if (run.end == RunEnd::SpawnFailed) {
    where.found = TorchLocation::Found::NoTorch;
    where.spawn_errno = run.spawn_errno;
    where.failure = "could not be started: " + run.spawn_error;
    return where;
  }
  std::istringstream lines(run.out.data);
  std::string dir, kind;
  std::getline(lines, dir);
  std::getline(lines, kind);
  where.environment = kind == "conda" || kind == "virtualenv" || kind == "system" ? kind : "";
  const bool answered = run.end == RunEnd::Exited && run.status.exited() && run.status.code == 0;
  if (answered && !dir.empty() && is_torch_folder(dir)) {
    where.found = TorchLocation::Found::Torch;
    where.dir = dir;
  } else {
    where.found = TorchLocation::Found::NoTorch;
    if (!answered) where.failure = "did not answer (it " + run.status.describe() + ")";
  }
  return where;
}

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

bool is_torch_folder(const std::string& dir) {
  return !dir.empty() && (present(dir + "/lib/libtorch.so") || present(dir + "/libtorch.so"));
}

std::string torch_library(const std::string& dir) {
  return present(dir + "/lib/libtorch.so") ? dir + "/lib/libtorch.so" : dir + "/libtorch.so";
}

std::string build_python() {
#ifdef KERNODECK_BUILD_TORCH_PYTHON
  return KERNODECK_BUILD_TORCH_PYTHON;
#else
  return "";
#endif
}

ProbeKind probe_for(bool compiled_probe_installed) {
  const bool folder = !variable(kTorchDirVariable).empty();
  if (!variable(kTorchPythonVariable).empty() && !folder) return ProbeKind::Python;
  if (compiled_probe_installed && (folder || build_python().empty())) return ProbeKind::Compiled;
  return folder ? ProbeKind::Stable : ProbeKind::Python;
}

namespace {

// The interpreter to ask, in the order of torch_location.hpp, without asking whether it runs.
PythonLocation interpreter_in_order(const std::string& self_dir) {
  if (std::string python = variable(kTorchPythonVariable); !python.empty()) {
    return {python, "the Python of KERNODECK_TORCH_PYTHON", "torch_python_variable"};
  }
  if (const std::string beside = self_dir + "/python3"; access(beside.c_str(), X_OK) == 0) {
    return {beside, "the Python beside the check", "python_beside_check"};
  }
  if (const std::string built = build_python(); !built.empty() && access(built.c_str(), X_OK) == 0) {
    return {built, "the Python the check was built against", "python_of_build"};
  }
  auto python = find_on_path("python3", variable("PATH"));
  return {python.value_or(""), "the python3 on PATH", "python_on_path"};
}

}  // namespace

PythonLocation locate_python(const std::string& self_dir) {
  PythonLocation where = interpreter_in_order(self_dir);
  if (!where.python.empty() && access(where.python.c_str(), X_OK) != 0) where.python.clear();
  return where;
}

TorchLocation locate_torch(const std::string& self_dir, Clock::time_point deadline) {
  if (std::string dir = variable(kTorchDirVariable); !dir.empty()) {
    TorchLocation where;
    where.searched = "the folder KERNODECK_TORCH_DIR names";
    where.source = "torch_dir_variable";
    where.found = is_torch_folder(dir) ? TorchLocation::Found::Torch : TorchLocation::Found::NoTorch;
    if (where.found == TorchLocation::Found::Torch) where.dir = dir;
    return where;
  }
  PythonLocation python = interpreter_in_order(self_dir);
  if (!python.python.empty()) {
    return ask_python(python.python, std::move(python.searched), std::move(python.source), deadline);
  }
  TorchLocation none;
  none.searched = std::move(python.searched);
  none.source = std::move(python.source);
  return none;
}

}  // namespace kd
