// Layer "cli": the command line. Usage errors exit 2 with a message on
// stderr and nothing on stdout, write no file and start no worker.
#include "layer_test.hpp"
#include "requirements.hpp"

namespace {

using kdh::Case;
using Kind = kdh::FileExpect::Kind;

Case usage(const std::string& id, std::vector<std::string> args, const std::string& says,
           kdh::Where where = kdh::Where::here()) {
  return Case(id, where)
      .guards("Usage errors: a clear message on stderr, exit 2, nothing on stdout, no file "
              "written, no worker started")
      .args(std::move(args))
      .usage_error(says)
      .expect_no_new_files()
      .expect_no_worker()
      .within(2.0);
}

std::vector<Case> cli_cases() {
  return {
      Case("help_prints_usage")
          .guards("--help describes every option on stdout and exits 0")
          .args({"--help"})
          .expect_exit(0)
          .expect_text_stdout()
          .expect_stdout_contains("--device cuda|cpu")
          .expect_stdout_contains("--device-index")
          .expect_stdout_contains("--timeout")
          .expect_stdout_contains("--output")
          .expect_stdout_contains("--host-check")
          .expect_stdout_contains("--import")
          .expect_stdout_contains("--weights")
          .expect_stdout_contains("--dtype")
          .expect_stdout_contains("--version"),
      Case("version_prints_version")
          .guards("--version prints the check's name and version and exits 0")
          .args({"--version"})
          .expect_exit(0)
          .expect_text_stdout()
          .expect_stdout_contains("kernodeck-diagnostic 1."),
      usage("unknown_option", {"--frobnicate"}, "--frobnicate"),
      usage("positional_argument", {"--device", "cpu", "extra"}, "extra"),
      usage("device_rocm_names_cuda", {"--device", "rocm"}, "cuda"),
      usage("device_hip_names_cuda", {"--device", "hip"}, "cuda"),
      usage("device_unknown", {"--device", "tpu"}, "tpu"),
      usage("device_missing_value", {"--device"}, "--device"),
      usage("device_repeated", {"--device", "cpu", "--device", "cuda"}, "--device"),
      usage("index_not_a_number", {"--device-index", "first"}, "--device-index"),
      usage("index_fraction", {"--device-index", "1.5"}, "--device-index"),
      usage("index_hexadecimal", {"--device-index", "0x1"}, "--device-index"),
      usage("index_overflow", {"--device-index", "99999999999999999999"}, "--device-index"),
      usage("timeout_below_5", {"--timeout", "4.9"}, "--timeout"),
      usage("timeout_above_120", {"--timeout", "120.5"}, "--timeout"),
      usage("timeout_zero", {"--timeout", "0"}, "--timeout"),
      usage("timeout_negative", {"--timeout", "-30"}, "--timeout"),
      usage("timeout_nan", {"--timeout", "nan"}, "--timeout"),
      usage("timeout_inf", {"--timeout", "inf"}, "--timeout"),
      usage("timeout_not_a_number", {"--timeout", "thirty"}, "--timeout"),
      usage("timeout_empty", {"--timeout", ""}, "--timeout"),
      usage("output_missing_value", {"--output"}, "--output"),
      usage("output_empty_name", {"--output", ""}, "--output"),
      usage("import_not_a_module_name", {"--device", "cpu", "--import", "torch vision"}, "--import"),
      usage("import_missing_value", {"--device", "cpu", "--import"}, "--import"),
      usage("import_with_the_fault_probe", {"--device", "cpu", "--import", "torchvision"},
            "fault-injection probe")
          .with_fault("gpus=1"),
      usage("weights_empty_name", {"--device", "cpu", "--weights", ""}, "--weights"),
      usage("weights_with_the_fault_probe", {"--device", "cpu", "--weights", "model.pt"},
            "fault-injection probe")
          .with_fault("gpus=1"),
      usage("dtype_unknown", {"--device", "cpu", "--dtype", "half"},
            "--dtype takes one of float16, bfloat16, float8_e4m3fn, float8_e5m2, float32, "
            "float64, not 'half'"),
      usage("dtype_missing_value", {"--device", "cpu", "--dtype"}, "--dtype"),
      usage("dtype_with_the_fault_probe", {"--device", "cpu", "--dtype", "float16"},
            "fault-injection probe")
          .with_fault("gpus=1"),
      usage("dtype_with_the_stable_probe", {"--device", "cpu", "--dtype", "float16"},
            "the interpreter of the application or the compiled probe")
          .needs(kdh::Requirement::StableProbe)
          // A torch folder named: the stable probe serves, and refuses before anything loads.
          .directory("torch")
          .env("KERNODECK_TORCH_DIR", "{tmp}/torch"),
      usage("import_with_the_compiled_probe", {"--device", "cpu", "--import", "torchvision"},
            "compiled probe")
          .needs(kdh::Requirement::CompiledProbe),
      usage("usage_error_writes_no_file",
            {"--device", "cpu", "--output", "{tmp}/report.json", "--timeout", "1"}, "--timeout")
          .expect_file(Kind::Absent, "report.json"),
      usage("unknown_option_with_output",
            {"--device", "cpu", "--output", "{tmp}/report.json", "--frobnicate"}, "--frobnicate")
          .expect_file(Kind::Absent, "report.json"),
      Case("timeout_5_accepted")
          .guards("--timeout accepts 5 to 120 inclusive")
          .with_fault("gpus=1")
          .args({"--device", "cpu", "--timeout", "5"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/requested/timeout_s", 5),
      Case("timeout_120_accepted")
          .guards("--timeout accepts 5 to 120 inclusive")
          .with_fault("gpus=1")
          .args({"--device", "cpu", "--timeout", "120"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/requested/timeout_s", 120),
      Case("timeout_fraction_accepted")
          .guards("--timeout is a number of seconds, not only an integer")
          .with_fault("gpus=1")
          .args({"--device", "cpu", "--timeout", "7.5"})
          .outcome("CPU_CHECK_PASSED", "complete")
          .expect_field("/requested/timeout_s", 7.5),
  };
}

}  // namespace

KERNODECK_LAYER(cli, cli_cases());
