/* The coverage build only, linked into the check alone with --wrap=execve and --wrap=execv
 * (cmake/KernodeckCoverage.cmake): what the supervisor's child does between fork and exec
 * (its own process group, signal dispositions, descriptors, limits, working folder) is
 * counted too, since exec replaces the process before any exit writes its counters. The
 * check alone: it is single-threaded, so its child cannot inherit gcov's lock held by another
 * thread; the suite's harness, which launches checks from several threads, is left as it is. */
#include <unistd.h>

void __gcov_dump(void);
int __real_execve(const char* path, char* const argv[], char* const envp[]);
int __real_execv(const char* path, char* const argv[]);
int __wrap_execve(const char* path, char* const argv[], char* const envp[]);
int __wrap_execv(const char* path, char* const argv[]);

/* exit_dump.c's: a counter file cut by a small file-size limit corrupts the counts. */
int kd_counters_would_be_cut(void);

int __wrap_execve(const char* path, char* const argv[], char* const envp[]) {
  if (!kd_counters_would_be_cut()) __gcov_dump();
  return __real_execve(path, argv, envp);
}

int __wrap_execv(const char* path, char* const argv[]) {
  if (!kd_counters_would_be_cut()) __gcov_dump();
  return __real_execv(path, argv);
}
