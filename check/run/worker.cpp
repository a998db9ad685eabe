#include "run/worker.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>
#include <utility>

#include "facts/protocol.hpp"
#include "stages/application/application.hpp"
#include "stages/application/precision.hpp"
#include "stages/backend/backend_libraries.hpp"
#include "stages/backend/backend_stage.hpp"
#include "stages/compile/compile_stage.hpp"
#include "stages/compute/compute.hpp"
#include "stages/device/device_stage.hpp"
#include "stages/import/load.hpp"
#include "util/files.hpp"

namespace kd {
namespace {

void write_line(int fd, const std::string& line) {
  // The parent is gone: nothing left to tell.
  if (write_all(fd, line + "\n") != 0) _exit(70);
}

}  // namespace

std::vector<std::string> worker_argv(const std::string& self_exe, const WorkerRequest& r) {
  std::vector<std::string> argv = {self_exe, std::string(kWorkerArg), device_name(r.device),
                                   std::to_string(r.index), r.probe_path};
  if (!r.torch_dir.empty()) argv.push_back(r.torch_dir);
  if (!r.dtypes.empty()) {
    std::string dtypes;
    for (const std::string& d : r.dtypes) dtypes += (dtypes.empty() ? "" : ",") + d;
    argv.push_back(std::string(kDtypesArg) + dtypes);
  }
  return argv;
}

bool parse_worker_argv(const std::vector<std::string>& given, WorkerRequest& r) {
  std::vector<std::string> args = given;
  // The precisions asked, last where there are any: "dtypes=float16,bfloat16".
  if (!args.empty() && args.back().rfind(kDtypesArg, 0) == 0) {
    std::string list = args.back().substr(std::string(kDtypesArg).size());
    args.pop_back();
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      if (comma == start) return false;
      r.dtypes.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  if ((args.size() != 4 && args.size() != 5) || args[0] != kWorkerArg) return false;
  if (args[1] == "cpu") {
    r.device = Device::Cpu;
  } else if (args[1] == "cuda") {
    r.device = Device::Cuda;
  } else {
    return false;
  }
  const std::string& idx = args[2];
  auto [ptr, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), r.index);
  if (ec != std::errc() || ptr != idx.data() + idx.size()) return false;
  r.probe_path = args[3];
  if (args.size() == 5) {
    r.torch_dir = args[4];
    if (r.torch_dir.empty()) return false;
  }
  return !r.probe_path.empty();
}


void run_stages(const kd_probe& probe, const WorkerRequest& request, FindingsSink& sink,
                const StageHooks& hooks) {
  Stages s(sink);
  kd_error err{};
  if (!backend_stage(probe, request, s, err)) return;
  if (hooks.after_backend && !hooks.after_backend(sink)) return;
  if (!device_stage(probe, request, s, err)) return;
  if (!compute_stage(probe, request, s, err)) return;
  // A probe in this process: its memory now (the python probe measures its own).
  const bool here = std::strcmp(probe.kind, KD_PROBE_KIND_LIBTORCH) == 0 ||
                    std::strcmp(probe.kind, KD_PROBE_KIND_STABLE_ABI) == 0;
  if (here) s.facts("memory_by_stage", {{"compute", stage_memory(probe, request)}});
  if (hooks.after_compute) {
    if (!hooks.after_compute(sink)) return;
    s.enter_quietly(Stage::Application);
  }
  s.finish(request.device == Device::Cuda ? Outcome::GpuCheckPassed : Outcome::CpuCheckPassed);
}

void run_worker(const WorkerRequest& request, FindingsSink& sink) {
  Stages s(sink);
  s.enter(Stage::Import);
  double load_ms = 0;
  const kd_probe* probe = load_probe(request, s, load_ms);
  if (probe == nullptr) return;
  if (probe->load_library != nullptr && !load_torch(*probe, request, s, load_ms)) return;
  s.facts("execution", {{"timings_ms", {{"load", load_ms}}}});
  s.facts("memory_by_stage", {{"import", {{"rss_bytes", resident_bytes()},
                                          {"allocated_bytes", nullptr},
                                          {"reserved_bytes", nullptr}}}});
  StageHooks hooks;
  if (!request.dtypes.empty()) {
    hooks.after_compute = [&](FindingsSink& stage_sink) {
      if (!precision_stage(request, stage_sink)) return false;
      stage_sink.facts("memory_by_stage", {{"application", stage_memory(*probe, request)}});
      return true;
    };
  }
  run_stages(*probe, request, sink, hooks);
}

namespace {

// ---- the python probe's answers, as a probe ----

// The answers the calls read, while run_python_answers walks the stages over them.
thread_local const PythonAnswers* g_answers = nullptr;

void copy_into(char* dst, size_t capacity, const nlohmann::json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : std::string();
  size_t n = std::min(capacity - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

long long number_of(const nlohmann::json& answer, const char* key, long long otherwise) {
  auto it = answer.find(key);
  return it != answer.end() && it->is_number_integer() ? it->get<long long>() : otherwise;
}

// The answer to `call` and its status, the error it gave copied into `err`; nullptr (and a
// ProbeState error) where the program gave none.
const nlohmann::json* answer_to(const char* call, kd_error* err, kd_status& status) {
  const nlohmann::json* a = g_answers != nullptr ? g_answers->find(call) : nullptr;
  if (a == nullptr) {
    copy_into(err->type, sizeof err->type, KD_ERROR_PROBE_STATE);
    copy_into(err->message, sizeof err->message,
              std::string("the python probe gave no answer to ") + call);
    status = KD_RUNTIME_ERROR;
    return nullptr;
  }
  const long long code = number_of(*a, "status", KD_RUNTIME_ERROR);
  status = code == KD_OK ? KD_OK : code == KD_OUT_OF_MEMORY ? KD_OUT_OF_MEMORY : KD_RUNTIME_ERROR;
  if (auto e = a->find("error"); e != a->end() && e->is_object()) {
    copy_into(err->type, sizeof err->type, e->value("type", nlohmann::json()));
    copy_into(err->message, sizeof err->message, e->value("message", nlohmann::json()));
  }
  return a;
}

kd_status answered_library_info(kd_library_info* out, kd_error* err) {
  kd_status st;
  const nlohmann::json* a = answer_to("library_info", err, st);
  if (a == nullptr || st != KD_OK) return st;
  copy_into(out->version, sizeof out->version, a->value("version", nlohmann::json()));
  copy_into(out->cuda_version, sizeof out->cuda_version, a->value("cuda_version", nlohmann::json()));
  copy_into(out->hip_version, sizeof out->hip_version, a->value("hip_version", nlohmann::json()));
  const long long backend = number_of(*a, "backend", KD_BACKEND_NONE);
  out->backend = backend == KD_BACKEND_CUDA || backend == KD_BACKEND_ROCM ? static_cast<int>(backend)
                                                                          : KD_BACKEND_NONE;
  return KD_OK;
}

kd_status answered_gpu_info(kd_gpu_info* out, kd_error* err) {
  kd_status st;
  const nlohmann::json* a = answer_to("gpu_info", err, st);
  if (a == nullptr || st != KD_OK) return st;
  out->available = number_of(*a, "available", 0) != 0 ? 1 : 0;
  out->device_count = number_of(*a, "device_count", 0);
  return KD_OK;
}

kd_status answered_init_device(int, long long, kd_error* err) {
  kd_status st;
  answer_to("init_device", err, st);
  return st;
}

kd_status answered_compute(int, long long, kd_compute_result* out, kd_error* err) {
  kd_status st;
  const nlohmann::json* a = answer_to("compute", err, st);
  if (a == nullptr || st != KD_OK) return st;
  *out = kd_compute_result{};
  auto loss = a->find("loss");
  if (!read_four(*a, "product", out->product) || !read_four(*a, "gradient", out->gradient) ||
      loss == a->end() || !loss->is_number()) {
    copy_into(err->type, sizeof err->type, KD_ERROR_PROBE_STATE);
    copy_into(err->message, sizeof err->message, "the python probe's result is malformed");
    return KD_RUNTIME_ERROR;
  }
  out->loss = loss->get<float>();
  out->synchronized = a->value("synchronized", false) == true ? 1 : 0;
  out->gradient_source = KD_GRADIENT_AUTOGRAD;
  return KD_OK;
}

kd_status answered_memory(long long, kd_memory_info* out, kd_error* err) {
  kd_status st;
  const nlohmann::json* a = answer_to("memory", err, st);
  if (a == nullptr || st != KD_OK) return st;
  out->allocated_bytes = number_of(*a, "allocated_bytes", -1);
  out->reserved_bytes = number_of(*a, "reserved_bytes", -1);
  return KD_OK;
}

kd_status answered_device_info(long long, kd_device_info* out, kd_error* err) {
  kd_status st;
  const nlohmann::json* a = answer_to("device_info", err, st);
  if (a == nullptr || st != KD_OK) return st;
  copy_into(out->name, sizeof out->name, a->value("name", nlohmann::json()));
  copy_into(out->capability, sizeof out->capability, a->value("capability", nlohmann::json()));
  return KD_OK;
}

kd_status answered_runtime_status(int, long long, const char*, kd_runtime_status* out,
                                  kd_error* err) {
  kd_status st;
  const nlohmann::json* a = answer_to("runtime_status", err, st);
  *out = kd_runtime_status{};
  out->driver_version = -1;
  out->runtime_version = -1;
  if (a == nullptr) return st;
  const nlohmann::json status = a->value("status", nlohmann::json::object());
  if (!status.is_object()) return KD_OK;
  const long long api = number_of(status, "api", KD_API_NONE);
  out->api = api == KD_API_CUDA || api == KD_API_HIP ? static_cast<int>(api) : KD_API_NONE;
  out->error_number = static_cast<int>(number_of(status, "error_number", 0));
  out->driver_version = static_cast<int>(number_of(status, "driver_version", -1));
  out->runtime_version = static_cast<int>(number_of(status, "runtime_version", -1));
  copy_into(out->error_name, sizeof out->error_name, status.value("error_name", nlohmann::json()));
  copy_into(out->error_text, sizeof out->error_text, status.value("error_text", nlohmann::json()));
  return KD_OK;
}

constexpr kd_probe kAnsweredProbe = {
    KD_PROBE_ABI_VERSION,  answered_library_info, answered_gpu_info,
    answered_init_device,  answered_compute,      answered_memory,
    answered_device_info,  answered_runtime_status, kProbeKindPython, nullptr};


// The driver library behind libcuda.so.1 is one the interpreter loaded, not this process: its
// file name, as its runtime_status answer gives it, is the evidence's.
void answered_driver_library(const PythonAnswers& answers, WorkerFindings& findings) {
  const nlohmann::json* a = answers.find("runtime_status");
  if (a == nullptr || !findings.error || !findings.error->evidence) return;
  const nlohmann::json status = a->value("status", nlohmann::json::object());
  const std::string file = status.is_object() ? status.value("driver_library", std::string()) : "";
  Evidence& e = *findings.error->evidence;
  e.driver_library = Sanitizer::token(file).empty() ? std::nullopt : std::optional<std::string>(file);
}

// What the interpreter timed, in place of the times of walking over its answers.
void answered_timings(const PythonAnswers& answers, WorkerFindings& findings) {
  ojson& timings = findings.execution["timings_ms"];
  for (auto [call, key] : {std::pair{"init_device", "device_init"}, std::pair{"compute", "compute"}}) {
    if (auto ms = answers.ms(call); ms && !timings[key].is_null()) timings[key] = *ms;
  }
}

}  // namespace

void run_python_answers(const PythonAnswers& answers, const WorkerRequest& request,
                        const std::string& searched, WorkerFindings& findings,
                        FindingsSink& sink) {
  Stages s(sink);
  // The interpreter's memory at the end of each stage it finished (memory_by_stage).
  ojson by_stage = ojson::object();
  for (const nlohmann::json& a : answers.answers) {
    if (a.value("call", std::string()) != "stage_memory") continue;
    ojson entry = ojson::object();
    for (const char* key : {"rss_bytes", "allocated_bytes", "reserved_bytes"}) {
      entry[key] = a.contains(key) ? ojson(a[key]) : ojson(nullptr);
    }
    by_stage[a.value("stage", std::string())] = std::move(entry);
  }
  if (!by_stage.empty()) sink.facts("memory_by_stage", by_stage);
  if (!python_import_stage(answers, request, searched, findings, s)) return;
  g_answers = &answers;
  ApplicationAsked asked{request.imports, {}};
  for (const WeightsAsked& file : request.weights) asked.weights.push_back(file.name);
  StageHooks hooks;
  hooks.after_backend = [&](FindingsSink& stage_sink) {
    return backend_libraries_stage(answers, request.device == Device::Cuda, findings, stage_sink);
  };
  hooks.after_compute = [&](FindingsSink& stage_sink) {
    if (request.compile && !compile_stage(answers, request, findings, stage_sink)) return false;
    return application_stage(answers, asked, findings, stage_sink);
  };
  run_stages(kAnsweredProbe, request, sink, hooks);
  g_answers = nullptr;
  answered_timings(answers, findings);
  answered_driver_library(answers, findings);
}

void worker_main(const std::vector<std::string>& args) {
  WorkerRequest request;
  if (fcntl(kEventFd, F_GETFD) < 0 || !parse_worker_argv(args, request)) {
    static const char kMessage[] =
        "kernodeck-diagnostic: error: the worker mode is internal to the check\n";
    ssize_t ignored = write(2, kMessage, sizeof kMessage - 1);
    (void)ignored;
    _exit(2);
  }
  fcntl(kEventFd, F_SETFD, FD_CLOEXEC);
  LineSink sink([](const std::string& line) { write_line(kEventFd, line); });
  try {
    run_worker(request, sink);
  } catch (const std::exception& e) {
    sink.outcome(Outcome::InternalError, Stage::Import,
                 ErrorInfo{failure_type(Failure::WorkerException), e.what()});
  }
  // Skip static destructors: some GPU runtimes crash while unloading, and
  // the verdict is already with the parent.
  _exit(0);
}

}  // namespace kd
