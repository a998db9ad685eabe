// The benchmark's floor: a program that loads libtorch the way the check's
// worker loads its probe (RTLD_NOW | RTLD_LOCAL) and does nothing else.
// ci/bench times kernodeck-diagnostic against it, so the difference is what
// the check's own orchestration costs.
//
//   kernodeck-dlopen-floor [--skip-exit-handlers] [LIBRARY]
//
// LIBRARY defaults to the libtorch_cpu the build found; ci/bench names the
// one the check's probe resolves, and for a CUDA libtorch also times a floor
// loading libtorch_cuda (which the probe links). --skip-exit-handlers
// leaves through _exit(), as the check's worker does, so libtorch's static
// destructors are not run; without it the program returns from main and they
// are. ci/bench measures both to show what that difference is worth.

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#ifndef KERNODECK_TORCH_CPU_LIBRARY
#error "KERNODECK_TORCH_CPU_LIBRARY must name the libtorch_cpu library to load"
#endif

int main(int argc, char** argv) {
  bool skip_exit_handlers = false;
  const char* library = KERNODECK_TORCH_CPU_LIBRARY;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--skip-exit-handlers") == 0) {
      skip_exit_handlers = true;
    } else if (argv[i][0] != '-' && argv[i][0] != '\0') {
      library = argv[i];
    } else {
      std::fprintf(stderr,
                   "usage: kernodeck-dlopen-floor [--skip-exit-handlers] [LIBRARY]\n");
      return 2;
    }
  }

  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    std::fprintf(stderr, "kernodeck-dlopen-floor: %s\n",
                 reason != nullptr ? reason : "dlopen failed without a reason");
    return 1;
  }
  if (skip_exit_handlers) _exit(0);
  // The handle stays open, as in the check: exit() runs libtorch's static
  // destructors while the library is still mapped.
  return 0;
}
