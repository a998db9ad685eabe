#include "worker.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>
#include <utility>

#include "application.hpp"
#include "backend_libraries.hpp"
#include "compile_stage.hpp"
#include "causes.hpp"
#include "json_fields.hpp"
#include "loader_error.hpp"
#include "protocol.hpp"
#include "torch_location.hpp"
#include "util/files.hpp"

namespace kd {
namespace {

constexpr float kProduct[4] = {2, 2, 6, 4};
constexpr float kGradient[4] = {56, 28, 56, 28};

using Ms = std::chrono::duration<double, std::milli>;

double ms_since(std::chrono::steady_clock::time_point start) {
  double ms = Ms(std::chrono::steady_clock::now() - start).count();
  return std::round(ms * 1000.0) / 1000.0;
}

std::string matrix_text(const float (&m)[4]) {
  std::ostringstream s;
  s << "[[" << m[0] << "," << m[1] << "],[" << m[2] << "," << m[3] << "]]";
  return s.str();
}

bool matches(const float (&got)[4], const float (&want)[4]) {
  for (int i = 0; i < 4; ++i) {
    // Exact: NaN compares unequal, inf differs from every expected value.
    if (!(got[i] == want[i])) return false;
  }
  return true;
}

// Copies a C string of a probe that might not be terminated.
std::string bounded(const char* text, size_t capacity) {
  return std::string(text, strnlen(text, capacity));
}

class Stages {
 public:
  explicit Stages(const EventSink& sink) : sink_(sink) {}

  void enter(Stage stage) {
    stage_ = stage;
    sink_(stage_event(stage));
  }
  // A stage a hook entered and said itself (run_stages' after_compute).
  void enter_quietly(Stage stage) { stage_ = stage; }
  void facts(std::string_view section, const ojson& values) { sink_(facts_event(section, values)); }
  void finish(Outcome outcome, std::optional<ErrorInfo> error = std::nullopt) {
    finish_at(outcome, stage_, std::move(error));
  }
  void finish_at(Outcome outcome, Stage stage, std::optional<ErrorInfo> error) {
    sink_(outcome_event(outcome, stage, error));
  }
  // A probe call that failed: OUT_OF_MEMORY or RUNTIME_ERROR at this stage,
  // with what was seen after it, if anything.
  void finish_probe_error(kd_status status, const kd_error& err,
                          std::optional<Evidence> evidence = std::nullopt) {
    Outcome outcome = status == KD_OUT_OF_MEMORY ? Outcome::OutOfMemory : Outcome::RuntimeError;
    finish(outcome, ErrorInfo{bounded(err.type, sizeof err.type),
                              bounded(err.message, sizeof err.message), std::move(evidence)});
  }
  // A cause of the catalogue: its outcome, its error.type.
  void finish_cause(CauseId cause, std::string message, std::optional<Evidence> evidence) {
    const CauseInfo& row = cause_info(cause);
    finish(row.outcome, ErrorInfo{std::string(row.type), std::move(message), std::move(evidence)});
  }

 private:
  const EventSink& sink_;
  Stage stage_ = Stage::Import;
};

std::string device_label(const WorkerRequest& r) { return device_label(r.device, r.index); }

ojson text_or_null(const char* text, size_t capacity) {
  std::string s = bounded(text, capacity);
  return s.empty() ? ojson(nullptr) : ojson(s);
}

void write_line(int fd, const std::string& line) {
  // The parent is gone: nothing left to tell.
  if (write_all(fd, line + "\n") != 0) _exit(70);
}

// A GPU call failed: what the GPU runtime says of it, and for the device layer
// what the machine shows. Asked only here, after a failure in GPU mode.
struct GpuFailure {
  Evidence evidence;
  std::string words;  // the runtime's own, when it names the error; else the library's
};

GpuFailure gpu_failure(const kd_probe& probe, const WorkerRequest& request,
                       const std::string& library_words, bool device_layer) {
  GpuFailure f{device_layer ? device_evidence() : Evidence{}, library_words};
  kd_runtime_status status{};
  kd_error ignored{};
  if (probe.runtime_status(KD_DEVICE_CUDA, request.index, library_words.c_str(), &status,
                           &ignored) != KD_OK) {
    return f;
  }
  f.evidence.runtime = runtime_answer(status);
  // A computation that failed on a ROCm GPU: its architecture, from the kernel's KFD topology.
  if (!device_layer && f.evidence.runtime && f.evidence.runtime->api == "hip") {
    f.evidence.rocm = rocm_facts(request.index);
  }
  if (f.evidence.runtime && status.error_number != 0) {
    std::string name = f.evidence.runtime->error_name;
    f.words = (name.empty() ? f.evidence.runtime->api + " error" : name) + " (" +
              std::to_string(status.error_number) +
              "): " + bounded(status.error_text, sizeof status.error_text);
  }
  return f;
}

// The loader said a library cannot be found: is a copy where it looks, that it
// skipped (unreadable, or built for another machine)? Only then is it looked for.
std::optional<Evidence> library_evidence(const std::string& loader_words,
                                         const std::string& probe_path) {
  LoaderWords w = read_loader_words(loader_words);
  if (w.missing.empty() || loader_words.find("No such file or directory") == std::string::npos) {
    return std::nullopt;
  }
  Evidence e;
  e.library = find_library_copy(w.missing, loader_folders(probe_path));
  return e;
}

// The loader refused libtorch (or the probe module with it): the cause from
// its words, looking where it looks from `requester`, the object whose needs
// it was resolving.
void finish_loader_error(Stages& s, const std::string& words, const std::string& requester,
                         bool torch_found = false) {
  std::optional<Evidence> evidence = library_evidence(words, requester);
  CauseId id = recognise_loader(words, evidence ? evidence->library : std::nullopt);
  if (torch_found && id == CauseId::TorchNotFound) id = CauseId::DependencyNotFound;
  s.finish_cause(id, words, std::move(evidence));
}

}  // namespace

std::vector<std::string> worker_argv(const std::string& self_exe, const WorkerRequest& r) {
  std::vector<std::string> argv = {self_exe, std::string(kWorkerArg), device_name(r.device),
                                   std::to_string(r.index), r.probe_path};
  if (!r.torch_dir.empty()) argv.push_back(r.torch_dir);
  return argv;
}

bool parse_worker_argv(const std::vector<std::string>& args, WorkerRequest& r) {
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

Verification verify(const kd_compute_result& r) {
  Verification v;
  v.product_ok = matches(r.product, kProduct);
  // Beside an autograd gradient the stable probe gives the formula's as well: both must hold.
  const bool explicit_ok = r.explicit_computed == 0 || matches(r.explicit_gradient, kGradient);
  v.gradient_ok = matches(r.gradient, kGradient) && explicit_ok;
  v.loss_ok = r.loss == kExpectedLoss;
  if (!v.product_ok) {
    v.problem = "product " + matrix_text(r.product) + " differs from the expected " +
                matrix_text(kProduct);
  } else if (!v.loss_ok) {
    std::ostringstream s;
    s << "loss " << r.loss << " differs from the expected " << kExpectedLoss;
    v.problem = s.str();
  } else if (!matches(r.gradient, kGradient)) {
    v.problem = std::string(r.gradient_source == KD_GRADIENT_EXPLICIT ? "explicit " : "") +
                "gradient " + matrix_text(r.gradient) + " differs from the expected " +
                matrix_text(kGradient);
  } else if (!v.gradient_ok) {
    v.problem = "explicit gradient " + matrix_text(r.explicit_gradient) +
                " differs from the expected " + matrix_text(kGradient) +
                " (the autograd gradient is right)";
  }
  return v;
}

namespace {

// backend: what the library is, without touching a driver. False once it
// has finished the run.
bool backend_stage(const kd_probe& probe, const WorkerRequest& request, Stages& s,
                   kd_error& err) {
  s.enter(Stage::Backend);
  kd_library_info lib{};
  if (kd_status st = probe.library_info(&lib, &err); st != KD_OK) {
    // libtorch loaded but cannot describe itself: it is not usable.
    s.finish_at(Outcome::TorchImportFailed, Stage::Import,
                ErrorInfo{bounded(err.type, sizeof err.type),
                          bounded(err.message, sizeof err.message)});
    return false;
  }
  const char* backend = lib.backend == KD_BACKEND_CUDA   ? "cuda"
                        : lib.backend == KD_BACKEND_ROCM ? "rocm"
                                                         : "none";
  s.facts("pytorch", {{"version", text_or_null(lib.version, sizeof lib.version)},
                      {"cuda", text_or_null(lib.cuda_version, sizeof lib.cuda_version)},
                      {"hip", text_or_null(lib.hip_version, sizeof lib.hip_version)},
                      {"backend", backend}});
  if (request.device == Device::Cuda && lib.backend == KD_BACKEND_NONE) {
    s.finish(Outcome::GpuBackendAbsent,
             ErrorInfo{failure_type(Failure::GpuBackendAbsent),
                       "libtorch " + bounded(lib.version, sizeof lib.version) +
                           " was built with neither CUDA nor HIP"});
    return false;
  }
  return true;
}

// The GPU asked for is there: available, and the index among the visible
// devices. False once it has finished the run.
bool gpu_is_there(const kd_probe& probe, const WorkerRequest& request, Stages& s,
                  kd_error& err) {
  kd_gpu_info g{};
  if (kd_status st = probe.gpu_info(&g, &err); st != KD_OK) {
    GpuFailure f = gpu_failure(probe, request, bounded(err.message, sizeof err.message), true);
    s.finish_probe_error(st, err, std::move(f.evidence));
    return false;
  }
  s.facts("pytorch", {{"gpu_available", g.available != 0},
                      {"visible_device_count", std::max(0LL, g.device_count)}});
  if (g.available == 0 || g.device_count <= 0) {
    // The library's reason when it gave one (probe_abi.h), else what it counted.
    std::string words = bounded(err.message, sizeof err.message);
    if (words.empty()) {
      words = std::string("libtorch reports the GPU ") +
              (g.available != 0 ? "available" : "unavailable") + " with " +
              std::to_string(std::max(0LL, g.device_count)) + " visible device(s)";
    }
    GpuFailure f = gpu_failure(probe, request, words, true);
    CauseId cause = recognise_device(f.evidence, words, kDeviceCount).value_or(CauseId::GpuUnavailable);
    s.finish_cause(cause, f.words, std::move(f.evidence));
    return false;
  }
  if (request.index < 0 || request.index >= g.device_count) {
    s.finish(Outcome::DeviceIndexInvalid,
             ErrorInfo{failure_type(Failure::DeviceIndexInvalid),
                       "device index " + std::to_string(request.index) + " is outside the " +
                           std::to_string(g.device_count) + " visible device(s)"});
    return false;
  }
  return true;
}

// device: availability, the index, then starting the device. False once it
// has finished the run.
bool device_stage(const kd_probe& probe, const WorkerRequest& request, Stages& s,
                  kd_error& err) {
  const bool gpu = request.device == Device::Cuda;
  s.enter(Stage::Device);
  auto device_start = std::chrono::steady_clock::now();
  if (gpu && !gpu_is_there(probe, request, s, err)) return false;
  kd_status init = probe.init_device(gpu ? KD_DEVICE_CUDA : KD_DEVICE_CPU, request.index, &err);
  s.facts("execution", {{"timings_ms", {{"device_init", ms_since(device_start)}}}});
  if (init != KD_OK) {
    if (!gpu) {
      s.finish_probe_error(init, err);
      return false;
    }
    GpuFailure f = gpu_failure(probe, request, bounded(err.message, sizeof err.message), true);
    if (auto cause = recognise_device(f.evidence, "", kDeviceStart)) {
      s.finish_cause(*cause, f.words, std::move(f.evidence));
    } else {
      s.finish_probe_error(init, err, std::move(f.evidence));
    }
    return false;
  }
  if (gpu) {
    // Informative: which GPU this is. A failure to tell leaves both null.
    kd_device_info d{};
    kd_error ignored{};
    if (probe.device_info(request.index, &d, &ignored) == KD_OK) {
      s.facts("execution", {{"device_name", text_or_null(d.name, sizeof d.name)},
                            {"capability", text_or_null(d.capability, sizeof d.capability)}});
    }
  }
  return true;
}

// The GPU allocator's counters after the computation; null on the CPU, and
// each counter null where it cannot be read (they are informative).
ojson memory_facts(const kd_probe& probe, const WorkerRequest& request) {
  if (request.device != Device::Cuda) return nullptr;
  kd_memory_info m{-1, -1};
  kd_error ignored{};
  if (probe.memory(request.index, &m, &ignored) != KD_OK) {
    return {{"allocated_bytes", nullptr}, {"reserved_bytes", nullptr}};
  }
  return {{"allocated_bytes", m.allocated_bytes >= 0 ? ojson(m.allocated_bytes) : ojson()},
          {"reserved_bytes", m.reserved_bytes >= 0 ? ojson(m.reserved_bytes) : ojson()}};
}

// compute: the fixed computation, verified here. False once it has finished the run.
bool compute_stage(const kd_probe& probe, const WorkerRequest& request, Stages& s,
                   kd_error& err) {
  const bool gpu = request.device == Device::Cuda;
  s.enter(Stage::Compute);
  auto compute_start = std::chrono::steady_clock::now();
  kd_compute_result r{};
  kd_status st = probe.compute(gpu ? KD_DEVICE_CUDA : KD_DEVICE_CPU, request.index, &r, &err);
  if (st != KD_OK) {
    s.facts("execution", {{"timings_ms", {{"compute", ms_since(compute_start)}}}});
    if (!gpu) {
      s.finish_probe_error(st, err);
      return false;
    }
    GpuFailure f = gpu_failure(probe, request, bounded(err.message, sizeof err.message), false);
    if (auto cause = recognise_compute(f.evidence)) {
      s.finish_cause(*cause, f.words, std::move(f.evidence));
    } else {
      s.finish_probe_error(st, err, std::move(f.evidence));
    }
    return false;
  }
  Verification v = verify(r);
  ojson memory = memory_facts(probe, request);
  ojson loss = std::isfinite(r.loss) ? ojson(static_cast<double>(r.loss)) : ojson(nullptr);
  s.facts("execution", {{"device", device_label(request)},
                        {"product_verified", v.product_ok},
                        {"gradient_verified", v.gradient_ok},
                        {"loss", loss},
                        {"synchronized", gpu ? ojson(r.synchronized != 0) : ojson(nullptr)},
                        {"gradient_source",
                         r.gradient_source == KD_GRADIENT_EXPLICIT ? "explicit" : "autograd"},
                        {"timings_ms", {{"compute", ms_since(compute_start)}}},
                        {"memory", memory}});
  if (!v.product_ok || !v.gradient_ok || !v.loss_ok) {
    s.finish(Outcome::CheckFailed, ErrorInfo{failure_type(Failure::CheckMismatch), v.problem});
    return false;
  }
  if (gpu && r.synchronized == 0) {
    s.finish(Outcome::CheckFailed, ErrorInfo{failure_type(Failure::NotSynchronized),
                                             "results were read without synchronizing the device"});
    return false;
  }
  return true;
}

}  // namespace

void run_stages(const kd_probe& probe, const WorkerRequest& request, const EventSink& sink,
                const StageHooks& hooks) {
  Stages s(sink);
  kd_error err{};
  if (!backend_stage(probe, request, s, err)) return;
  if (hooks.after_backend && !hooks.after_backend(sink)) return;
  if (!device_stage(probe, request, s, err)) return;
  if (!compute_stage(probe, request, s, err)) return;
  if (hooks.after_compute) {
    if (!hooks.after_compute(sink)) return;
    s.enter_quietly(Stage::Application);
  }
  s.finish(request.device == Device::Cuda ? Outcome::GpuCheckPassed : Outcome::CpuCheckPassed);
}

namespace {

// The probe module, loaded (and with a compiled probe libtorch too); nullptr
// once it has finished the run.
const kd_probe* load_probe(const WorkerRequest& request, Stages& s, double& load_ms) {
  if (access(request.probe_path.c_str(), R_OK) != 0) {
    s.finish(Outcome::InternalError,
             ErrorInfo{failure_type(Failure::ProbeMissing),
                       "the check's probe module is missing or unreadable: " +
                           std::string(strerror(errno))});
    return nullptr;
  }
  auto load_start = std::chrono::steady_clock::now();
  // RTLD_NOW: an unresolvable symbol of libtorch is an import failure now,
  // not a crash later.
  void* handle = dlopen(request.probe_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  load_ms = ms_since(load_start);
  if (handle == nullptr) {
    const char* text = dlerror();
    finish_loader_error(s, text != nullptr ? text : "the loader gave no reason", request.probe_path);
    return nullptr;
  }
  auto entry = reinterpret_cast<kd_probe_entry_fn>(dlsym(handle, KD_PROBE_ENTRY_SYMBOL));
  const kd_probe* probe = entry != nullptr ? entry() : nullptr;
  const bool kind_known = probe != nullptr && probe->kind != nullptr &&
                          (std::strcmp(probe->kind, KD_PROBE_KIND_LIBTORCH) == 0 ||
                           std::strcmp(probe->kind, KD_PROBE_KIND_STABLE_ABI) == 0);
  if (probe == nullptr || probe->abi_version != KD_PROBE_ABI_VERSION || !kind_known ||
      probe->library_info == nullptr || probe->gpu_info == nullptr ||
      probe->init_device == nullptr || probe->compute == nullptr || probe->memory == nullptr ||
      probe->device_info == nullptr || probe->runtime_status == nullptr) {
    s.finish(Outcome::InternalError,
             ErrorInfo{failure_type(Failure::ProbeIncompatible),
                       "the probe module does not provide interface version " +
                           std::to_string(KD_PROBE_ABI_VERSION)});
    return nullptr;
  }
  // The handle stays open: libtorch is not made to be unloaded.
  return probe;
}

// A probe that does not link libtorch loads it now: the torch folder the parent found in
// the user's Python environment (torch_location.hpp). False once it has finished the run.
bool load_torch(const kd_probe& probe, const WorkerRequest& request, Stages& s, double& load_ms) {
  if (request.torch_dir.empty()) {
    s.finish(Outcome::InternalError,
             ErrorInfo{failure_type(Failure::ProbeNeedsTorch),
                       "the probe loads libtorch itself, and the check named "
                       "no torch folder for it"});
    return false;
  }
  auto load_start = std::chrono::steady_clock::now();
  kd_error err{};
  kd_status st = probe.load_library(request.torch_dir.c_str(), &err);
  load_ms = ms_since(load_start);
  if (st == KD_OK) return true;
  const std::string type = bounded(err.type, sizeof err.type);
  const std::string words = bounded(err.message, sizeof err.message);
  if (type == KD_ERROR_LOADER) {
    // libtorch.so itself was found: a library of libtorch's own the loader lacks is a part
    // of it missing (a damaged installation), not a libtorch this process cannot find.
    finish_loader_error(s, words, torch_library(request.torch_dir), /*torch_found=*/true);
  } else if (auto id = cause_from_type(type)) {
    // What the library is, where its files say it: the release it was found too old.
    kd_library_info lib{};
    kd_error ignored{};
    if (probe.library_info(&lib, &ignored) == KD_OK) {
      s.facts("pytorch", {{"version", text_or_null(lib.version, sizeof lib.version)}});
    }
    s.finish_cause(*id, words, std::nullopt);
  } else {
    s.finish(Outcome::TorchImportFailed, ErrorInfo{type, words});
  }
  return false;
}

}  // namespace

void run_worker(const WorkerRequest& request, const EventSink& sink) {
  Stages s(sink);
  s.enter(Stage::Import);
  double load_ms = 0;
  const kd_probe* probe = load_probe(request, s, load_ms);
  if (probe == nullptr) return;
  if (probe->load_library != nullptr && !load_torch(*probe, request, s, load_ms)) return;
  s.facts("execution", {{"timings_ms", {{"load", load_ms}}}});
  run_stages(*probe, request, sink);
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

// The answer's time in milliseconds, where it gave one.
std::optional<double> ms_of(const nlohmann::json* a) {
  return a == nullptr ? std::nullopt : json_field::duration(*a, "ms");
}

// The import, as the interpreter answered it. False once it has finished the run.
bool python_import_stage(const PythonAnswers& answers, const WorkerRequest& request,
                         const std::string& searched, WorkerFindings& findings, Stages& s) {
  s.enter(Stage::Import);
  const nlohmann::json* imported = answers.find("import");
  if (imported == nullptr) {
    const nlohmann::json* failed = answers.find("probe_failed");
    s.finish(Outcome::InternalError,
             ErrorInfo{failure_type(Failure::WorkerException),
                       "the python probe failed: " +
                           (failed != nullptr ? failed->value("message", std::string("no reason"))
                                              : std::string("it gave no answer to the import"))});
    return false;
  }
  const nlohmann::json none = nlohmann::json::object();
  if (imported->value("ok", false) == true) {
    // Loading torch took this long: an import that failed loaded nothing to time.
    if (auto ms = ms_of(imported)) s.facts("execution", {{"timings_ms", {{"load", *ms}}}});
    if (auto w = imported->find("warnings"); w != imported->end() && w->is_array()) {
      for (const auto& line : *w) {
        if (line.is_string()) findings.import_warnings.push_back(line.get<std::string>());
      }
    }
    if (answers.find("import_incomplete") == nullptr) return true;
    // The import went through, and what it imported lacks torch's API.
    PythonImport facts = python_import_of(none, imported->value("found", none));
    facts.imported_incomplete = true;
    facts.exception = "AttributeError";
    facts.words = "the torch imported has no torch.tensor";
    findings.python_import = facts;
    s.finish_cause(recognise_python_import(facts), facts.exception + ": " + facts.words,
                   std::nullopt);
    return false;
  }
  PythonImport facts =
      python_import_of(imported->value("facts", none), imported->value("found", none));
  findings.python_import = facts;
  const std::string words = facts.words.empty() ? facts.exception : facts.words;
  if (facts.loader && !request.torch_dir.empty()) {
    // The loader refused a library of torch's, or one it needs: today's loader causes, looking
    // where the loader looks from torch's own libtorch.
    finish_loader_error(s, words, torch_library(request.torch_dir), /*torch_found=*/true);
    return false;
  }
  const CauseId id = recognise_python_import(facts);
  // No torch at all: said as the search for it says it (torch_location.hpp).
  s.finish_cause(id,
                 id == CauseId::TorchPackageMissing
                     ? searched + " has no torch package"
                     : facts.exception + ": " + words,
                 std::nullopt);
  return false;
}

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
    if (auto ms = ms_of(answers.find(call)); ms && !timings[key].is_null()) timings[key] = *ms;
  }
}

}  // namespace

void run_python_answers(const PythonAnswers& answers, const WorkerRequest& request,
                        const std::string& searched, WorkerFindings& findings,
                        const EventSink& sink) {
  Stages s(sink);
  if (!python_import_stage(answers, request, searched, findings, s)) return;
  g_answers = &answers;
  ApplicationAsked asked{request.imports, {}};
  for (const std::string& path : request.weights) asked.weights.push_back(weights_name(path));
  StageHooks hooks;
  hooks.after_backend = [&](const EventSink& stage_sink) {
    return backend_libraries_stage(answers, request.device == Device::Cuda, findings, stage_sink);
  };
  hooks.after_compute = [&](const EventSink& stage_sink) {
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
  EventSink sink = [](const std::string& line) { write_line(kEventFd, line); };
  try {
    run_worker(request, sink);
  } catch (const std::exception& e) {
    sink(outcome_event(Outcome::InternalError, Stage::Import,
                       ErrorInfo{failure_type(Failure::WorkerException), e.what()}));
  }
  // Skip static destructors: some GPU runtimes crash while unloading, and
  // the verdict is already with the parent.
  _exit(0);
}

}  // namespace kd
