// The probe module that links libtorch: answers the worker's questions of
// probe_abi.h with libtorch's C++ API. Compiled with libtorch's own flags and
// built against libtorch 1.13 through 2.x, CPU, CUDA or ROCm. Nothing here
// decides an outcome; every exception stops at this boundary.
#include <dlfcn.h>

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>
#include <torch/types.h>
#include <torch/version.h>
#include <ATen/Context.h>

#include <cstring>
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

#include "gpu_runtime.hpp"
#include "probe_abi.h"

namespace {

using kd::probe::copy_text;
using kd::probe::set_error;

// Runs `body`, turning libtorch's exceptions into a status, and every other one as
// kd::probe::guarded_call does: nothing crosses the C ABI.
template <typename Body>
kd_status guarded(kd_error* err, Body&& body) {
  return kd::probe::guarded_call(err, [&]() -> kd_status {
    try {
      body();
      return KD_OK;
    } catch (const c10::OutOfMemoryError& e) {
      set_error(err, KD_ERROR_OUT_OF_MEMORY, e.what_without_backtrace());
      return KD_OUT_OF_MEMORY;
    } catch (const c10::Error& e) {
      set_error(err, KD_ERROR_C10, e.what_without_backtrace());
      return KD_RUNTIME_ERROR;
    }
  });
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
    set_error(err, KD_ERROR_C10, e.what_without_backtrace());
  } catch (const std::exception& e) {
    set_error(err, KD_ERROR_EXCEPTION, e.what());
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

// In CPU mode nothing may ask a GPU driver anything: the process computes on the CPU only and
// ends after this check, so every device type but the CPU is withdrawn from the registry the
// autograd engine reads (kd::probe::withdraw_device_types).
void withdraw_gpu_device_types() {
  kd::probe::withdraw_device_types(&c10::impl::device_guard_impl_registry);
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
    out->gradient_source = KD_GRADIENT_AUTOGRAD;
    out->loss = loss.detach().to(torch::kCPU).item<float>();
  });
}

// The float8 dtypes came with libtorch 2.1, and at::_scaled_mm with them; until 2.4 it took
// its scales as optional arguments after the bias and returned the product with its maximum.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
#define KD_PROBE_FLOAT8 1
at::Tensor scaled_product(const at::Tensor& a, const at::Tensor& b, const at::Tensor& one) {
#if TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 4
  return std::get<0>(at::_scaled_mm(a, b, c10::nullopt, at::kFloat, one, one));
#else
  return at::_scaled_mm(a, b, one, one, c10::nullopt, c10::nullopt, at::kFloat);
#endif
}

// The contract's product in a float8 dtype (probe_abi.h, KD_PRECISION_ENTRY): the operands
// padded with zeros to 16 by 16, the second column-major, unit scales.
at::Tensor float8_product(int precision, const torch::TensorOptions& options) {
  const auto f32 = options.dtype(torch::kFloat32);
  at::Tensor a = torch::zeros({16, 16}, f32);
  at::Tensor b = torch::zeros({16, 16}, f32);
  a.narrow(0, 0, 2).narrow(1, 0, 2).copy_(torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}, f32).reshape({2, 2}));
  b.narrow(0, 0, 2).narrow(1, 0, 2).copy_(torch::tensor({2.0f, 0.0f, 0.0f, 1.0f}, f32).reshape({2, 2}));
  const auto first = precision == KD_FLOAT8_E5M2 ? at::kFloat8_e5m2 : at::kFloat8_e4m3fn;
  at::Tensor product = scaled_product(a.to(first), b.to(at::kFloat8_e4m3fn).t().contiguous().t(),
                                      torch::ones({}, f32));
  return product.narrow(0, 0, 2).narrow(1, 0, 2);
}
#endif

// A precision's dtype for autograd's computation.
torch::Dtype dtype_of(int precision) {
  switch (precision) {
    case KD_FLOAT16: return torch::kFloat16;
    case KD_BFLOAT16: return torch::kBFloat16;
    case KD_FLOAT64: return torch::kFloat64;
    default: return torch::kFloat32;
  }
}

kd_status compute_in(int kind, long long index, int precision, kd_compute_result* out,
                     kd_error* err) {
  *out = kd_compute_result{};
  const bool float8 = precision == KD_FLOAT8_E4M3FN || precision == KD_FLOAT8_E5M2;
#if !defined(KD_PROBE_FLOAT8)
  if (float8) {
    set_error(err, KD_ERROR_DTYPE_MISSING, "this libtorch has no float8 dtypes (they came with 2.1)");
    return KD_RUNTIME_ERROR;
  }
#endif
  return guarded(err, [&] {
    const auto options = torch::TensorOptions().device(target_device(kind, index));
    at::Tensor p, loss;
    if (float8) {
#if defined(KD_PROBE_FLOAT8)
      p = float8_product(precision, options);
#endif
      loss = p.sum().pow(2);
      out->gradient_source = KD_GRADIENT_NONE;
    } else {
      const auto typed = options.dtype(dtype_of(precision));
      at::Tensor a = torch::tensor({1.0, 2.0, 3.0, 4.0}, typed).reshape({2, 2});
      a.requires_grad_(true);
      at::Tensor b = torch::tensor({2.0, 0.0, 0.0, 1.0}, typed).reshape({2, 2});
      p = at::matmul(a, b);
      loss = p.sum().pow(2);
      loss.backward();
      read_matrix(a.grad().to(torch::kFloat32), out->gradient);
      out->gradient_source = KD_GRADIENT_AUTOGRAD;
    }
    if (kind == KD_DEVICE_CUDA) {
      torch::cuda::synchronize(index);
      out->synchronized = 1;
    }
    read_matrix(p.to(torch::kFloat32), out->product);
    out->loss = loss.detach().to(torch::kCPU).to(torch::kFloat32).item<float>();
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

kd_status device_info(long long index, kd_device_info* out, kd_error* err) {
  return guarded(err, [&] { kd::probe::device_info(index, out); });
}

kd_status runtime_status(int kind, long long, const char* failure, kd_runtime_status* out,
                         kd_error* err) {
  return guarded(err, [&] { kd::probe::runtime_status(kind, failure, out); });
}

const kd_probe kProbe = {KD_PROBE_ABI_VERSION, library_info, gpu_info,  init_device,
                         compute,              memory,       device_info, runtime_status,
                         KD_PROBE_KIND_LIBTORCH, nullptr};

}  // namespace

extern "C" __attribute__((visibility("default"))) const kd_probe* KD_PROBE_ENTRY(void) {
  return &kProbe;
}

extern "C" __attribute__((visibility("default"))) kd_status KD_PRECISION_ENTRY(
    int device_kind, long long index, int precision, kd_compute_result* out, kd_error* err) {
  return compute_in(device_kind, index, precision, out, err);
}
