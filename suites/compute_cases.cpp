// Layer "compute": the fixed computation (2x2 product, loss 196, gradient),
// verified exactly, and every way a worker can fail while computing.
#include "layer_test.hpp"
#include "manipulations.hpp"

namespace {

using kdh::Case;
using kdh::Requirement;

// The computation fails on the GPU as the runtime's error `number` does
// (fault probe: no GPU here); the check names the cause from the number.
Case gpu_fault(const std::string& id, int number, const std::string& type,
               const std::string& what, const std::string& next_action,
               kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .guards("a computation failing with the GPU runtime's error " + std::to_string(number) +
              " is RUNTIME_ERROR (9) at stage compute naming that cause (" + type + ")")
      .with_fault("gpus=1,gpu_fault=" + std::to_string(number))
      .outcome("RUNTIME_ERROR", "compute")
      .expect_field("/error/type", type)
      .expect_field_contains("/error/message", "(" + std::to_string(number) + "): ")
      .expect_field("/error/evidence/runtime/error", number)
      .expect_null("/error/evidence/device_nodes")
      .expect_field_contains("/message", what)
      .expect_field_contains("/message", next_action)
      .with_privacy_canaries();
}

// A ROCm GPU of target `gfx` (its KFD node's gfx_target_version `version`) whose computation
// fails with HIP's error `number`: the fault probe's ROCm GPU, and a private /sys/class holding
// the KFD topology of a machine with one CPU node and that GPU, bound over the real one in a
// mount namespace.
Case rocm_fault(const std::string& id, int number, const std::string& gfx, int version,
                kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .guards("a computation failing with HIP's error " + std::to_string(number) +
              " on a GPU whose architecture the ROCm build lacks is RUNTIME_ERROR (9) at stage "
              "compute naming that architecture (RocmArchitectureMissing)")
      .needs(Requirement::UserNamespaces)
      .with_fault("backend=rocm,gpus=1,gpu_fault=" + std::to_string(number))
      .prepare(
          [version](const std::string& tmp) {
            const std::string nodes = tmp + "/sys-class/kfd/kfd/topology/nodes";
            for (const char* node : {"/0", "/1"}) {
              if (system(("mkdir -p '" + nodes + node + "'").c_str()) != 0) return "cannot make " + nodes;
            }
            std::string why = kdh::write_text_file(nodes + "/0/properties",
                                                   "cpu_cores_count 16\nsimd_count 0\n"
                                                   "gfx_target_version 0\n");
            if (!why.empty()) return why;
            return kdh::write_text_file(nodes + "/1/properties",
                                        "cpu_cores_count 0\nsimd_count 40\ngfx_target_version " +
                                            std::to_string(version) + "\nmax_waves_per_simd 16\n");
          },
          "a KFD topology of one CPU node and one GPU of " + gfx + " (gfx_target_version " +
              std::to_string(version) + ") at {tmp}/sys-class")
      .wrap(kdh::in_mount_namespace("mount --bind {tmp}/sys-class /sys/class"),
            "bound over /sys/class in a private user and mount namespace")
      .outcome("RUNTIME_ERROR", "compute")
      .expect_field("/error/type", "RocmArchitectureMissing")
      .expect_field("/error/evidence/runtime/api", "hip")
      .expect_field("/error/evidence/runtime/error", number)
      .expect_field("/error/evidence/rocm/gfx_target", gfx)
      .expect_null("/error/evidence/device_nodes")
      .expect_field_contains("/error/message", "(" + std::to_string(number) + "): ")
      .expect_field_contains("/message", "has no code for this GPU's architecture, " + gfx)
      .expect_field_contains("/message", "PYTORCH_ROCM_ARCH=" + gfx)
      .expect_field_lacks("/error/message", "/")
      .with_privacy_canaries();
}

std::vector<Case> compute_cases() {
  return {
      Case("cpu_pass_real_libtorch")
          .guards("--device cpu with the real libtorch verifies product and gradient: "
                  "CPU_CHECK_PASSED (0)")
          .args({"--device", "cpu"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/tool/probe", "{probe}")
          .expect_not_null("/pytorch/version")
          .expect_not_null("/pytorch/backend")
          .expect_field("/execution/device", "cpu")
          .expect_field("/execution/product_verified", true)
          .expect_field("/execution/gradient_verified", true)
          .expect_field("/execution/loss", 196)
          .expect_null("/execution/synchronized")
          .expect_null("/execution/memory")
          .expect_null("/pytorch/gpu_available")
          .expect_null("/pytorch/visible_device_count")
          .expect_null("/host")
          .expect_null("/error")
          .expect_not_null("/execution/timings_ms/load")
          .expect_not_null("/execution/timings_ms/device_init")
          .expect_not_null("/execution/timings_ms/compute")
          .expect_stderr_contains("CPU_CHECK_PASSED"),
      Case("gpu_pass_simulated")
          .guards("a verified GPU computation is GPU_CHECK_PASSED (0), synchronized, with the "
                  "allocator's counters")
          .with_fault("gpus=1")
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/execution/device", "cuda:0")
          .expect_field("/execution/synchronized", true)
          .expect_not_null("/execution/memory/allocated_bytes"),
      Case("wrong_product")
          .guards("a wrong product is CHECK_FAILED (8), never a pass")
          .with_fault("product=wrong")
          .outcome("CHECK_FAILED", "compute")
          .expect_field("/execution/product_verified", false)
          .expect_field("/error/type", "CheckMismatch"),
      Case("nan_gradient")
          .guards("a NaN in the gradient is CHECK_FAILED (8)")
          .with_fault("gradient=nan")
          .outcome("CHECK_FAILED", "compute")
          .expect_field("/execution/product_verified", true)
          .expect_field("/execution/gradient_verified", false),
      Case("inf_loss")
          .guards("an infinite loss is CHECK_FAILED (8)")
          .with_fault("loss=inf")
          .outcome("CHECK_FAILED", "compute"),
      Case("wrong_product_on_cpu")
          .guards("the CPU path is verified as strictly as the GPU path")
          .with_fault("product=wrong")
          .args({"--device", "cpu"})
          .outcome("CHECK_FAILED", "compute"),
      Case("unsynchronized_gpu_read")
          .guards("on a GPU the device is synchronized before results are read")
          .with_fault("sync=0")
          .outcome("CHECK_FAILED", "compute"),
      Case("out_of_memory_computing")
          .guards("an allocation failing in the computation is OUT_OF_MEMORY (9) at stage compute")
          .with_fault("oom=compute")
          .outcome("OUT_OF_MEMORY", "compute")
          .expect_field_contains("/error/message", "out of memory")
          .expect_field_lacks("/error/message", "Exception raised"),
      Case("runtime_error_computing")
          .guards("a backend error in the computation is RUNTIME_ERROR (9); its message keeps the "
                  "first line with paths cut to file names")
          .with_fault("error=compute")
          .outcome("RUNTIME_ERROR", "compute")
          .expect_field_contains("/error/message", "kernel.cu:42")
          .expect_field_lacks("/error/message", "/")
          .expect_field_lacks("/error/message", "second line"),
      Case("worker_crash")
          .guards("a worker that dies is WORKER_FAILED (11) at the last stage reached, and says how")
          .with_fault("crash=compute")
          .outcome("WORKER_FAILED", "compute")
          .expect_field("/error/type", "WorkerFailed")
          .expect_field_contains("/error/message", "SIGSEGV")
          .expect_field_contains("/message", "compute stage (killed by signal SIGSEGV)"),
      Case("worker_crash_in_backend")
          .guards("WORKER_FAILED names the stage the worker had reached")
          .with_fault("crash=backend")
          .outcome("WORKER_FAILED", "backend"),
      Case("worker_exit_without_verdict")
          .guards("a worker that exits without a verdict is WORKER_FAILED (11)")
          .with_fault("exit=compute")
          .outcome("WORKER_FAILED", "compute"),
      Case("worker_speaks_garbage")
          .guards("a worker whose report is unusable is WORKER_FAILED (11)")
          .with_fault("garbage=compute")
          .outcome("WORKER_FAILED", "compute"),
      gpu_fault("cause_no_kernel_image", 209, "NoKernelImage",
                "no kernel image for this GPU's architecture (compute capability 9.0); the build "
                "lacks it",
                "Install a libtorch built for compute capability 9.0")
          .expect_field_contains("/error/message",
                                 "no kernel image is available for execution on the device"),
      gpu_fault("cause_illegal_memory_access", 700, "GpuFault",
                "failed with a GPU fault (error 700", "Check dmesg for Xid errors and drain the node")
          .expect_field_contains("/error/message", "an illegal memory access was encountered"),
      gpu_fault("cause_launch_failure", 719, "GpuFault",
                "failed with a GPU fault (error 719", "Check dmesg for Xid errors and drain the node")
          .expect_field_contains("/error/message", "unspecified launch failure"),
      gpu_fault("cause_uncorrectable_ecc", 214, "UncorrectableEcc",
                "the GPU reported an uncorrectable ECC memory error",
                "Drain the node and have the GPU checked"),
      gpu_fault("cause_ptx_too_new", 222, "PtxTooNew",
                "PTX was built by a newer CUDA toolchain than the driver supports (the driver "
                "supports CUDA 13.2; error 222)",
                "Update the GPU driver to one that supports this libtorch's CUDA release")
          .expect_field_contains("/error/message",
                                 "the provided PTX was compiled with an unsupported toolchain"),
      rocm_fault("cause_rocm_architecture_missing", 98, "gfx1031", 100301)
          .env("HSA_OVERRIDE_GFX_VERSION", "10.3.1")
          .expect_field("/error/evidence/rocm/hsa_override_gfx_version", "version")
          .expect_field_contains("/error/message", "invalid device function")
          .expect_field_contains("/message", "HSA_OVERRIDE_GFX_VERSION is set, and the target it "
                                             "names is not in the build either")
          .expect_report_lacks("10.3.1"),
      rocm_fault("cause_rocm_no_binary_for_gpu", 209, "gfx90a", 90010)
          .expect_null("/error/evidence/rocm/hsa_override_gfx_version")
          .expect_field_lacks("/message", "is set"),
      Case("worker_floods_output")
          .guards("a worker printing megabytes neither blocks the check nor reaches its stdout")
          .with_fault("flood=compute")
          .outcome("GPU_CHECK_PASSED", "complete")
          .within(20),
  };
}

}  // namespace

KERNODECK_LAYER(compute, compute_cases());
