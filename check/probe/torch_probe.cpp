// The probe module that links libtorch: answers the worker's questions of
// probe_abi.h with libtorch's C++ API. Compiled with libtorch's own flags and
// built against libtorch 1.13 through 2.x, CPU, CUDA or ROCm. Nothing here
// decides an outcome; every exception stops at this boundary.
#include <dlfcn.h>
#include <link.h>

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>
#include <torch/types.h>
#include <torch/version.h>
#include <ATen/Context.h>

#include <cstring>
#include <initializer_list>
#include <map>
#include <string>

// The GPU allocator's counters. From 2.9 c10's device-generic allocator
// interface gives them (CUDA, and ROCm under the same device type) without
// the CUDA runtime's headers, which PyPI's wheels do not carry whole; before
// 2.9 only c10's CUDA/HIP allocator headers do, and they need a toolkit's.
#if defined(KD_PROBE_WITH_CUDA) || defined(KD_PROBE_WITH_HIP)
#if (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 9)) && \
    __has_include(<c10/core/CachingDeviceAllocator.h>)
#include <c10/core/CachingDeviceAllocator.h>
#define KD_PROBE_DEVICE_ALLOCATOR 1
#elif defined(KD_PROBE_WITH_CUDA) && __has_include(<c10/cuda/CUDACachingAllocator.h>) && \
    __has_include(<cuda_runtime_api.h>) && __has_include(<crt/host_config.h>)
#include <c10/cuda/CUDACachingAllocator.h>
#define KD_PROBE_CUDA_ALLOCATOR 1
#elif defined(KD_PROBE_WITH_HIP) && __has_include(<c10/hip/HIPCachingAllocator.h>)
#include <c10/hip/HIPCachingAllocator.h>
#define KD_PROBE_HIP_ALLOCATOR 1
#endif
#endif

#include "probe_abi.h"

namespace {

void copy_text(char* dst, size_t capacity, const std::string& src) {
  size_t n = std::min(capacity - 1, src.size());
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

void set_error(kd_error* err, const char* type, const std::string& message) {
  if (err == nullptr) return;
  copy_text(err->type, sizeof err->type, type);
  copy_text(err->message, sizeof err->message, message);
}

// Runs `body`, turning every exception into a status: nothing crosses the C ABI.
template <typename Body>
kd_status guarded(kd_error* err, Body&& body) {
  try {
    body();
    return KD_OK;
  } catch (const c10::OutOfMemoryError& e) {
    set_error(err, "OutOfMemoryError", e.what_without_backtrace());
    return KD_OUT_OF_MEMORY;
  } catch (const c10::Error& e) {
    set_error(err, "c10::Error", e.what_without_backtrace());
    return KD_RUNTIME_ERROR;
  } catch (const std::bad_alloc& e) {
    set_error(err, "std::bad_alloc", e.what());
    return KD_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_error(err, "std::exception", e.what());
    return KD_RUNTIME_ERROR;
  } catch (...) {
    set_error(err, "unknown", "an exception of unknown type");
    return KD_RUNTIME_ERROR;
  }
}

using BuildOptions = std::map<std::string, std::string>;

// caffe2::GetBuildOptions() is libtorch's record of how it was built (the
// "Build settings" of torch.__config__.show()). Its header is not shipped
// everywhere, so it is looked up in the loaded library itself; reading it
// initialises no GPU driver, unlike at::show_config().
const BuildOptions* build_options() {
  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(&at::show_config), &where) == 0 ||
      where.dli_fname == nullptr) {
    return nullptr;
  }
  void* lib = dlopen(where.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return nullptr;
#if defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI
  const char* symbol = "_ZN6caffe215GetBuildOptionsB5cxx11Ev";
#else
  const char* symbol = "_ZN6caffe215GetBuildOptionsEv";
#endif
  using Fn = const BuildOptions& (*)();
  auto fn = reinterpret_cast<Fn>(dlsym(lib, symbol));
  const BuildOptions* options = fn != nullptr ? &fn() : nullptr;
  dlclose(lib);  // RTLD_NOLOAD took a reference; the library stays loaded
  return options;
}

std::string option(const BuildOptions* options, const char* key) {
  if (options == nullptr) return {};
  auto it = options->find(key);
  return it == options->end() ? std::string() : it->second;
}

bool is_on(const std::string& value) {
  return value == "ON" || value == "1" || value == "TRUE" || value == "True" || value == "on";
}

kd_status library_info(kd_library_info* out, kd_error* err) {
  return guarded(err, [&] {
    *out = kd_library_info{};
    const BuildOptions* options = build_options();
    std::string version = option(options, "TORCH_VERSION");
    // Without the build record, the headers this probe was built with
    // describe the library the loader accepted for it.
    if (version.empty()) version = TORCH_VERSION;
    copy_text(out->version, sizeof out->version, version);

    bool rocm = is_on(option(options, "USE_ROCM"));
    std::string cuda = option(options, "CUDA_VERSION");
    bool cuda_built = !cuda.empty() || is_on(option(options, "USE_CUDA"));
    if (options == nullptr) {
#if defined(KD_PROBE_WITH_HIP)
      rocm = true;
#elif defined(KD_PROBE_WITH_CUDA)
      cuda_built = true;
#endif
    }
    if (rocm) {
      out->backend = KD_BACKEND_ROCM;
      std::string hip = option(options, "ROCM_VERSION");
      if (hip.empty()) hip = option(options, "HIP_VERSION");
      copy_text(out->hip_version, sizeof out->hip_version, hip.empty() ? "unknown" : hip);
    } else if (cuda_built) {
      out->backend = KD_BACKEND_CUDA;
      copy_text(out->cuda_version, sizeof out->cuda_version, cuda.empty() ? "unknown" : cuda);
    } else {
      out->backend = KD_BACKEND_NONE;
    }
  });
}

// Starts libtorch's CUDA (or HIP) support the way its own first GPU use does;
// where no GPU is usable this raises libtorch's reason. The call's name
// changed in 2.x (lazyInitCUDA, then lazyInitDevice): whichever this libtorch
// has is used.
template <typename Context>
auto start_gpu_support(Context& context, int) -> decltype(context.lazyInitDevice(c10::DeviceType::CUDA)) {
  return context.lazyInitDevice(c10::DeviceType::CUDA);
}
template <typename Context>
void start_gpu_support(Context& context, long) {
  context.lazyInitCUDA();
}

// Why libtorch sees no GPU, in its own words: libtorch's device count
// swallows the reason (it only warns), so the question is asked again of the
// call that raises it. Which cause it is, the worker decides, from the
// runtime's error number first (runtime_status).
void explain_no_gpu(kd_error* err) {
  try {
    start_gpu_support(at::globalContext(), 0);
  } catch (const c10::Error& e) {
    set_error(err, "c10::Error", e.what_without_backtrace());
  } catch (const std::exception& e) {
    set_error(err, "std::exception", e.what());
  }
}

kd_status gpu_info(kd_gpu_info* out, kd_error* err) {
  return guarded(err, [&] {
    out->device_count = static_cast<long long>(torch::cuda::device_count());
    out->available = torch::cuda::is_available() ? 1 : 0;
    if (out->available == 0 || out->device_count <= 0) explain_no_gpu(err);
  });
}

torch::Device target_device(int kind, long long index) {
  if (kind == KD_DEVICE_CUDA) {
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  return torch::Device(torch::kCPU);
}

// In CPU mode nothing may ask the GPU driver anything. libtorch's autograd
// engine counts the devices of every registered device type before its first
// backward pass, and counting CUDA or HIP devices loads and initialises the
// driver. The process computes on the CPU only and ends after this check, so
// the GPU device types are withdrawn from the registry the engine reads.
void withdraw_gpu_device_types() {
  for (c10::DeviceType type : {c10::DeviceType::CUDA, c10::DeviceType::HIP}) {
    c10::impl::device_guard_impl_registry[static_cast<size_t>(type)].store(nullptr);
  }
}

kd_status init_device(int kind, long long index, kd_error* err) {
  return guarded(err, [&] {
    if (kind == KD_DEVICE_CPU) withdraw_gpu_device_types();
    auto options = torch::TensorOptions().dtype(torch::kFloat32).device(target_device(kind, index));
    auto t = torch::zeros({1}, options);
    if (kind == KD_DEVICE_CUDA) torch::cuda::synchronize(index);
    (void)t;
  });
}

void read_matrix(const at::Tensor& t, float (&out)[4]) {
  at::Tensor cpu = t.detach().to(torch::kCPU).contiguous();
  const float* data = cpu.data_ptr<float>();
  for (int i = 0; i < 4; ++i) out[i] = data[i];
}

kd_status compute(int kind, long long index, kd_compute_result* out, kd_error* err) {
  return guarded(err, [&] {
    *out = kd_compute_result{};
    auto options = torch::TensorOptions().dtype(torch::kFloat32).device(target_device(kind, index));
    at::Tensor a = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}, options).reshape({2, 2});
    a.requires_grad_(true);
    at::Tensor b = torch::tensor({2.0f, 0.0f, 0.0f, 1.0f}, options).reshape({2, 2});
    at::Tensor p = at::matmul(a, b);
    at::Tensor loss = p.sum().pow(2);
    loss.backward();
    if (kind == KD_DEVICE_CUDA) {
      torch::cuda::synchronize(index);
      out->synchronized = 1;
    }
    read_matrix(p, out->product);
    read_matrix(a.grad(), out->gradient);
    out->loss = loss.detach().to(torch::kCPU).item<float>();
  });
}

kd_status memory(long long index, kd_memory_info* out, kd_error* err) {
  return guarded(err, [&] {
    out->allocated_bytes = -1;
    out->reserved_bytes = -1;
#if defined(KD_PROBE_DEVICE_ALLOCATOR)
    auto stats = c10::getDeviceAllocator(c10::DeviceType::CUDA)
                     ->getDeviceStats(static_cast<c10::DeviceIndex>(index));
    // Index 0 is StatType::AGGREGATE in every release.
    out->allocated_bytes = static_cast<long long>(stats.allocated_bytes[0].current);
    out->reserved_bytes = static_cast<long long>(stats.reserved_bytes[0].current);
#elif defined(KD_PROBE_CUDA_ALLOCATOR)
    auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(
        static_cast<c10::DeviceIndex>(index));
    // Index 0 is StatType::AGGREGATE in every release.
    out->allocated_bytes = static_cast<long long>(stats.allocated_bytes[0].current);
    out->reserved_bytes = static_cast<long long>(stats.reserved_bytes[0].current);
#elif defined(KD_PROBE_HIP_ALLOCATOR)
    auto stats = c10::hip::HIPCachingAllocator::getDeviceStats(
        static_cast<c10::DeviceIndex>(index));
    out->allocated_bytes = static_cast<long long>(stats.allocated_bytes[0].current);
    out->reserved_bytes = static_cast<long long>(stats.reserved_bytes[0].current);
#else
    (void)index;
#endif
  });
}

// Which GPU this is. libtorch's own answer (at::cuda::getDeviceProperties) is a
// cudaDeviceProp or hipDeviceProp_t, whose layout needs the toolkit's headers,
// which PyPI's wheels do not carry whole, and its ATen hooks give no name. So
// the question goes to the backend's own library that libtorch already loaded
// for this device, through entry points whose C signatures have not changed
// since CUDA 2 and HIP 1 (the driver API counts devices as the runtime does,
// after CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER). Nothing new is loaded:
// RTLD_NOLOAD finds the library only when it is already in the process.
template <typename Fn>
Fn loaded_symbol(std::initializer_list<const char*> libraries, const char* name) {
  for (const char* library : libraries) {
    void* lib = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr) continue;
    void* symbol = dlsym(lib, name);
    dlclose(lib);  // RTLD_NOLOAD took a reference; the library stays loaded
    if (symbol != nullptr) return reinterpret_cast<Fn>(symbol);
  }
  return nullptr;
}

void cuda_device_info(long long index, kd_device_info* out) {
  using GetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  using AttributeFn = int (*)(int*, int, int);
  const std::initializer_list<const char*> driver = {"libcuda.so.1", "libcuda.so"};
  auto get = loaded_symbol<GetFn>(driver, "cuDeviceGet");
  auto name = loaded_symbol<NameFn>(driver, "cuDeviceGetName");
  auto attribute = loaded_symbol<AttributeFn>(driver, "cuDeviceGetAttribute");
  int device = 0;
  if (get == nullptr || get(&device, static_cast<int>(index)) != 0) return;
  char text[sizeof out->name] = {};
  if (name != nullptr && name(text, static_cast<int>(sizeof text) - 1, device) == 0) {
    copy_text(out->name, sizeof out->name, text);
  }
  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR and _MINOR.
  int major = -1, minor = -1;
  if (attribute != nullptr && attribute(&major, 75, device) == 0 &&
      attribute(&minor, 76, device) == 0 && major >= 0 && minor >= 0) {
    copy_text(out->capability, sizeof out->capability,
              std::to_string(major) + "." + std::to_string(minor));
  }
}

// On ROCm the name comes from HIP's runtime. Its architecture name (gcnArchName)
// is only in hipDeviceProp_t, whose layout changed between HIP releases, so
// the capability stays unknown (null in the report) on ROCm.
void hip_device_info(long long index, kd_device_info* out) {
  using NameFn = int (*)(char*, int, int);
  auto name = loaded_symbol<NameFn>({"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"},
                                    "hipDeviceGetName");
  char text[sizeof out->name] = {};
  if (name != nullptr && name(text, static_cast<int>(sizeof text) - 1, static_cast<int>(index)) == 0) {
    copy_text(out->name, sizeof out->name, text);
  }
}

kd_status device_info(long long index, kd_device_info* out, kd_error* err) {
  return guarded(err, [&] {
    *out = kd_device_info{};
    // Whichever backend library is in the process answers: CUDA's driver, else HIP.
    cuda_device_info(index, out);
    if (out->name[0] == '\0') hip_device_info(index, out);
  });
}

// The GPU runtime libtorch already loaded, asked through entry points whose C
// signatures have not changed since CUDA 2 and HIP 1; found with dlsym, so no
// toolkit header is needed.
struct RuntimeEntries {
  int api;
  const char* library;  // the start of its file name
  const char* count;
  const char* last_error;
  const char* error_name;
  const char* error_text;
  const char* driver_version;
  const char* runtime_version;
};
constexpr RuntimeEntries kRuntimes[] = {
    {KD_API_CUDA, "libcudart.so", "cudaGetDeviceCount", "cudaGetLastError", "cudaGetErrorName",
     "cudaGetErrorString", "cudaDriverGetVersion", "cudaRuntimeGetVersion"},
    {KD_API_HIP, "libamdhip64.so", "hipGetDeviceCount", "hipGetLastError", "hipGetErrorName",
     "hipGetErrorString", "hipDriverGetVersion", "hipRuntimeGetVersion"},
};

// The path of the loaded object whose file name starts with `prefix`, "" if none
// is in the process (whatever its soname's version: libcudart.so.12, .so.13).
std::string loaded_object(const char* prefix) {
  struct Search {
    const char* prefix;
    std::string path;
  } search{prefix, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        const char* name = info->dlpi_name;
        if (name == nullptr || *name == '\0') return 0;
        const char* slash = std::strrchr(name, '/');
        const char* file = slash != nullptr ? slash + 1 : name;
        if (std::strncmp(file, s->prefix, std::strlen(s->prefix)) != 0) return 0;
        s->path = name;
        return 1;
      },
      &search);
  return search.path;
}

// The number whose words the runtime gives that `failure` carries, the
// longest such words winning; 0 if none. libtorch writes a runtime error as
// "CUDA error: <the runtime's words>".
int number_of_words(const char* (*text_of)(int), const std::string& failure) {
  int best = 0;
  size_t best_length = 0;
  for (int n = 1; n < 1000 && !failure.empty(); ++n) {
    const char* words = text_of(n);
    if (words == nullptr) continue;
    size_t length = std::strlen(words);
    if (length > best_length && std::strstr(words, "unrecognized") == nullptr &&
        failure.find(words) != std::string::npos) {
      best = n;
      best_length = length;
    }
  }
  return best;
}

void ask_runtime(const RuntimeEntries& r, void* lib, const std::string& failure,
                 kd_runtime_status* out) {
  using CountFn = int (*)(int*);
  using LastFn = int (*)();
  using TextFn = const char* (*)(int);
  using VersionFn = int (*)(int*);
  auto count = reinterpret_cast<CountFn>(dlsym(lib, r.count));
  auto last = reinterpret_cast<LastFn>(dlsym(lib, r.last_error));
  auto name = reinterpret_cast<TextFn>(dlsym(lib, r.error_name));
  auto text = reinterpret_cast<TextFn>(dlsym(lib, r.error_text));
  auto driver = reinterpret_cast<VersionFn>(dlsym(lib, r.driver_version));
  auto runtime = reinterpret_cast<VersionFn>(dlsym(lib, r.runtime_version));
  if (count == nullptr) return;
  out->api = r.api;
  // The device count answers with the error of the runtime's initialisation,
  // which it keeps; a later failure is the last error, or the one whose words
  // libtorch's message carries.
  int devices = 0;
  int number = count(&devices);
  if (number == 0 && last != nullptr) number = last();
  if (number == 0 && text != nullptr) number = number_of_words(text, failure);
  out->error_number = number;
  if (number != 0 && name != nullptr && name(number) != nullptr) {
    copy_text(out->error_name, sizeof out->error_name, name(number));
  }
  if (number != 0 && text != nullptr && text(number) != nullptr) {
    copy_text(out->error_text, sizeof out->error_text, text(number));
  }
  int version = -1;
  if (driver != nullptr && driver(&version) == 0) out->driver_version = version;
  version = -1;
  if (runtime != nullptr && runtime(&version) == 0) out->runtime_version = version;
}

kd_status runtime_status(int kind, long long, const char* failure, kd_runtime_status* out,
                         kd_error* err) {
  return guarded(err, [&] {
    *out = kd_runtime_status{};
    out->driver_version = -1;
    out->runtime_version = -1;
    if (kind != KD_DEVICE_CUDA) return;
    for (const RuntimeEntries& r : kRuntimes) {
      std::string path = loaded_object(r.library);
      if (path.empty()) continue;
      // RTLD_NOLOAD: the runtime already in the process, never another copy.
      void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
      if (lib == nullptr) continue;
      ask_runtime(r, lib, failure != nullptr ? failure : "", out);
      dlclose(lib);  // RTLD_NOLOAD took a reference; the library stays loaded
      if (out->api != KD_API_NONE) return;
    }
  });
}

const kd_probe kProbe = {KD_PROBE_ABI_VERSION, library_info, gpu_info,   init_device,
                         compute,              memory,       device_info, runtime_status};

}  // namespace

extern "C" __attribute__((visibility("default"))) const kd_probe* KD_PROBE_ENTRY(void) {
  return &kProbe;
}
