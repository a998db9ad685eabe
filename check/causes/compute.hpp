// The compute layer's causes: the fixed computation refused by the GPU (no kernel image for it,
// a fault, an uncorrectable ECC error).
#pragma once

#include "causes/catalogue_entry.hpp"

namespace kd::catalogue {

// ---- the signs: what must hold of what was seen ----

// The ROCm GPU's gfx target read from the KFD topology.
inline bool gfx_target_known(const Seen& s) { return s.evidence.rocm && s.evidence.rocm->gfx_target; }

// The causes, in the order they are tried: the first whose row fits is the cause.
// clang-format off
inline constexpr CauseInfo kComputeCauses[] = {
    // ---- compute ----
    {CAUSE(RocmArchitectureMissing),          Compute, RuntimeError,      kCompute,      hip({98, 209}, gfx_target_known),
     "a ROCm build without this GPU's architecture",
     "HIP runtime error 98 (invalid device function) or 209 (no binary for the GPU) while the "
     "GPU's gfx target is read from the kernel's KFD topology "
     "(/sys/class/kfd/kfd/topology/nodes/*/properties)",
     "The computation failed: this libtorch's ROCm build has no code for this GPU's "
     "architecture, {gfx_target} (error {error}){override}.",
     "Install a ROCm build of libtorch whose architecture list includes {gfx_target} (a PyTorch "
     "ROCm release that supports this GPU, or a build with PYTORCH_ROCM_ARCH={gfx_target}); for "
     "a GPU of a family the build does support, HSA_OVERRIDE_GFX_VERSION may name that family's "
     "target (10.3.0 for gfx1030), at your own risk."},
    {CAUSE(NoKernelImage),                    Compute, RuntimeError,      kCompute,      runtime({209}),
     "no kernel image for this GPU's architecture",
     "runtime error 209 (no kernel image for the device)",
     "The computation failed: this libtorch has no kernel image for this GPU's architecture "
     "({architecture}); the build lacks it (error 209).",
     "Install a libtorch built for {architecture} (a release whose architecture list includes "
     "it, or a build with TORCH_CUDA_ARCH_LIST or PYTORCH_ROCM_ARCH naming it), or run on a GPU "
     "the build supports."},
    {CAUSE(PtxTooNew),                        Compute, RuntimeError,      kCompute,      cuda({222}),
     "PTX built by a newer CUDA toolchain than the driver's",
     "CUDA runtime error 222 (unsupported PTX version)",
     "The computation failed: this libtorch's PTX was built by a newer CUDA toolchain than the "
     "driver supports (the driver supports CUDA {driver_cuda}; error 222), and it has no kernel "
     "built for this GPU to use instead.",
     "Update the GPU driver to one that supports this libtorch's CUDA release, or install a "
     "libtorch built for the CUDA version the driver supports (a wheel of an older CUDA)."},
    {CAUSE(GpuFault),                         Compute, RuntimeError,      kCompute,      runtime({700, 719}),
     "a GPU fault (illegal memory access, launch failure)",
     "runtime error 700 (illegal address) or 719 (launch failure)",
     "The computation failed with a GPU fault (error {error}: an illegal memory access or a "
     "failed launch), which this small computation does not cause on a healthy GPU.",
     "Check dmesg for Xid errors and drain the node; a GPU reset or a reboot may be needed "
     "before it takes work again."},
    {CAUSE(UncorrectableEcc),                 Compute, RuntimeError,      kCompute,      runtime({214}),
     "uncorrectable ECC error",
     "runtime error 214 (uncorrectable ECC)",
     "The computation failed: the GPU reported an uncorrectable ECC memory error (error 214).",
     "Drain the node and have the GPU checked (nvidia-smi -q -d ECC, dmesg for Xid 48, 63 and "
     "64); a reset clears the error, repeated ones call for a replacement."},
};
// clang-format on

}  // namespace kd::catalogue
