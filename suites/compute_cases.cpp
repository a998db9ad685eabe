// Layer "compute": the fixed computation (2x2 product, loss 196, gradient),
// verified exactly, and every way a worker can fail while computing.
#include "layer_test.hpp"

namespace {

using kdh::Case;

// The computation fails on the GPU as the runtime's error `number` does
// (fault probe: no GPU here); the check names the cause from the number.
Case gpu_fault(const std::string& id, int number, const std::string& type,
               const std::string& what, const std::string& next_action) {
  return Case(id)
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
      Case("worker_floods_output")
          .guards("a worker printing megabytes neither blocks the check nor reaches its stdout")
          .with_fault("flood=compute")
          .outcome("GPU_CHECK_PASSED", "complete")
          .within(20),
  };
}

}  // namespace

KERNODECK_LAYER(compute, compute_cases());
