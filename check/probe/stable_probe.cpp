// The stable probe: answers the worker's questions of probe_abi.h with the C
// functions of libtorch's stable ABI alone (AOTInductor's shim, aoti_torch_*,
// and torch/csrc/stable/c, torch_*), each found with dlsym in the libtorch it
// loads itself. It includes no torch header, so it is built once, with the
// project's compiler, and loads against any torch from 2.10 on: an image that
// has only Python and the torch wheel is certified with the libtorch its
// application imports. Nothing here decides an outcome.
//
// Operators are called through libtorch's dispatcher (torch_call_dispatcher),
// speaking the stable ABI of torch 2.10, which later releases adapt to their own
// schemas. The gradient is the explicit one always, 2*sum(p) * ones @ b^T, and
// the autograd engine's too where this probe knows how to read a.grad back for
// the loaded release (kGradientReaders): no stable C function reads .grad.
#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_runtime.hpp"
#include "probe_abi.h"

namespace {

using kd::probe::copy_text;
using kd::probe::set_error;
using StableIValue = uint64_t;
using Handle = void*;   // AtenTensorHandle: an owning reference to a tensor
using Error = int32_t;  // AOTITorchError: 0 is success
using ListHandle = void*;

// The stable ABI this probe speaks: torch 2.10's (TORCH_VERSION_2_10_0).
constexpr uint64_t kSpeaks = (2ULL << 56) | (10ULL << 48);
constexpr int kOldestMinor = 10;  // torch 2.10 brought torch_call_dispatcher

// The functions called, found in the loaded libtorch.
struct Api {
  Error (*call)(const char*, const char*, StableIValue*, uint64_t) = nullptr;
  Error (*empty_strided)(int64_t, const int64_t*, const int64_t*, int32_t, int32_t, int32_t,
                         Handle*) = nullptr;
  Error (*data_ptr)(Handle, void**) = nullptr;
  Error (*new_handle)(Handle, Handle*) = nullptr;
  Error (*delete_tensor)(Handle) = nullptr;
  Error (*copy)(Handle, Handle, int32_t) = nullptr;
  Error (*set_requires_grad)(Handle, bool) = nullptr;
  Error (*new_list)(size_t, ListHandle*) = nullptr;
  Error (*push_back)(ListHandle, StableIValue) = nullptr;
  Error (*delete_list)(ListHandle) = nullptr;
  int32_t (*device_cpu)() = nullptr;
  int32_t (*device_cuda)() = nullptr;
  int32_t (*dtype_float32)() = nullptr;
  uint64_t (*abi_version)() = nullptr;
  bool (*grad_mode_is_enabled)() = nullptr;
  void (*grad_mode_set_enabled)(bool) = nullptr;
  // Optional: the last exception's words (2.13), a boxed optional's storage
  // (2.13), the current CUDA stream and its synchronisation (libtorch_cuda).
  const char* (*what)() = nullptr;
  Error (*new_stable_ivalue)(StableIValue**) = nullptr;
  Error (*delete_stable_ivalue)(StableIValue*) = nullptr;
  Error (*current_cuda_stream)(int32_t, void**) = nullptr;
  Error (*cuda_stream_synchronize)(void*, int32_t) = nullptr;
};

struct Symbol {
  const char* name;
  void** slot;
  bool required;
};

struct Loaded {
  Api api;
  std::string torch_dir;  // the folder named to load_library
  std::string lib_dir;    // the folder of its libtorch.so
  void* libtorch = nullptr;
  std::string version;    // "2.15.0+cu132", "" if its files do not say
  int major = -1, minor = -1;
  std::string cuda, hip;  // as torch/version.py states them, "" for none
};
Loaded g;

std::vector<Symbol> symbols(Api& a) {
  auto slot = [](auto& fn) { return reinterpret_cast<void**>(&fn); };
  return {
      {"torch_call_dispatcher", slot(a.call), true},
      {"aoti_torch_empty_strided", slot(a.empty_strided), true},
      {"aoti_torch_get_data_ptr", slot(a.data_ptr), true},
      {"aoti_torch_new_tensor_handle", slot(a.new_handle), true},
      {"aoti_torch_delete_tensor_object", slot(a.delete_tensor), true},
      {"aoti_torch_copy_", slot(a.copy), true},
      {"torch_set_requires_grad", slot(a.set_requires_grad), true},
      {"torch_new_list_reserve_size", slot(a.new_list), true},
      {"torch_list_push_back", slot(a.push_back), true},
      {"torch_delete_list", slot(a.delete_list), true},
      {"aoti_torch_device_type_cpu", slot(a.device_cpu), true},
      {"aoti_torch_device_type_cuda", slot(a.device_cuda), true},
      {"aoti_torch_dtype_float32", slot(a.dtype_float32), true},
      {"aoti_torch_abi_version", slot(a.abi_version), true},
      {"aoti_torch_grad_mode_is_enabled", slot(a.grad_mode_is_enabled), true},
      {"aoti_torch_grad_mode_set_enabled", slot(a.grad_mode_set_enabled), true},
      {"torch_exception_get_what_without_backtrace", slot(a.what), false},
      {"torch_new_stable_ivalue", slot(a.new_stable_ivalue), false},
      {"torch_delete_stable_ivalue", slot(a.delete_stable_ivalue), false},
      {"aoti_torch_get_current_cuda_stream", slot(a.current_cuda_stream), false},
      {"torch_cuda_stream_synchronize", slot(a.cuda_stream_synchronize), false},
  };
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return in ? s.str() : std::string();
}

// `name = 'value'` (or `name: Optional[str] = 'value'`) in torch/version.py.
std::string version_py_value(const std::string& text, const std::string& name) {
  std::smatch m;
  const std::regex line("(^|\\n)" + name + "(: *[A-Za-z\\[\\]]+)? *= *'([^']*)'");
  return std::regex_search(text, m, line) ? m[3].str() : std::string();
}

// The loaded release, as its own files state it: a wheel's torch/version.py, a
// libtorch archive's build-version, else the version its library's file name
// carries (libtorch_cpu.so.1.13.0, a distribution's).
void read_versions(Loaded& l) {
  const std::string py = read_text(l.torch_dir + "/version.py");
  l.version = version_py_value(py, "__version__");
  l.cuda = version_py_value(py, "cuda");
  l.hip = version_py_value(py, "hip");
  if (l.version.empty()) {
    std::string text = read_text(l.torch_dir + "/build-version");
    l.version = text.substr(0, text.find_first_of(" \r\n"));
  }
  if (l.version.empty()) {
    char real[4096];
    std::string cpu = l.lib_dir + "/libtorch_cpu.so";
    if (realpath(cpu.c_str(), real) != nullptr) {
      std::string file = real;
      size_t at = file.rfind(".so.");
      if (at != std::string::npos) l.version = file.substr(at + 4);
    }
  }
  std::smatch m;
  if (std::regex_search(l.version, m, std::regex("^([0-9]+)\\.([0-9]+)"))) {
    l.major = std::stoi(m[1]);
    l.minor = std::stoi(m[2]);
  }
}

// ---- the loader ----

// Where the torch folder keeps libtorch.so: its lib/ (a wheel's torch package,
// a libtorch archive), or itself (a distribution's library folder).
std::string library_folder(const std::string& dir) {
  if (exists(dir + "/lib/libtorch.so")) return dir + "/lib";
  return dir;
}

// Loads what `import torch` loads for the library: the global dependencies
// first (libtorch_global_deps.so, the CUDA runtime of a CUDA build), as the
// torch package's __init__ does, then libtorch.so, which needs libtorch_cpu and,
// in a GPU build, libtorch_cuda or libtorch_hip and their libraries.
bool load(Loaded& l, kd_error* err) {
  const std::string deps = l.lib_dir + "/libtorch_global_deps.so";
  if (exists(deps) && dlopen(deps.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* text = dlerror();
    set_error(err, KD_ERROR_LOADER, text != nullptr ? text : "the loader gave no reason");
    return false;
  }
  const std::string lib = l.lib_dir + "/libtorch.so";
  l.libtorch = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (l.libtorch == nullptr) {
    const char* text = dlerror();
    set_error(err, KD_ERROR_LOADER, text != nullptr ? text : "the loader gave no reason");
    return false;
  }
  return true;
}

// Finds every function in the loaded libtorch; a missing required one is a
// release older than 2.10 (or a build without the stable ABI).
bool find_functions(Loaded& l, kd_error* err) {
  std::vector<std::string> missing;
  for (const Symbol& s : symbols(l.api)) {
    *s.slot = dlsym(l.libtorch, s.name);
    if (*s.slot == nullptr && s.required) missing.emplace_back(s.name);
  }
  if (missing.empty() && (l.major < 0 || l.major > 2 || (l.major == 2 && l.minor >= kOldestMinor))) {
    return true;
  }
  std::string version = l.version.empty() ? "of unknown version" : l.version;
  std::string lacks = "the stable ABI of torch 2.10";
  if (!missing.empty()) {
    lacks = missing.front();
    if (missing.size() > 1) lacks += " and " + std::to_string(missing.size() - 1) + " more";
  }
  set_error(err, KD_ERROR_STABLE_ABI_TOO_OLD, "libtorch " + version + " lacks " + lacks);
  return false;
}

kd_status load_library(const char* torch_dir, kd_error* err) {
  g.torch_dir = torch_dir != nullptr ? torch_dir : "";
  g.lib_dir = library_folder(g.torch_dir);
  read_versions(g);
  if (!load(g, err) || !find_functions(g, err)) return KD_RUNTIME_ERROR;
  return KD_OK;
}

// ---- the last error's words ----

// Before 2.13 libtorch's stable functions give no words for a failure: they log
// them to stderr ("Exception in aoti_torch: ..."). There, each question's
// stderr goes through a memory file, from which the words are read, and is then
// passed on whole.
class StderrTap {
 public:
  StderrTap() {
    if (g.api.what != nullptr) return;
    fd_ = memfd_create("kernodeck-stderr", MFD_CLOEXEC);
    saved_ = fd_ >= 0 ? dup(2) : -1;
    if (saved_ < 0 || dup2(fd_, 2) < 0) close_all();
  }
  ~StderrTap() {
    if (saved_ < 0) return;
    dup2(saved_, 2);
    std::string text = captured();
    for (size_t done = 0; done < text.size();) {
      ssize_t n = write(2, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close_all();
  }
  StderrTap(const StderrTap&) = delete;
  StderrTap& operator=(const StderrTap&) = delete;

  // The words of the last "Exception in aoti_torch: " line, "" if none.
  std::string words() const {
    std::string text = captured();
    const std::string mark = "Exception in aoti_torch: ";
    size_t at = text.rfind(mark);
    if (at == std::string::npos) return "";
    at += mark.size();
    return text.substr(at, text.find('\n', at) - at);
  }

 private:
  std::string captured() const {
    std::string text;
    if (fd_ < 0) return text;
    char buf[4096];
    for (off_t at = 0;;) {
      ssize_t n = pread(fd_, buf, sizeof buf, at);
      if (n <= 0) break;
      text.append(buf, static_cast<size_t>(n));
      at += n;
    }
    return text;
  }
  void close_all() {
    if (saved_ >= 0) close(saved_);
    if (fd_ >= 0) close(fd_);
    saved_ = fd_ = -1;
  }
  int fd_ = -1;
  int saved_ = -1;
};

// A failed call's words: libtorch's own, else what the tap caught.
std::string failure_words(const StderrTap& tap, const char* call) {
  std::string words = g.api.what != nullptr && g.api.what() != nullptr ? g.api.what() : tap.words();
  return words.empty() ? std::string(call) + " failed (this torch gives no words for it)" : words;
}

// An out-of-memory in libtorch's words (its CUDA and CPU allocators').
bool out_of_memory(const std::string& words) {
  return words.find("out of memory") != std::string::npos ||
         words.find("can't allocate memory") != std::string::npos;
}

// Thrown inside a question, caught at its end: the call that failed and the words.
struct Failed {
  std::string words;
};

void check(Error e, const StderrTap& tap, const char* call) {
  if (e != 0) throw Failed{failure_words(tap, call)};
}

// Runs `body`, turning a failed call into a status: nothing escapes the C ABI.
template <typename Body>
kd_status guarded(kd_error* err, Body&& body) {
  StderrTap tap;
  return kd::probe::guarded_call(err, [&]() -> kd_status {
    try {
      body(tap);
      return KD_OK;
    } catch (const Failed& f) {
      bool oom = out_of_memory(f.words);
      set_error(err, oom ? KD_ERROR_OUT_OF_MEMORY : KD_ERROR_C10, f.words);
      return oom ? KD_OUT_OF_MEMORY : KD_RUNTIME_ERROR;
    }
  });
}

// ---- tensors ----

// An owning reference to a tensor, deleted at the end of its scope.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Handle h) : h_(h) {}
  Tensor(Tensor&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  Tensor& operator=(Tensor&& o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  ~Tensor() {
    if (h_ != nullptr) g.api.delete_tensor(h_);
  }
  Handle get() const { return h_; }

 private:
  Handle h_ = nullptr;
};

// The calls of one question, with the tap that catches their words.
class Calls {
 public:
  Calls(const StderrTap& tap, int device_type, int32_t index)
      : tap_(tap), device_type_(device_type), index_(index) {}

  // A new reference for the dispatcher's stack, which takes ownership of it.
  StableIValue own(const Tensor& t) const {
    Handle h = nullptr;
    check(g.api.new_handle(t.get(), &h), tap_, "aoti_torch_new_tensor_handle");
    return reinterpret_cast<StableIValue>(h);
  }

  // op(args...) through the dispatcher; the first result is the stack's first
  // entry. `arguments` is the stack, every argument of the schema given.
  StableIValue op(const char* name, const char* overload, std::vector<StableIValue> arguments) const {
    arguments.resize(std::max<size_t>(arguments.size(), 1));
    check(g.api.call(name, overload, arguments.data(), kSpeaks), tap_, name);
    return arguments[0];
  }
  Tensor tensor(const char* name, const char* overload, std::vector<StableIValue> arguments) const {
    return Tensor(reinterpret_cast<Handle>(op(name, overload, std::move(arguments))));
  }

  // An uninitialised float32 tensor of `sizes` (contiguous) on `device_type`.
  Tensor empty(const std::vector<int64_t>& sizes, int device_type) const {
    std::vector<int64_t> strides(sizes.size(), 1);
    for (size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * sizes[i];
    Handle h = nullptr;
    check(g.api.empty_strided(static_cast<int64_t>(sizes.size()), sizes.data(), strides.data(),
                              g.api.dtype_float32(), device_type,
                              device_type == g.api.device_cpu() ? 0 : index_, &h),
          tap_, "aoti_torch_empty_strided");
    return Tensor(h);
  }

  // A tensor of `values` on the chosen device, made on the CPU and copied there.
  Tensor values(const std::vector<int64_t>& sizes, const std::vector<float>& values) const {
    Tensor cpu = empty(sizes, g.api.device_cpu());
    void* data = nullptr;
    check(g.api.data_ptr(cpu.get(), &data), tap_, "aoti_torch_get_data_ptr");
    std::memcpy(data, values.data(), values.size() * sizeof(float));
    if (device_type_ == g.api.device_cpu()) return cpu;
    Tensor there = empty(sizes, device_type_);
    check(g.api.copy(there.get(), cpu.get(), 0), tap_, "aoti_torch_copy_");
    return there;
  }

  // The `n` floats of `t` (contiguous), copied to the CPU first.
  void read(const Tensor& t, const std::vector<int64_t>& sizes, float* out, size_t n) const {
    Tensor cpu = empty(sizes, g.api.device_cpu());
    check(g.api.copy(cpu.get(), t.get(), 0), tap_, "aoti_torch_copy_");
    void* data = nullptr;
    check(g.api.data_ptr(cpu.get(), &data), tap_, "aoti_torch_get_data_ptr");
    std::memcpy(out, data, n * sizeof(float));
  }

  const StderrTap& tap() const { return tap_; }
  int device_type() const { return device_type_; }
  int32_t index() const { return index_; }

 private:
  const StderrTap& tap_;
  int device_type_;
  int32_t index_;
};

int device_type_of(int kind) {
  return kind == KD_DEVICE_CUDA ? g.api.device_cuda() : g.api.device_cpu();
}

// ---- the library ----

bool loaded(const char* prefix) { return !kd::probe::loaded_object(prefix).empty(); }

kd_status library_info(kd_library_info* out, kd_error* err) {
  *out = kd_library_info{};
  if (g.libtorch == nullptr) {
    set_error(err, KD_ERROR_PROBE_STATE, "libtorch is not loaded");
    return KD_RUNTIME_ERROR;
  }
  copy_text(out->version, sizeof out->version, g.version);
  if (!g.hip.empty() || loaded("libtorch_hip.so")) {
    out->backend = KD_BACKEND_ROCM;
    copy_text(out->hip_version, sizeof out->hip_version, g.hip.empty() ? "unknown" : g.hip);
  } else if (!g.cuda.empty() || loaded("libtorch_cuda.so")) {
    out->backend = KD_BACKEND_CUDA;
    copy_text(out->cuda_version, sizeof out->cuda_version, g.cuda.empty() ? "unknown" : g.cuda);
  } else {
    out->backend = KD_BACKEND_NONE;
  }
  return KD_OK;
}

// libtorch's reason for a GPU it cannot use, in its own words: a first
// allocation on the device raises it, as libtorch's own first GPU use would.
void explain_no_gpu(kd_error* err) {
  kd_status ignored = guarded(err, [&](const StderrTap& tap) {
    Calls c(tap, g.api.device_cuda(), 0);
    Tensor t = c.empty({1}, g.api.device_cuda());
  });
  (void)ignored;
}

kd_status gpu_info(kd_gpu_info* out, kd_error* err) {
  int error = 0;
  long long count = kd::probe::runtime_device_count(&error);
  out->device_count = count < 0 ? 0 : count;
  out->available = count > 0 ? 1 : 0;
  if (out->available == 0) explain_no_gpu(err);
  return KD_OK;
}

// ---- the device ----

// In CPU mode nothing may ask a GPU driver anything: the device types but the CPU are withdrawn
// from c10's registry the autograd engine reads (kd::probe::withdraw_device_types), found here
// with dlsym. Where the registry cannot be found, CPU mode does without the autograd engine.
bool g_gpu_types_withdrawn = false;

void withdraw_gpu_device_types() {
  void* registry = dlsym(g.libtorch, "_ZN3c104impl26device_guard_impl_registryE");
  if (registry == nullptr) return;
  kd::probe::withdraw_device_types(registry);
  g_gpu_types_withdrawn = true;
}

// Waits for the device: libtorch's current stream where its stable functions
// reach it, else the whole device through the runtime.
void synchronize(const Calls& c) {
  void* stream = nullptr;
  if (g.api.current_cuda_stream != nullptr && g.api.cuda_stream_synchronize != nullptr &&
      g.api.current_cuda_stream(c.index(), &stream) == 0) {
    check(g.api.cuda_stream_synchronize(stream, c.index()), c.tap(), "torch_cuda_stream_synchronize");
    return;
  }
  if (!kd::probe::runtime_synchronize(c.index())) {
    throw Failed{"the device could not be synchronized through the GPU runtime"};
  }
}

kd_status init_device(int kind, long long index, kd_error* err) {
  return guarded(err, [&](const StderrTap& tap) {
    if (kind == KD_DEVICE_CPU) withdraw_gpu_device_types();
    Calls c(tap, device_type_of(kind), static_cast<int32_t>(index));
    Tensor t = c.empty({1}, c.device_type());
    if (kind == KD_DEVICE_CUDA) synchronize(c);
  });
}

// ---- the computation ----

// How a.grad is read back after backward, by release. No stable C function
// reads .grad; the internal operator inductor::accumulate_grad_ sets it, and in
// the releases where it returns the tensor it makes a.grad, a zeros tensor set
// through it is the very tensor backward then adds into. Its schema changed
// across releases; a release not in the table is tried only where its library
// holds the schema the reader speaks.
enum class GradientReader { None, AccumulateGradReturns };
struct GradientRow {
  int minor;  // torch 2.minor
  GradientReader reader;
};
constexpr const char* kAccumulateGradSchema =
    "accumulate_grad_(Tensor variable, Tensor? variable_grad, Tensor? new_grad) -> Tensor?";
// Measured on PyPI's wheels (docs/torch-matrix.json, ci/torch-matrix).
constexpr GradientRow kGradientReaders[] = {
    {10, GradientReader::None},  // accumulate_grad_(Tensor variable, Tensor new_grad) -> ()
    {11, GradientReader::None},  // the same
    {12, GradientReader::None},  // the same
    {13, GradientReader::AccumulateGradReturns},  // kAccumulateGradSchema, from 2.13 on
    {14, GradientReader::AccumulateGradReturns},
    {15, GradientReader::AccumulateGradReturns},
};

// Whether the loaded libtorch_cpu holds `text` in its read-only data (the
// schemas its operators are registered with), read in the process's memory.
bool library_holds(const char* text) {
  struct Search {
    const char* text;
    bool found;
  } search{text, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        const char* name = info->dlpi_name;
        if (name == nullptr || std::strstr(name, "libtorch_cpu.so") == nullptr) return 0;
        for (int i = 0; i < info->dlpi_phnum && !s->found; ++i) {
          const ElfW(Phdr)& p = info->dlpi_phdr[i];
          if (p.p_type != PT_LOAD || (p.p_flags & (PF_W | PF_X)) != 0) continue;
          const void* at = reinterpret_cast<const void*>(info->dlpi_addr + p.p_vaddr);
          s->found = memmem(at, p.p_filesz, s->text, std::strlen(s->text)) != nullptr;
        }
        return 1;
      },
      &search);
  return search.found;
}

GradientReader gradient_reader(int kind) {
  if (kind == KD_DEVICE_CPU && !g_gpu_types_withdrawn) return GradientReader::None;
  if (g.major != 2) return library_holds(kAccumulateGradSchema) ? GradientReader::AccumulateGradReturns
                                                                 : GradientReader::None;
  for (const GradientRow& row : kGradientReaders) {
    if (row.minor == g.minor) return row.reader;
  }
  return library_holds(kAccumulateGradSchema) ? GradientReader::AccumulateGradReturns
                                              : GradientReader::None;
}

// An optional argument with a value: a pointer to a boxed value, which the
// dispatcher frees.
StableIValue some(StableIValue value) {
  StableIValue* boxed = nullptr;
  if (g.api.new_stable_ivalue != nullptr && g.api.new_stable_ivalue(&boxed) == 0) {
    *boxed = value;
  } else {
    boxed = new StableIValue(value);
  }
  return reinterpret_cast<StableIValue>(boxed);
}

// The tensor an optional result holds (nullptr-handled for None).
Tensor unboxed(StableIValue result) {
  auto* boxed = reinterpret_cast<StableIValue*>(result);
  if (boxed == nullptr) return Tensor();
  Tensor t(reinterpret_cast<Handle>(*boxed));
  if (g.api.delete_stable_ivalue != nullptr) {
    g.api.delete_stable_ivalue(boxed);
  } else {
    delete boxed;
  }
  return t;
}

struct Graph {
  Tensor a, b, p, loss;
};

// backward through libtorch's autograd engine, with a.grad read back as the
// tensor set through accumulate_grad_ (kGradientReaders).
Tensor autograd_gradient(const Calls& c, const Graph& g_) {
  Tensor zeros = c.tensor("aten::zeros_like", "", {c.own(g_.a), 0, 0, 0, 0, 0});
  Tensor grad = unboxed(c.op("inductor::accumulate_grad_", "", {c.own(g_.a), 0, some(c.own(zeros))}));
  if (grad.get() == nullptr) throw Failed{"inductor::accumulate_grad_ returned no gradient"};
  ListHandle inputs = nullptr;
  check(g.api.new_list(1, &inputs), c.tap(), "torch_new_list_reserve_size");
  check(g.api.push_back(inputs, c.own(g_.a)), c.tap(), "torch_list_push_back");
  c.op("aten::_backward", "", {c.own(g_.loss), reinterpret_cast<StableIValue>(inputs), 0, 0, 0});
  return grad;
}

// d loss / d a by its formula, 2*sum(p) * ones_like(p) @ b^T, with gradient mode
// off: products and sums only, on the device.
Tensor explicit_gradient(const Calls& c, const Graph& g_, const Tensor& sum) {
  const bool was_enabled = g.api.grad_mode_is_enabled();
  g.api.grad_mode_set_enabled(false);
  struct Restore {
    bool enabled;
    ~Restore() { g.api.grad_mode_set_enabled(enabled); }
  } restore{was_enabled};
  Tensor two = c.values({}, {2.0f});
  Tensor twice = c.tensor("aten::mul", "Tensor", {c.own(sum), c.own(two)});
  Tensor ones = c.tensor("aten::ones_like", "", {c.own(g_.p), 0, 0, 0, 0, 0});
  Tensor d_p = c.tensor("aten::mul", "Tensor", {c.own(ones), c.own(twice)});
  Tensor b_t = c.tensor("aten::t", "", {c.own(g_.b)});
  return c.tensor("aten::mm", "", {c.own(d_p), c.own(b_t)});
}

void compute_on(const Calls& c, int kind, kd_compute_result* out) {
  Graph gr;
  gr.a = c.values({2, 2}, {1, 2, 3, 4});
  gr.b = c.values({2, 2}, {2, 0, 0, 1});
  check(g.api.set_requires_grad(gr.a.get(), true), c.tap(), "torch_set_requires_grad");
  gr.p = c.tensor("aten::matmul", "", {c.own(gr.a), c.own(gr.b)});
  Tensor sum = c.tensor("aten::sum", "", {c.own(gr.p), 0});
  gr.loss = c.tensor("aten::square", "", {c.own(sum)});
  Tensor autograd;
  if (gradient_reader(kind) == GradientReader::AccumulateGradReturns) autograd = autograd_gradient(c, gr);
  Tensor formula = explicit_gradient(c, gr, sum);
  if (kind == KD_DEVICE_CUDA) {
    synchronize(c);
    out->synchronized = 1;
  }
  c.read(gr.p, {2, 2}, out->product, 4);
  c.read(gr.loss, {}, &out->loss, 1);
  if (autograd.get() != nullptr) {
    c.read(autograd, {2, 2}, out->gradient, 4);
    c.read(formula, {2, 2}, out->explicit_gradient, 4);
    out->gradient_source = KD_GRADIENT_AUTOGRAD;
    out->explicit_computed = 1;
  } else {
    c.read(formula, {2, 2}, out->gradient, 4);
    out->gradient_source = KD_GRADIENT_EXPLICIT;
  }
}

kd_status compute(int kind, long long index, kd_compute_result* out, kd_error* err) {
  *out = kd_compute_result{};
  return guarded(err, [&](const StderrTap& tap) {
    compute_on(Calls(tap, device_type_of(kind), static_cast<int32_t>(index)), kind, out);
  });
}

// The stable ABI has no allocator counters: unknown, never guessed.
kd_status memory(long long, kd_memory_info* out, kd_error*) {
  out->allocated_bytes = -1;
  out->reserved_bytes = -1;
  return KD_OK;
}

kd_status device_info(long long index, kd_device_info* out, kd_error*) {
  kd::probe::device_info(index, out);
  return KD_OK;
}

kd_status runtime_status(int kind, long long, const char* failure, kd_runtime_status* out,
                         kd_error*) {
  kd::probe::runtime_status(kind, failure, out);
  return KD_OK;
}

const kd_probe kProbe = {KD_PROBE_ABI_VERSION, library_info, gpu_info,    init_device,
                         compute,              memory,       device_info, runtime_status,
                         KD_PROBE_KIND_STABLE_ABI, load_library};

}  // namespace

extern "C" __attribute__((visibility("default"))) const kd_probe* KD_PROBE_ENTRY(void) {
  return &kProbe;
}
