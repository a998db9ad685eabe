// The GPU runtime and driver libtorch has already loaded, asked directly: both
// probes use it for what libtorch's own API does not give them (the runtime's
// error number after a failure, the GPU's model name and capability) and the
// stable probe also for the device count and a device synchronisation. Every
// entry point is a C function whose signature has not changed since CUDA 2 and
// HIP 1, found with dlsym in the library already in the process (RTLD_NOLOAD):
// no toolkit header is needed and nothing new is ever loaded.
//
//   kd_runtime_status status{};
//   kd::probe::runtime_status(failure_words, &status);
#pragma once

#include <exception>
#include <new>
#include <string>

#include "probe_abi.h"

namespace kd::probe {

// Copies `src` into a NUL-terminated buffer of `capacity` bytes, cut to fit.
void copy_text(char* dst, size_t capacity, const std::string& src);

// The error a call gives: its type (probe_abi.h's KD_ERROR_*) and message, cut to fit; nothing
// where there is no `err`.
void set_error(kd_error* err, const char* type, const std::string& message);

// Runs `body`, which returns a kd_status, turning every exception that escapes it into one, so
// that nothing crosses the C ABI: std::bad_alloc is KD_OUT_OF_MEMORY, another std::exception or
// anything else KD_RUNTIME_ERROR. Each probe's own guard catches its library's errors inside.
template <typename Body>
kd_status guarded_call(kd_error* err, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc& e) {
    set_error(err, KD_ERROR_BAD_ALLOC, e.what());
    return KD_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_error(err, KD_ERROR_EXCEPTION, e.what());
    return KD_RUNTIME_ERROR;
  } catch (...) {
    set_error(err, KD_ERROR_UNKNOWN, "an exception of unknown type");
    return KD_RUNTIME_ERROR;
  }
}

// CPU mode: libtorch's autograd engine counts the devices of every registered device type
// before its first backward pass and starts a thread for each, and counting CUDA, HIP or Vulkan
// devices initialises their driver. Every device type but the CPU (1, CUDA, to 18, IPU: every
// release from 1.13 has them) is withdrawn from `registry`, c10's array of device guards
// (c10::impl::device_guard_impl_registry, unchanged since torch 1.x), which the engine reads.
void withdraw_device_types(void* registry);

// The path of the loaded object whose file name starts with `prefix`, "" if
// none is in the process (whatever its soname's version: libcudart.so.12, .so.13).
std::string loaded_object(const char* prefix);

// The GPU runtime's answer after a GPU call failed in GPU mode (`device_kind`
// KD_DEVICE_CUDA): its error number (the one whose words `failure` carries when
// the runtime no longer holds it), name, words and versions. `out->api` stays
// KD_API_NONE in CPU mode and where no runtime is loaded.
void runtime_status(int device_kind, const char* failure, kd_runtime_status* out);

// The GPUs the loaded runtime counts; -1 (and its error number in `error`)
// where it cannot count or no runtime is loaded.
long long runtime_device_count(int* error);

// Waits for everything queued on device `index`, through the loaded runtime.
// False where no runtime is loaded or it reports an error.
bool runtime_synchronize(long long index);

// The started GPU's model name and capability, from the loaded CUDA driver
// (else HIP's runtime, which gives the name only); both "" where unknown.
void device_info(long long index, kd_device_info* out);

}  // namespace kd::probe
