#include "contract/report_rules.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "contract/table.hpp"

namespace kdh {

json value_at(const json& report, const std::string& pointer) {
  json::json_pointer ptr(pointer);
  return report.contains(ptr) ? report.at(ptr) : json();
}

namespace {

// error.evidence's keys (CONTRACT.md, "The report"), every one the check may write.
const std::vector<std::string>& evidence_keys() {
  static const std::vector<std::string> keys{
      "/error/evidence",
      "/error/evidence/runtime",
      "/error/evidence/runtime/api",
      "/error/evidence/runtime/error",
      "/error/evidence/runtime/error_name",
      "/error/evidence/runtime/driver_version",
      "/error/evidence/runtime/runtime_version",
      "/error/evidence/driver_library",
      "/error/evidence/kernel_module",
      "/error/evidence/device_nodes",
      "/error/evidence/device_nodes/nvidiactl",
      "/error/evidence/device_nodes/nvidia_uvm",
      "/error/evidence/device_nodes/nvidia_gpus",
      "/error/evidence/device_nodes/nvidia_gpus_accessible",
      "/error/evidence/device_nodes/kfd",
      "/error/evidence/device_nodes/render_nodes",
      "/error/evidence/device_nodes/render_nodes_accessible",
      "/error/evidence/device_nodes/dxg",
      "/error/evidence/visible_devices",
      "/error/evidence/visible_devices/CUDA_VISIBLE_DEVICES",
      "/error/evidence/visible_devices/NVIDIA_VISIBLE_DEVICES",
      "/error/evidence/visible_devices/HIP_VISIBLE_DEVICES",
      "/error/evidence/visible_devices/ROCR_VISIBLE_DEVICES",
      "/error/evidence/library",
      "/error/evidence/library/name",
      "/error/evidence/library/found",
      "/error/evidence/library/machine",
      "/error/evidence/library/size",
      "/error/evidence/library/needed_size",
      "/error/evidence/library/damage",
      "/error/evidence/library/folder",
      "/error/evidence/device_cgroup",
      "/error/evidence/device_cgroup/hierarchy",
      "/error/evidence/device_cgroup/devices_list",
      "/error/evidence/device_cgroup/nvidiactl_refused",
      "/error/evidence/device_cgroup/nvidia_uvm_refused",
      "/error/evidence/device_cgroup/nvidia_gpus_refused",
      "/error/evidence/device_cgroup/kfd_refused",
      "/error/evidence/device_cgroup/render_nodes_refused",
      "/error/evidence/user_namespace",
      "/error/evidence/user_namespace/gid_map",
      "/error/evidence/user_namespace/unmapped_group_nodes",
      "/error/evidence/driver_files",
      "/error/evidence/driver_files/libcuda_so_1",
      "/error/evidence/driver_files/libcuda_file",
      "/error/evidence/driver_files/libcuda_folder",
      "/error/evidence/driver_files/libcuda_version_without_link",
      "/error/evidence/driver_files/libnvidia_ml_so_1",
      "/error/evidence/wsl_kernel",
      "/error/evidence/rocm",
      "/error/evidence/rocm/gfx_target",
      "/error/evidence/rocm/hsa_override_gfx_version",
  };
  return keys;
}

// Keys the check adds to the contract's, all of them harmless.
const std::set<std::string>& allowed_extra_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> extra{
        "/tool/probe",
        "/runtime/check_build/compiler",
        "/runtime/check_build/cxx_standard",
        "/runtime/check_build/build_type",
        "/execution/memory/allocated_bytes",
        "/execution/memory/reserved_bytes",
        "/host/tool",
        "/host/status",
        "/host/driver_version",
        "/host/memory_total_mib",
        "/error/type",
        "/error/message",
        "/application/extensions",
        "/application/weights",
        // Added with the application's precisions and memory: a report of an earlier check
        // has none of them.
        "/requested/dtypes",
        "/memory_by_stage",
        "/memory_by_stage/import",
        "/memory_by_stage/compute",
        "/memory_by_stage/application",
        "/application/precisions",
        "/application/memory",
        "/application/memory/weights_bytes",
        "/application/memory/available_bytes",
        "/application/memory/limited_by",
        "/application/memory/fits",
        "/execution/compile/backend",
        "/execution/compile/seconds",
        "/execution/compile/verified",
    };
    for (const char* library : {"cudnn", "nccl", "miopen", "rccl"}) {
      for (const char* key : {"compiled", "runtime", "accepted", "origin", "source", "pinned"}) {
        extra.insert(std::string("/pytorch/") + library + "/" + key);
      }
    }
    for (const char* stage : {"import", "compute", "application"}) {
      for (const char* key : {"rss_bytes", "allocated_bytes", "reserved_bytes"}) {
        extra.insert(std::string("/memory_by_stage/") + stage + "/" + key);
      }
    }
    extra.insert(evidence_keys().begin(), evidence_keys().end());
    return extra;
  }();
  return keys;
}

// error.evidence holds fixed words, counts and version tokens only
// (CONTRACT.md, "The report"): a path, a value with spaces or any longer text
// there is a leak, whatever it says.
void check_evidence(const json& evidence, const std::string& where,
                    std::vector<std::string>& problems) {
  if (evidence.is_object()) {
    for (const auto& [key, value] : evidence.items()) check_evidence(value, where + "/" + key, problems);
    return;
  }
  if (!evidence.is_string()) return;
  const std::string& text = evidence.get_ref<const std::string&>();
  bool token = !text.empty() && text.size() <= 64;
  for (char c : text) {
    token = token && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                      c == '-' || c == '+');
  }
  if (!token) problems.push_back(where + " is not a word or version token: " + evidence.dump());
}

std::string show(const json& v) { return v.dump(); }

std::string arg_value(const std::vector<std::string>& args, const std::string& name) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == name) return args[i + 1];
  }
  return {};
}
// Every value given to a repeatable option, in order.
std::vector<std::string> arg_values(const std::vector<std::string>& args, const std::string& name) {
  std::vector<std::string> values;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == name) values.push_back(args[i + 1]);
  }
  return values;
}

// A name or version token ([0-9A-Za-z._+-]), with `more` characters allowed besides.
bool is_token(const std::string& text, const std::string& more) {
  if (text.empty() || text.size() > 64) return false;
  for (char c : text) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                    c == '-' || c == '+' || more.find(c) != std::string::npos;
    if (!ok) return false;
  }
  return true;
}

bool has_arg(const std::vector<std::string>& args, const std::string& name) {
  return std::find(args.begin(), args.end(), name) != args.end();
}

void collect_pointers(const json& value, const std::string& prefix, std::vector<std::string>& out) {
  if (!value.is_object()) return;
  for (const auto& [key, child] : value.items()) {
    out.push_back(prefix + "/" + key);
    collect_pointers(child, prefix + "/" + key, out);
  }
}

// The contract's invariants of every report, whatever the case (given the
// check's arguments): one method per part of the report.
class ReportShape {
 public:
  ReportShape(const std::vector<std::string>& arguments, const json& report,
              std::vector<std::string>& problems)
      : arguments_(arguments), report_(report), problems_(problems) {}

  void check(int exit_code, bool exited) {
    keys();
    const bool passed = outcome(exit_code, exited);
    if (passed) {
      pass();
    } else if (!at("/error").is_object() || !at("/error/message").is_string() ||
               at("/error/message").get<std::string>().empty()) {
      problem("a failure without an error {type, message} saying why");
    }
    if (!at("/message").is_string() || at("/message").get<std::string>().empty()) {
      problem("/message is empty");
    }
    const std::string device = requested();
    device_mode(device);
    check_evidence(at("/error/evidence"), "/error/evidence", problems_);
    application(passed);
    warnings();
  }

 private:
  void problem(std::string p) { problems_.push_back(std::move(p)); }

  json at(const std::string& p) const { return value_at(report_, p); }

  // Every key of the contract, and no other.
  void keys() {
    for (const auto& key : contract_report_keys()) {
      if (!report_.contains(json::json_pointer(key))) problem("report lacks " + key);
    }
    std::vector<std::string> pointers;
    collect_pointers(report_, "", pointers);
    std::set<std::string> known(contract_report_keys().begin(), contract_report_keys().end());
    for (const auto& p : pointers) {
      if (!known.count(p) && !allowed_extra_keys().count(p)) {
        problem("report has a key the contract does not know: " + p);
      }
    }
  }

  // Schema, tool, code, exit code, status and stage agree with the contract
  // and the process; true for a pass.
  bool outcome(int exit_code, bool exited) {
    if (at("/schema_version") != 1) problem("/schema_version is not 1");
    if (at("/tool/name") != "kernodeck-diagnostic") problem("/tool/name is wrong");
    const json code = at("/code");
    const int contract_exit =
        code.is_string() ? contract_exit_code(code.get<std::string>()).value_or(-1) : -1;
    if (contract_exit < 0) {
      problem("/code " + show(code) + " is not an outcome of the contract");
    } else if (exited && contract_exit != exit_code) {
      problem("/code " + show(code) + " must exit " + std::to_string(contract_exit) +
              ", the process exited " + std::to_string(exit_code));
    }
    if (exited && at("/exit_code") != exit_code) {
      problem("/exit_code " + show(at("/exit_code")) + " differs from the process's " +
              std::to_string(exit_code));
    }
    const bool passed = contract_exit == 0;
    if (at("/status") != (passed ? "passed" : "failed")) {
      problem("/status " + show(at("/status")) + " does not match code " + show(code));
    }
    const json stage = at("/stage");
    if (!stage.is_string() || !is_contract_stage(stage.get<std::string>())) {
      problem("/stage " + show(stage) + " is not a stage of the contract");
    }
    return passed;
  }

  // A pass is complete, names its GPU, carries no error and shows the
  // verified computation.
  void pass() {
    if (at("/stage") != "complete") problem("a pass must be at stage complete");
    if (at("/code") == "GPU_CHECK_PASSED") {
      for (const char* p : {"/execution/device_name", "/execution/capability"}) {
        if (!at(p).is_string() || at(p).get<std::string>().empty()) {
          problem(std::string("a GPU pass must name its GPU: ") + p + " is " + show(at(p)));
        }
      }
    }
    if (!at("/error").is_null()) problem("a pass carries an error: " + show(at("/error")));
    if (at("/execution/product_verified") != true || at("/execution/gradient_verified") != true ||
        at("/execution/loss") != kContractLoss) {
      problem("a pass without a verified product, gradient and loss " + show(kContractLoss));
    }
  }

  // `requested` says what was asked, as given; returns the device asked.
  std::string requested() {
    const auto& a = arguments_;
    std::string device = has_arg(a, "--device") ? arg_value(a, "--device") : "cuda";
    if (at("/requested/device") != device) {
      problem("/requested/device " + show(at("/requested/device")) + " but " + device +
              " was asked");
    }
    if (at("/requested/host_check") != has_arg(a, "--host-check")) {
      problem("/requested/host_check does not reflect --host-check");
    }
    if (at("/output/requested") != has_arg(a, "--output")) {
      problem("/output/requested does not reflect --output");
    }
    if (at("/requested/compile") != has_arg(a, "--compile")) {
      problem("/requested/compile does not reflect --compile");
    }
    if (!has_arg(a, "--compile") && !at("/execution/compile").is_null()) {
      problem("/execution/compile is not null although --compile was not given");
    }
    if (has_arg(a, "--compile") && at("/status") == "passed" &&
        at("/execution/compile/verified") != true) {
      problem("a pass with --compile without its computation verified through torch.compile");
    }
    if (at("/requested/weights") != json(requested_files())) {
      problem("/requested/weights " + show(at("/requested/weights")) +
              " does not list the base names of the files of --weights in order");
    }
    if (at("/requested/imports") != json(arg_values(a, "--import"))) {
      problem("/requested/imports " + show(at("/requested/imports")) +
              " does not list the modules of --import in order");
    }
    if (!has_arg(a, "--host-check") && !at("/host").is_null()) {
      problem("/host is not null although --host-check was not given");
    }
    if (has_arg(a, "--host-check")) {
      static const std::set<std::string> statuses{"ok", "not_found", "timeout", "failed"};
      json st = at("/host/status");
      if (!st.is_string() || !statuses.count(st.get<std::string>())) {
        problem("/host/status " + show(st) + " is not ok/not_found/timeout/failed");
      }
    }
    return device;
  }

  // `application` (the application layer, after the computation): null before it is reached;
  // a pass of the python probe has it; each module asked is listed under its name; every field
  // of an extension is of its type, its strings names, versions or a specifier, never a path.
  void application(bool passed) {
    const json block = at("/application");
    const std::vector<std::string> asked = arg_values(arguments_, "--import");
    const std::string stage = at("/stage").is_string() ? at("/stage").get<std::string>() : "";
    const bool before = stage == "import" || stage == "backend" || stage == "device" ||
                        stage == "compute";
    if (!passed && before && !block.is_null()) {
      problem("/application is not null although the check stopped before the application stage");
    }
    if (passed && at("/tool/probe") == "python" && block.is_null()) {
      problem("a pass of the python probe without its /application block");
    }
    memory_by_stage(passed);
    if (block.is_null()) return;
    // {extensions, weights}, and since the application's precisions and memory also
    // {precisions, memory}: both or neither.
    const bool later = block.is_object() && block.contains("precisions");
    if (!block.is_object() || block.size() != (later ? 4u : 2u) ||
        !block.contains("extensions") || !block["extensions"].is_array() ||
        !block.contains("weights") || !block["weights"].is_array() ||
        (later && (!block["precisions"].is_array() || !block.contains("memory")))) {
      problem("/application is not {\"extensions\": [...], \"weights\": [...], \"precisions\": "
              "[...], \"memory\": ...}: " + show(block));
      return;
    }
    if (later) {
      precisions(block["precisions"], passed);
      memory(block["memory"], passed);
    }
    std::set<std::string> listed;
    for (const json& e : block["extensions"]) extension(e, listed);
    for (const std::string& module : asked) {
      if (!listed.count(module)) problem("/application/extensions lacks the module asked " + module);
    }
    std::vector<std::string> files;
    for (const json& w : block["weights"]) weights_file(w, files);
    if (files != requested_files()) {
      problem("/application/weights does not list the weights files asked, in order: " +
              show(block["weights"]));
    }
    for (const char* code : {"EXTENSION_IMPORT_FAILED", "WEIGHTS_UNUSABLE"}) {
      if (at("/code") == code && stage != "application") {
        problem(std::string(code) + " at stage " + show(at("/stage")) + ", not application");
      }
    }
  }

  // application.precisions: each {dtype, device, verified, seconds}, the dtype one --dtype takes;
  // every --dtype asked listed on a pass, each verified.
  void precisions(const json& list, bool passed) {
    static const std::set<std::string> names{"float16",     "bfloat16", "float8_e4m3fn",
                                             "float8_e5m2", "float32",  "float64"};
    std::set<std::string> listed;
    for (const json& p : list) {
      if (!p.is_object() || p.size() != 4 || !p.value("dtype", json()).is_string() ||
          !names.count(p["dtype"].get<std::string>()) || !p.value("device", json()).is_string() ||
          !p.value("verified", json()).is_boolean() || !p.contains("seconds") ||
          !(p["seconds"].is_null() || (p["seconds"].is_number() && p["seconds"] >= 0))) {
        problem("a precision is not {dtype, device, verified, seconds}: " + show(p));
        continue;
      }
      listed.insert(p["dtype"].get<std::string>());
      if (passed && p["verified"] != true) problem("a pass with a precision not verified: " + show(p));
    }
    for (const std::string& dtype : arg_values(arguments_, "--dtype")) {
      if (passed && !listed.count(dtype)) problem("a pass without the precision asked " + dtype);
    }
  }

  // application.memory: null without --weights; else its sizes, what binds, whether they fit.
  void memory(const json& m, bool passed) {
    if (m.is_null()) {
      if (passed && !arg_values(arguments_, "--weights").empty()) {
        problem("a pass with --weights without /application/memory");
      }
      return;
    }
    static const std::set<std::string> limits{"device", "cgroup", "available", "address_space"};
    const json limited = m.value("limited_by", json());
    if (!m.is_object() || m.size() != 4 || !m.value("weights_bytes", json()).is_number_unsigned() ||
        !(m.value("available_bytes", json()).is_null() ||
          m["available_bytes"].is_number_unsigned()) ||
        !(limited.is_null() || (limited.is_string() && limits.count(limited.get<std::string>()))) ||
        !(m.value("fits", json()).is_null() || m["fits"].is_boolean())) {
      problem("/application/memory is not {weights_bytes, available_bytes, limited_by, fits}: " +
              show(m));
      return;
    }
    if (passed && m["fits"] == false) problem("a pass with weights that do not fit: " + show(m));
    if (at("/error/type") == "WeightsExceedMemory" && m["fits"] != false) {
      problem("WeightsExceedMemory while /application/memory/fits is " + show(m["fits"]));
    }
  }

  // memory_by_stage: each stage null or {rss_bytes, allocated_bytes, reserved_bytes}, counts or
  // null; the allocator's null on the CPU; on a pass of a real probe the import's and the
  // computation's measured, the application's wherever the application stage ran.
  void memory_by_stage(bool passed) {
    const bool cpu = at("/requested/device") == "cpu";
    for (const char* stage : {"import", "compute", "application"}) {
      const json entry = at(std::string("/memory_by_stage/") + stage);
      if (entry.is_null()) continue;
      for (const char* key : {"rss_bytes", "allocated_bytes", "reserved_bytes"}) {
        const json v = entry.value(key, json());
        if (!v.is_null() && !v.is_number_unsigned()) {
          problem(std::string("/memory_by_stage/") + stage + "/" + key + " is " + show(v));
        }
        if (cpu && std::string(key) != "rss_bytes" && !v.is_null()) {
          problem(std::string("/memory_by_stage/") + stage + "/" + key + " on the CPU: " + show(v));
        }
      }
    }
    if (passed && at("/tool/probe") != "override" && report_.contains("memory_by_stage")) {
      for (const char* stage : {"import", "compute", "application"}) {
        const bool ran = std::string(stage) != "application" || !at("/application").is_null();
        if (ran && at(std::string("/memory_by_stage/") + stage).is_null()) {
          problem(std::string("a pass without /memory_by_stage/") + stage);
        }
      }
    }
  }

  // The base names of the weights files of --weights, as the report names them.
  std::vector<std::string> requested_files() const {
    std::vector<std::string> names;
    for (std::string path : arg_values(arguments_, "--weights")) {
      while (path.size() > 1 && path.back() == '/') path.pop_back();
      names.push_back(path.substr(path.rfind('/') + 1));
    }
    return names;
  }

  // One entry of application.weights: its base name, never a folder; its format a token; counts.
  void weights_file(const json& w, std::vector<std::string>& files) {
    static const std::vector<std::string> keys{"file",   "format",   "tensors", "bytes",
                                               "dtypes", "verified", "seconds"};
    if (!w.is_object() || w.size() != keys.size() || !w.value("file", json()).is_string()) {
      problem("a weights entry is not {file, format, tensors, bytes, dtypes, verified, seconds}: " +
              show(w));
      return;
    }
    const std::string file = w["file"].get<std::string>();
    if (file.find('/') != std::string::npos) problem("a weights entry names a folder: " + show(w));
    files.push_back(file);
    const json format = w.value("format", json());
    if (!format.is_null() && !(format.is_string() && is_token(format.get<std::string>(), ""))) {
      problem("a weights entry's format is no word: " + show(format));
    }
    for (const char* key : {"tensors", "bytes"}) {
      const json v = w.value(key, json());
      if (!v.is_null() && !(v.is_number_integer() && v.get<long long>() >= 0)) {
        problem(std::string("a weights entry's ") + key + " is " + show(v));
      }
    }
    const json dtypes = w.value("dtypes", json());
    if (!dtypes.is_array()) problem("a weights entry's dtypes is no list: " + show(dtypes));
    const json verified = w.value("verified", json());
    if (!verified.is_null() && !verified.is_boolean()) problem("a weights entry's verified is " + show(verified));
    if (at("/status") == "passed" && verified != true) {
      problem("a pass with a weights file not verified: " + show(w));
    }
  }

  void extension(const json& e, std::set<std::string>& listed) {
    static const std::vector<std::string> keys{"module",         "distribution",  "version",
                                               "requires_torch", "torch_matches", "imported",
                                               "seconds"};
    if (!e.is_object() || e.size() != keys.size()) {
      problem("an extension is not {" + std::string("module, distribution, version, requires_torch, "
              "torch_matches, imported, seconds}: ") + show(e));
      return;
    }
    for (const std::string& key : keys) {
      if (!e.contains(key)) problem("an extension lacks " + key + ": " + show(e));
    }
    for (const char* key : {"module", "distribution", "version"}) {
      const json v = e.value(key, json());
      if (!v.is_null() && !(v.is_string() && is_token(v.get<std::string>(), ""))) {
        problem(std::string("an extension's ") + key + " is no name or version: " + show(v));
      }
    }
    const json spec = e.value("requires_torch", json());
    if (!spec.is_null() && !(spec.is_string() && (spec.get<std::string>().empty() ||
                                                  is_token(spec.get<std::string>(), "*!=<>~,")))) {
      problem("an extension's requires_torch is no version specifier: " + show(spec));
    }
    for (const char* key : {"torch_matches", "imported"}) {
      const json v = e.value(key, json());
      if (!v.is_null() && !v.is_boolean()) problem(std::string("an extension's ") + key + " is " + show(v));
    }
    const json seconds = e.value("seconds", json());
    if (!seconds.is_null() && !(seconds.is_number() && seconds.get<double>() >= 0)) {
      problem("an extension's seconds is " + show(seconds));
    }
    if (e.value("requires_torch", json()).is_null() && !e.value("torch_matches", json()).is_null()) {
      problem("an extension without a requirement on torch says whether torch matches it");
    }
    if (e.value("module", json()).is_string()) listed.insert(e["module"].get<std::string>());
  }

  // `warnings`: what the check noticed without failing, each {stage, type, message}.
  void warnings() {
    const json list = at("/warnings");
    if (!list.is_array()) {
      problem("/warnings is not a list: " + show(list));
      return;
    }
    for (const json& w : list) {
      const bool ok = w.is_object() && w.size() == 3 && w.value("stage", json()).is_string() &&
                      is_contract_stage(w["stage"].get<std::string>()) &&
                      w.value("type", json()).is_string() &&
                      is_token(w["type"].get<std::string>(), "") &&
                      w.value("message", json()).is_string() &&
                      !w["message"].get<std::string>().empty();
      if (!ok) problem("a warning is not {stage, type, message}: " + show(w));
    }
  }

  // Where it ran, and the GPU facts, as the device asked allows.
  void device_mode(const std::string& device) {
    if (device != "cpu") {
      // A device that is not text is no GPU either; judged here, not thrown.
      const json ran = at("/execution/device");
      if (!ran.is_null() &&
          !(ran.is_string() && ran.get<std::string>().rfind("cuda:", 0) == 0)) {
        problem("asked for a GPU, ran on " + show(ran) + ": never silently the CPU");
      }
      return;
    }
    // CPU mode asks nothing of the GPU driver: "not asked" is null, never 0/false.
    for (const char* p : {"/pytorch/gpu_available", "/pytorch/visible_device_count"}) {
      if (!at(p).is_null()) problem(std::string(p) + " must be null in CPU mode");
    }
    if (!at("/execution/device").is_null() && at("/execution/device") != "cpu") {
      problem("asked for the CPU, ran on " + show(at("/execution/device")));
    }
    // The CPU has no GPU model or capability: null, never a made-up value.
    for (const char* p : {"/execution/device_name", "/execution/capability"}) {
      if (!at(p).is_null()) problem(std::string(p) + " must be null in CPU mode");
    }
  }

  const std::vector<std::string>& arguments_;
  const json& report_;
  std::vector<std::string>& problems_;
};

}  // namespace

void check_report_shape(const std::vector<std::string>& arguments, const json& report,
                        int exit_code, bool exited, std::vector<std::string>& problems) {
  ReportShape(arguments, report, problems).check(exit_code, exited);
}

std::vector<std::string> report_problems(const json& report, const std::vector<std::string>& args,
                                         std::optional<int> exit_code) {
  std::vector<std::string> problems;
  try {
    check_report_shape(args, report, exit_code.value_or(-1), exit_code.has_value(), problems);
    if (!exit_code && report.is_object()) {
      // No process to compare with: the report's own exit_code against its code.
      const json own = report.value("exit_code", json());
      const json code = report.value("code", json());
      const int expected =
          code.is_string() ? contract_exit_code(code.get<std::string>()).value_or(-1) : -1;
      if (!own.is_null() && !own.is_number_integer()) {
        problems.push_back("/exit_code " + show(own) + " is not an integer");
      } else if (expected >= 0 && own.is_number_integer() && own != expected) {
        problems.push_back("/exit_code " + show(own) + " but /code " + show(code) + " must exit " +
                           std::to_string(expected));
      }
    }
  } catch (const json::exception& e) {
    // A field of the wrong type stops the judging; the report does not hold.
    problems.push_back(std::string("the report could not be judged: ") + e.what());
  }
  return problems;
}

std::vector<std::string> arguments_from_report(const nlohmann::json& report) {
  using nlohmann::json;
  std::vector<std::string> args;
  if (!report.is_object()) return args;
  const json requested = report.value("requested", json());
  if (requested.is_object()) {
    const json device = requested.value("device", json());
    if (device.is_string()) args.insert(args.end(), {"--device", device.get<std::string>()});
    const json index = requested.value("device_index", json());
    if (index.is_number_integer()) args.insert(args.end(), {"--device-index", index.dump()});
    const json timeout = requested.value("timeout_s", json());
    if (timeout.is_number()) args.insert(args.end(), {"--timeout", timeout.dump()});
    if (requested.value("host_check", json()) == true) args.push_back("--host-check");
    if (requested.value("compile", json()) == true) args.push_back("--compile");
    const json imports = requested.value("imports", json());
    if (imports.is_array()) {
      for (const json& module : imports) {
        if (module.is_string()) args.insert(args.end(), {"--import", module.get<std::string>()});
      }
    }
    const json weights = requested.value("weights", json());
    if (weights.is_array()) {
      for (const json& file : weights) {
        if (file.is_string()) args.insert(args.end(), {"--weights", file.get<std::string>()});
      }
    }
    const json dtypes = requested.value("dtypes", json());
    if (dtypes.is_array()) {
      for (const json& dtype : dtypes) {
        if (dtype.is_string()) args.insert(args.end(), {"--dtype", dtype.get<std::string>()});
      }
    }
  }
  const json output = report.value("output", json());
  if (output.is_object() && output.value("requested", json()) == true) {
    args.insert(args.end(), {"--output", "{out}/report.json"});
  }
  return args;
}

std::vector<std::string> report_problems(const json& report) {
  return report_problems(report, arguments_from_report(report), std::nullopt);
}

}  // namespace kdh
