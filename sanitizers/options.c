/* The sanitizer runtimes' default options, built into every program of the asan build
 * (cmake/KernodeckSanitizers.cmake) and of the tsan build (cmake/KernodeckThreadSanitizer.cmake;
 * each runtime asks for its own and ignores the others'). ASAN_OPTIONS, UBSAN_OPTIONS and
 * TSAN_OPTIONS still override them where they reach a program; the suite starts the check with
 * a clean environment, so for the check these are the options.
 *
 * - exitcode=86: a finding ends the program with a code no outcome of the contract uses, so
 *   a case fails on the exit code even where it expected the check to fail.
 * - handle_segv=0 and the like: a deliberate crash (the fault probe's, the unit tests'
 *   children) stays the signal the check must classify, not a sanitizer's exit.
 * - KD_SANITIZER_LOG (the check only): findings go to <build>/sanitizer-findings/sanitizer-check.<pid>, since
 *   a worker's stderr reaches the report only as its last line. */

#define KD_SIGNAL_OPTIONS                                                                   \
  "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:"           \
  "allow_user_segv_handler=1"
#define KD_COMMON_OPTIONS "exitcode=86:print_stacktrace=1:" KD_SIGNAL_OPTIONS
#ifdef KD_SANITIZER_LOG
#define KD_LOG_OPTION ":log_path=" KD_SANITIZER_LOG
#else
#define KD_LOG_OPTION ""
#endif

const char* __asan_default_options(void);
const char* __ubsan_default_options(void);
const char* __tsan_default_options(void);

const char* __asan_default_options(void) {
  return KD_COMMON_OPTIONS ":detect_leaks=1:check_initialization_order=1:strict_init_order=1" KD_LOG_OPTION;
}

const char* __ubsan_default_options(void) {
  return KD_COMMON_OPTIONS ":halt_on_error=1" KD_LOG_OPTION;
}

/* - halt_on_error=1: the first data race ends the program (exit code 86), so the test that ran
 *   into it fails even where its own checks passed. Only flags ThreadSanitizer knows: a warning
 *   about any other would land on the stderr of every child the tests capture. */
const char* __tsan_default_options(void) { return "exitcode=86:halt_on_error=1:" KD_SIGNAL_OPTIONS; }
