#include "gpu_runtime.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <initializer_list>

namespace kd::probe {
namespace {

// A symbol of the first of `libraries` already in the process; nullptr if none
// is loaded or none has it.
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

// Which GPU this is. libtorch's own answer is a cudaDeviceProp or hipDeviceProp_t,
// whose layout needs the toolkit's headers, so the question goes to the driver
// libtorch already loaded for this device (the driver API counts devices as the
// runtime does, after CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER).
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
  auto name = loaded_symbol<NameFn>({"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6",
                                     "libamdhip64.so.5"},
                                    "hipDeviceGetName");
  char text[sizeof out->name] = {};
  if (name != nullptr && name(text, static_cast<int>(sizeof text) - 1, static_cast<int>(index)) == 0) {
    copy_text(out->name, sizeof out->name, text);
  }
}

// The entry points of one GPU runtime, by name.
struct RuntimeEntries {
  int api;
  const char* library;  // the start of its file name
  const char* count;
  const char* last_error;
  const char* error_name;
  const char* error_text;
  const char* driver_version;
  const char* runtime_version;
  const char* set_device;
  const char* synchronize;
};
constexpr RuntimeEntries kRuntimes[] = {
    {KD_API_CUDA, "libcudart.so", "cudaGetDeviceCount", "cudaGetLastError", "cudaGetErrorName",
     "cudaGetErrorString", "cudaDriverGetVersion", "cudaRuntimeGetVersion", "cudaSetDevice",
     "cudaDeviceSynchronize"},
    {KD_API_HIP, "libamdhip64.so", "hipGetDeviceCount", "hipGetLastError", "hipGetErrorName",
     "hipGetErrorString", "hipDriverGetVersion", "hipRuntimeGetVersion", "hipSetDevice",
     "hipDeviceSynchronize"},
};

// The first runtime of kRuntimes in the process, with a handle on it (closed by
// the caller); nullptr if none.
const RuntimeEntries* loaded_runtime(void** handle) {
  for (const RuntimeEntries& r : kRuntimes) {
    std::string path = loaded_object(r.library);
    if (path.empty()) continue;
    // RTLD_NOLOAD: the runtime already in the process, never another copy.
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr || dlsym(lib, r.count) == nullptr) {
      if (lib != nullptr) dlclose(lib);
      continue;
    }
    *handle = lib;
    return &r;
  }
  return nullptr;
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

}  // namespace

void set_error(kd_error* err, const char* type, const std::string& message) {
  if (err == nullptr) return;
  copy_text(err->type, sizeof err->type, type);
  copy_text(err->message, sizeof err->message, message);
}

void withdraw_device_types(void* registry) {
  auto* guards = static_cast<const void**>(registry);
  for (int type = 1; type <= 18; ++type) __atomic_store_n(&guards[type], nullptr, __ATOMIC_SEQ_CST);
}

void copy_text(char* dst, size_t capacity, const std::string& src) {
  size_t n = std::min(capacity - 1, src.size());
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

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

void runtime_status(int device_kind, const char* failure, kd_runtime_status* out) {
  *out = kd_runtime_status{};
  out->driver_version = -1;
  out->runtime_version = -1;
  if (device_kind != KD_DEVICE_CUDA) return;
  void* lib = nullptr;
  if (const RuntimeEntries* r = loaded_runtime(&lib)) {
    ask_runtime(*r, lib, failure != nullptr ? failure : "", out);
    dlclose(lib);  // RTLD_NOLOAD took a reference; the library stays loaded
  }
}

long long runtime_device_count(int* error) {
  *error = 0;
  void* lib = nullptr;
  const RuntimeEntries* r = loaded_runtime(&lib);
  if (r == nullptr) return -1;
  auto count = reinterpret_cast<int (*)(int*)>(dlsym(lib, r->count));
  int devices = 0;
  *error = count(&devices);
  dlclose(lib);
  return *error == 0 ? devices : -1;
}

bool runtime_synchronize(long long index) {
  void* lib = nullptr;
  const RuntimeEntries* r = loaded_runtime(&lib);
  if (r == nullptr) return false;
  auto set = reinterpret_cast<int (*)(int)>(dlsym(lib, r->set_device));
  auto sync = reinterpret_cast<int (*)()>(dlsym(lib, r->synchronize));
  bool ok = set != nullptr && sync != nullptr && set(static_cast<int>(index)) == 0 && sync() == 0;
  dlclose(lib);
  return ok;
}

void device_info(long long index, kd_device_info* out) {
  *out = kd_device_info{};
  // Whichever backend library is in the process answers: CUDA's driver, else HIP.
  cuda_device_info(index, out);
  if (out->name[0] == '\0') hip_device_info(index, out);
}

}  // namespace kd::probe
