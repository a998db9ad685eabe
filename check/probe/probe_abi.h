/* The C interface between the worker and a probe module.
 *
 * A probe module is a shared library that alone links libtorch (or, for the
 * conformance suite, a fault-injecting stand-in). The worker loads it with
 * dlopen and asks for the symbol KD_PROBE_ENTRY_SYMBOL. Only C types cross this
 * boundary, so the probe can be compiled with libtorch's own flags (C++ ABI,
 * standard) while the rest of the check uses the project's.
 *
 * Every call returns a kd_status and never lets an exception escape. Text
 * fields are NUL-terminated and truncated to their buffer. Deciding what the
 * answers mean (which outcome, whether the numbers are right) is the worker's
 * job, not the probe's: a probe only reports what the library says. */
#ifndef KERNODECK_PROBE_ABI_H
#define KERNODECK_PROBE_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2 added device_info, version 3 runtime_status, version 4 the probe's
 * kind, load_library (a probe that does not link libtorch) and the gradient's
 * source. The entry point's name carries the version, so a module of another
 * version is not even found: define a probe's entry as
 * `const kd_probe* KD_PROBE_ENTRY(void)`. */
#define KD_PROBE_ABI_VERSION 4u
#define KD_PROBE_ENTRY kernodeck_probe_v4
#define KD_PROBE_STRINGIFY_(x) #x
#define KD_PROBE_STRINGIFY(x) KD_PROBE_STRINGIFY_(x)
#define KD_PROBE_ENTRY_SYMBOL KD_PROBE_STRINGIFY(KD_PROBE_ENTRY) /* "kernodeck_probe_v4" */

typedef enum kd_status {
  KD_OK = 0,
  KD_OUT_OF_MEMORY = 1, /* an allocation failed */
  KD_RUNTIME_ERROR = 2  /* any other error raised by the library */
} kd_status;

typedef enum kd_backend {
  KD_BACKEND_NONE = 0, /* built without CUDA or HIP */
  KD_BACKEND_CUDA = 1,
  KD_BACKEND_ROCM = 2
} kd_backend;

typedef enum kd_device_kind { KD_DEVICE_CPU = 0, KD_DEVICE_CUDA = 1 } kd_device_kind;

typedef struct kd_error {
  char type[64];     /* one of KD_ERROR_* below */
  char message[512]; /* first line of the library's message */
} kd_error;

/* The types a probe gives an error (kd_error.type), its whole list. The worker
 * keeps the backend's own (libtorch's exception, by the class it caught) as
 * the report's error.type; the others it reads (causes.hpp). */
#define KD_ERROR_OUT_OF_MEMORY "OutOfMemoryError" /* c10::OutOfMemoryError */
#define KD_ERROR_C10 "c10::Error"                 /* c10::Error */
#define KD_ERROR_BAD_ALLOC "std::bad_alloc"       /* std::bad_alloc */
#define KD_ERROR_EXCEPTION "std::exception"       /* another std::exception */
#define KD_ERROR_UNKNOWN "unknown"                /* an exception of unknown type */
#define KD_ERROR_PROBE_STATE "ProbeState"         /* a call before libtorch is loaded */
#define KD_ERROR_LOADER "loader" /* load_library: the loader's words; the worker names the cause */
#define KD_ERROR_STABLE_ABI_TOO_OLD "StableAbiTooOld" /* load_library: that cause of causes.hpp */

typedef struct kd_library_info {
  char version[64];      /* the loaded library's version, "" if unknown */
  char cuda_version[32]; /* CUDA version it was built with, "" if none */
  char hip_version[64];  /* HIP/ROCm version it was built with, "" if none */
  int backend;           /* a kd_backend */
} kd_library_info;

typedef struct kd_gpu_info {
  int available;           /* 1 if the library can use a GPU in this process */
  long long device_count;  /* GPUs visible to this process */
} kd_gpu_info;

/* How kd_compute_result.gradient was computed. */
typedef enum kd_gradient_source {
  KD_GRADIENT_AUTOGRAD = 0, /* libtorch's autograd engine (backward), read back from a.grad */
  KD_GRADIENT_EXPLICIT = 1, /* the derivative's formula, 2*sum(p) * ones @ b^T, on the device */
  KD_GRADIENT_NONE = 2      /* none: a precision autograd has no gradient in (float8) */
} kd_gradient_source;

typedef struct kd_compute_result {
  float product[4];  /* a @ b, row-major */
  float gradient[4]; /* d loss / d a, row-major */
  float loss;        /* (sum of the product)^2 */
  int synchronized;  /* 1 if the device was synchronized before reading */
  int gradient_source;         /* a kd_gradient_source: how `gradient` was computed */
  int explicit_computed;       /* 1 if explicit_gradient holds the formula's gradient too */
  float explicit_gradient[4];  /* the formula's gradient beside an autograd one, row-major */
} kd_compute_result;

typedef struct kd_memory_info {
  long long allocated_bytes; /* -1 if unknown */
  long long reserved_bytes;  /* -1 if unknown */
} kd_memory_info;

typedef struct kd_device_info {
  char name[256];      /* the model name the backend reports, "" if unknown */
  char capability[64]; /* CUDA compute capability ("9.0") or HIP arch name, "" if unknown */
} kd_device_info;

/* The GPU runtime that answered runtime_status. */
typedef enum kd_runtime_api {
  KD_API_NONE = 0, /* no GPU runtime could be asked */
  KD_API_CUDA = 1, /* the CUDA runtime (libcudart) */
  KD_API_HIP = 2   /* HIP's runtime (libamdhip64) */
} kd_runtime_api;

/* The GPU runtime's own answer after a GPU call failed: its error number and
 * words, uncut, as the runtime gives them (cudaGetErrorName,
 * cudaGetErrorString), and the versions it reports. */
typedef struct kd_runtime_status {
  int api;              /* a kd_runtime_api */
  int error_number;     /* cudaError_t or hipError_t; 0 when the runtime names no error */
  int driver_version;   /* cudaDriverGetVersion / hipDriverGetVersion: 0 no driver, -1 unknown */
  int runtime_version;  /* cudaRuntimeGetVersion / hipRuntimeGetVersion, -1 unknown */
  char error_name[64];  /* e.g. "cudaErrorSystemDriverMismatch", "" if none */
  char error_text[256]; /* the runtime's own words for the error, "" if none */
} kd_runtime_status;

/* The probe kinds of kd_probe.kind: one that links libtorch, built against its
 * C++ headers (the compiled probe), and one that calls only libtorch's stable
 * C functions, found with dlsym (the stable probe). */
#define KD_PROBE_KIND_LIBTORCH "libtorch"
#define KD_PROBE_KIND_STABLE_ABI "stable_abi"

typedef struct kd_probe {
  unsigned abi_version; /* KD_PROBE_ABI_VERSION */
  /* What the library is: versions and the declared backend. Touches no driver. */
  kd_status (*library_info)(kd_library_info* out, kd_error* err);
  /* Whether a GPU is usable and how many are visible. Initialises the driver.
   * When no GPU is usable, the call still succeeds and may fill `err` with the
   * library's reason, in its own words. */
  kd_status (*gpu_info)(kd_gpu_info* out, kd_error* err);
  /* Starts the device (context creation, first allocation). */
  kd_status (*init_device)(int device_kind, long long index, kd_error* err);
  /* The fixed computation of the contract on the device. */
  kd_status (*compute)(int device_kind, long long index, kd_compute_result* out, kd_error* err);
  /* The GPU allocator's counters after the computation. */
  kd_status (*memory)(long long index, kd_memory_info* out, kd_error* err);
  /* What the started GPU is: its model name and capability. Asked only after
   * init_device succeeded on a GPU; informative, never an outcome. */
  kd_status (*device_info)(long long index, kd_device_info* out, kd_error* err);
  /* Asked only in GPU mode, only after a GPU call failed (no GPU usable, the
   * device not started, the computation failed): the error number of the GPU
   * runtime the library already loaded, found with dlsym, so a probe needs no
   * toolkit's header. `failure` is the library's words for the failed call
   * ("" for none): a runtime that no longer holds the error is asked for the
   * number whose words they carry. Loads and starts nothing new. */
  kd_status (*runtime_status)(int device_kind, long long index, const char* failure,
                              kd_runtime_status* out, kd_error* err);
  /* What the probe is: KD_PROBE_KIND_LIBTORCH or KD_PROBE_KIND_STABLE_ABI. */
  const char* kind;
  /* NULL for a probe that links libtorch (the loader loaded it with the probe).
   * Else asked first, before every other call: loads the libtorch of the torch
   * folder `torch_dir` (a torch package folder, a libtorch folder, or the
   * folder holding libtorch.so), as its own `import torch` does. On failure
   * `err->type` is KD_ERROR_LOADER with the loader's own words in
   * `err->message`, or KD_ERROR_STABLE_ABI_TOO_OLD with its facts (a libtorch
   * without the stable C functions the probe calls). */
  kd_status (*load_library)(const char* torch_dir, kd_error* err);
} kd_probe;

typedef const kd_probe* (*kd_probe_entry_fn)(void);

/* Optional, beside the entry: the contract's computation again in a precision
 * (the check's --dtype), for a probe that has the whole of libtorch (the
 * compiled probe); a module without this symbol computes in float32 only. In
 * float16, bfloat16, float32 and float64 the product, the loss and the
 * gradient by autograd; in the float8 dtypes the product through
 * at::_scaled_mm (unit scales, its result in float32, the operands padded to
 * 16 by 16; float8_e5m2 times float8_e4m3fn), the loss from it and no
 * gradient (gradient_source KD_GRADIENT_NONE). A libtorch without the dtype
 * answers KD_RUNTIME_ERROR with KD_ERROR_DTYPE_MISSING. Define it as
 * `kd_status KD_PRECISION_ENTRY(int device_kind, long long index, int
 * precision, kd_compute_result* out, kd_error* err)`. */
typedef enum kd_precision {
  KD_FLOAT16 = 0,
  KD_BFLOAT16 = 1,
  KD_FLOAT8_E4M3FN = 2,
  KD_FLOAT8_E5M2 = 3,
  KD_FLOAT32 = 4,
  KD_FLOAT64 = 5
} kd_precision;
#define KD_PRECISION_ENTRY kernodeck_probe_precision_v1
#define KD_PRECISION_ENTRY_SYMBOL KD_PROBE_STRINGIFY(KD_PRECISION_ENTRY)
#define KD_ERROR_DTYPE_MISSING "DtypeMissing" /* compute_in: this libtorch has no such dtype */
typedef kd_status (*kd_compute_in_fn)(int device_kind, long long index, int precision,
                                      kd_compute_result* out, kd_error* err);

#ifdef __cplusplus
}
#endif

#endif
