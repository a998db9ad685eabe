// Layer "host": the optional nvidia-smi host check. Informative only: it is
// bounded at 3 s of its own, ends every process it starts, and never changes
// the exit code.
#include "layer_test.hpp"

namespace {

using kdh::Case;

Case host_case(const std::string& id, const std::string& smi_folder, const std::string& status,
               kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .env("PATH", "{fixtures}/" + smi_folder + ":/usr/bin:/bin")
      .with_fault("gpus=1")
      .args({"--device", "cpu", "--host-check"})
      .outcome("CPU_CHECK_PASSED", "complete")
      .expect_field("/requested/host_check", true)
      .expect_field("/host/tool", "nvidia-smi")
      .expect_field("/host/status", status);
}

std::vector<Case> host_cases() {
  return {
      host_case("nvidia_smi_absent", "empty-bin", "not_found")
          .guards("without nvidia-smi on PATH the host check says not_found; the exit code stays")
          .env("PATH", "{fixtures}/empty-bin")
          .expect_null("/host/driver_version")
          .expect_null("/host/memory_total_mib"),
      host_case("nvidia_smi_answers", "nvidia-smi-ok", "ok")
          .guards("the host check reports the driver version and the total memory nvidia-smi sees")
          .expect_field("/host/driver_version", "550.54.15")
          .expect_field("/host/memory_total_mib", 163118),
      Case("nvidia_smi_hangs")
          .guards("a hanging nvidia-smi is stopped after 3 s, with its children; the verdict stands")
          .with_fault("gpus=1")
          .env("PATH", "{fixtures}/nvidia-smi-hang:/usr/bin:/bin")
          .args({"--host-check"})
          .outcome("GPU_CHECK_PASSED", "complete")
          .expect_field("/host/status", "timeout")
          .expect_null("/host/driver_version")
          .at_least(3.0)
          .within(3.6),
      host_case("nvidia_smi_garbage", "nvidia-smi-garbage", "failed")
          .guards("nvidia-smi output that cannot be read is failed, never invented values")
          .expect_null("/host/driver_version")
          .expect_null("/host/memory_total_mib"),
      host_case("nvidia_smi_fails", "nvidia-smi-fail", "failed")
          .guards("a failing nvidia-smi is failed; the check's verdict stands")
          .expect_null("/host/driver_version"),
      Case("host_check_never_changes_exit_code")
          .guards("the host check's outcome never changes the exit code")
          .with_fault("product=wrong")
          .env("PATH", "{fixtures}/nvidia-smi-ok:/usr/bin:/bin")
          .args({"--host-check"})
          .outcome("CHECK_FAILED", "compute")
          .expect_field("/host/status", "ok"),
      Case("host_null_without_flag")
          .guards("host is null when --host-check is not given, even with nvidia-smi on PATH")
          .env("PATH", "{fixtures}/nvidia-smi-ok:/usr/bin:/bin")
          .with_fault("gpus=1")
          .args({"--device", "cpu"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_null("/host"),
  };
}

}  // namespace

KERNODECK_LAYER(host, host_cases());
