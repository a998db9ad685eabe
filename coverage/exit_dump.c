/* The coverage build only (cmake/KernodeckCoverage.cmake), linked into every program with
 * --wrap=_exit and --wrap=__gcov_exit:
 * - a program's own calls to _exit (the worker's end, a forked child that could not exec)
 *   and to raise (die_by_signal: an interrupted check ends by the signal it got) write gcov's
 *   counters first, as a normal exit would;
 * - a process under a small file-size limit (the suite's RLIMIT_FSIZE cases) writes none:
 *   its counter files would be cut at the limit (or the process killed by SIGXFSZ while
 *   writing them), which corrupts the counts of every run merged into them. */
#include <sys/resource.h>
#include <unistd.h>

void __gcov_dump(void);
void __real___gcov_exit(void);
void __real__exit(int status) __attribute__((noreturn));
int __real_raise(int sig);
int __wrap_raise(int sig);
void __wrap___gcov_exit(void);
void __wrap__exit(int status) __attribute__((noreturn));

/* The largest counter file of the project is far below this. */
#define KD_COUNTERS_ROOM (16L * 1024 * 1024)

/* Also called by exec_dump.c, which is linked beside this file into the check. */
int kd_counters_would_be_cut(void);

int kd_counters_would_be_cut(void) {
  struct rlimit limit;
  return getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
         limit.rlim_cur < (rlim_t)KD_COUNTERS_ROOM;
}

void __wrap___gcov_exit(void) {
  if (!kd_counters_would_be_cut()) __real___gcov_exit();
}

void __wrap__exit(int status) {
  if (!kd_counters_would_be_cut()) __gcov_dump();
  __real__exit(status);
}

int __wrap_raise(int sig) {
  if (!kd_counters_would_be_cut()) __gcov_dump();
  return __real_raise(sig);
}
