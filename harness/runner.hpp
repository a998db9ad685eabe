// What the suite knows about the machine it runs on and the check it
// certifies, learned without asking the check: which binary (KERNODECK_CHECK
// or the one just built), which probe it loads and which libtorch with it, whether a
// GPU device node exists, whether the runner declared a GPU
// (KERNODECK_EXPECT_GPU=1), and what CTest allocated to this test.
#pragma once

#include <optional>
#include <string>
#include <vector>


namespace kdh {

struct Runner {
  std::string check;         // absolute path of the check under test
  std::string fixtures_dir;  // the built fixtures
  std::string reports_dir;   // where case reports go
  bool expect_gpu = false;
  // The probe module beside the check: the compiled one where installed, else the stable one.
  std::optional<std::string> probe_module;
  // The probe that serves the check: "libtorch" (compiled), "stable_abi" (without the compiled
  // one, for a torch folder KERNODECK_TORCH_DIR names) or "python" (without it, the
  // interpreter's own import); "" with no probe module.
  std::string probe_kind;
  bool compiled_probe_installed = false;  // the compiled probe beside the check
  // The object whose loading loads libtorch, what `ldd` is asked about: the compiled probe
  // module itself, or the libtorch.so of the torch the stable probe finds (torch_location.hpp,
  // in the environment the suite gives the check).
  std::optional<std::string> import_root;
  // The interpreter the python probe runs (torch_location.hpp, locate_python); none for the others.
  std::optional<std::string> python;
  std::vector<std::string> import_needs;  // its DT_NEEDED entries
  std::string backend = "unknown";          // cuda, rocm, none, unknown
  // The CUDA version of a CUDA libtorch, from its wheel's torch/version.py;
  // empty when the library does not say (a libtorch zip, a distribution's).
  std::string torch_cuda_version;
  bool gpu_present = false;
  int visible_gpus = 0;
  std::string gpu_evidence;  // what was seen, for messages
  std::optional<std::string> nvidia_smi;
  std::optional<int> allocated_gpu;  // CTest resource group: the GPU of this test

  std::string summary() const;
};

const Runner& runner();

}  // namespace kdh
