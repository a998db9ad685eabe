#include "run/cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "run/version.hpp"

namespace kd {
namespace {

// "5 to 120", from the limits themselves.
std::string timeout_range() {
  return seconds_text(kMinTimeoutS) + " to " + seconds_text(kMaxTimeoutS);
}

// CLI11 accepts hexadecimal, surrounding spaces and saturates on overflow;
// the contract wants plain numbers, so values are checked here, strictly.
std::optional<long long> parse_integer(const std::string& text) {
  long long value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (first == last) return std::nullopt;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return value;
}

std::optional<double> parse_seconds(const std::string& text) {
  double value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (first == last) return std::nullopt;
  auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::fixed);
  if (ec != std::errc() || ptr != last || !std::isfinite(value)) return std::nullopt;
  return value;
}

// A dotted Python name of ASCII identifiers: "torchvision", "torch_scatter", "a.b_c".
bool is_module_name(const std::string& text) {
  if (text.empty() || text.size() > 200) return false;
  bool start = true;
  for (char c : text) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (c == '.') {
      if (start) return false;
      start = true;
    } else if (letter || (digit && !start)) {
      start = false;
    } else {
      return false;
    }
  }
  return !start;
}

std::string with_hint(const std::string& message) {
  return "kernodeck-diagnostic: error: " + message +
         "\nRun 'kernodeck-diagnostic --help' for usage.";
}

}  // namespace

std::string seconds_text(double seconds) {
  if (std::floor(seconds) == seconds) return std::to_string(static_cast<long long>(seconds));
  char text[32];
  // The shortest text that reads back as the same number, in any locale.
  auto [end, ec] = std::to_chars(text, text + sizeof text, seconds);
  return ec == std::errc() ? std::string(text, end) : std::to_string(seconds);
}

std::string joined_precisions() {
  std::string text;
  for (std::string_view name : kPrecisions) text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

namespace {

// The command line as written, before its values are checked.
struct Written {
  std::string device = device_name(Options{}.device);
  std::string index_text = std::to_string(Options{}.device_index);
  std::string timeout_text = seconds_text(Options{}.timeout_s);
  std::string output;
  bool output_given = false;
  bool host_check = false;
  std::vector<std::string> imports;
  std::vector<std::string> weights;
  std::vector<std::string> dtypes;
  bool compile = false;
};

void add_options(CLI::App& app, Written& w) {
  app.add_option("--device", w.device,
                 "cuda (default: a GPU is required; ROCm builds also use cuda) or cpu")
      ->type_name("cuda|cpu");
  app.add_option("--device-index", w.index_text, "which visible GPU, default 0")->type_name("N");
  app.add_option("--timeout", w.timeout_text,
                 "limit in seconds for loading, detection and computation, " + timeout_range() +
                     ", default " + seconds_text(Options{}.timeout_s))
      ->type_name("SECONDS");
  app.add_option("--output", w.output, "also write the report to this new file (never overwritten)")
      ->type_name("FILE");
  // A flag given twice is refused like any other repeated option.
  app.add_flag("--host-check", w.host_check,
               "also ask nvidia-smi for the driver version and total memory (informative)")
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  app.add_option("--import", w.imports,
                 "after the computation, also import this module of the application in the same "
                 "interpreter and torch (repeatable; the python probe only)")
      ->type_name("MODULE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--weights", w.weights,
                 "after the computation, also open this weights file as the application loads "
                 "it, never running code from it (repeatable; the python probe only)")
      ->type_name("FILE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--dtype", w.dtypes,
                 "after the weights, also run the computation in this precision (" +
                     joined_precisions() +
                     "; repeatable; the weights' own dtypes are added; the python probe only)")
      ->type_name("NAME")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_flag("--compile", w.compile,
               "after the computation, run it a second time through torch.compile and verify it "
               "(a first compile takes tens of seconds: raise --timeout; the python probe only)")
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  app.set_version_flag("--version", std::string("kernodeck-diagnostic ") + kToolVersion);
}

std::optional<UsageError> device_of(const std::string& device, Options& options) {
  if (device == "cpu") {
    options.device = Device::Cpu;
  } else if (device == "cuda") {
    options.device = Device::Cuda;
  } else if (device == "rocm" || device == "hip") {
    return UsageError{with_hint("--device " + device +
                                " is not a device name: ROCm builds of libtorch also use the "
                                "name 'cuda'; run with --device cuda")};
  } else {
    return UsageError{with_hint("--device must be 'cuda' or 'cpu', not '" + device + "'")};
  }
  return std::nullopt;
}

// The values checked strictly, as the contract wants them.
ParseResult options_of(const Written& w) {
  Options options;
  if (auto error = device_of(w.device, options)) return *error;
  auto index = parse_integer(w.index_text);
  if (!index) {
    return UsageError{with_hint("--device-index must be a whole number, not '" + w.index_text +
                                "'")};
  }
  options.device_index = *index;
  auto timeout = parse_seconds(w.timeout_text);
  if (!timeout || *timeout < kMinTimeoutS || *timeout > kMaxTimeoutS) {
    return UsageError{with_hint("--timeout must be a number of seconds from " + timeout_range() +
                                ", not '" + w.timeout_text + "'")};
  }
  options.timeout_s = *timeout;
  if (w.output_given) {
    if (w.output.empty()) return UsageError{with_hint("--output needs a file name")};
    options.output = w.output;
  }
  options.host_check = w.host_check;
  options.compile = w.compile;
  for (const std::string& module : w.imports) {
    if (!is_module_name(module)) {
      return UsageError{with_hint("--import takes a module's dotted Python name "
                                  "(torchvision, torchvision.ops), not '" + module + "'")};
    }
    if (std::find(options.imports.begin(), options.imports.end(), module) == options.imports.end()) {
      options.imports.push_back(module);
    }
  }
  for (const std::string& file : w.weights) {
    if (file.empty()) return UsageError{with_hint("--weights needs a file name")};
    if (std::none_of(options.weights.begin(), options.weights.end(),
                     [&file](const WeightsAsked& asked) { return asked.path == file; })) {
      options.weights.push_back(weights_asked(file));
    }
  }
  for (const std::string& dtype : w.dtypes) {
    if (std::find(kPrecisions.begin(), kPrecisions.end(), dtype) == kPrecisions.end()) {
      return UsageError{with_hint("--dtype takes one of " + joined_precisions() + ", not '" +
                                  dtype + "'")};
    }
    if (std::find(options.dtypes.begin(), options.dtypes.end(), dtype) == options.dtypes.end()) {
      options.dtypes.push_back(dtype);
    }
  }
  return options;
}

}  // namespace

ParseResult parse_command_line(const std::vector<std::string>& args) {
  CLI::App app{
      "Finds the first failing layer of a libtorch installation: loading libtorch, backend and\n"
      "device, then a tiny real computation on the chosen device, in a worker process with a\n"
      "time limit. Prints a JSON report on stdout; see README.md for the exit codes.",
      "kernodeck-diagnostic"};
  Written written;
  add_options(app, written);
  // CLI11 takes argc/argv; its messages then list arguments in their order.
  std::vector<const char*> argv{"kernodeck-diagnostic"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    return InfoRequest{app.help()};
  } catch (const CLI::CallForVersion& e) {
    return InfoRequest{e.what()};
  } catch (const CLI::ParseError& e) {
    return UsageError{with_hint(e.what())};
  }
  written.output_given = app.count("--output") > 0;
  return options_of(written);
}

}  // namespace kd
