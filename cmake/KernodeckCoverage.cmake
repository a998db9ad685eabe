# The coverage build (preset coverage, ci/coverage): gcc's --coverage, without optimisation so
# that lines and branches are the source's. The worker and the supervisor's forked children
# leave through _exit, which skips the exit handlers that write gcov's counters: in this build
# every program's own calls to _exit go first through a wrapper that writes them
# (coverage/exit_dump.c, linked with --wrap=_exit, and --wrap=raise for a check that ends
# by its signal); and a process under a small file-size
# limit writes none (--wrap=__gcov_exit), since its counter files would be cut at the limit.
# Each program exports gcov's registry
# (__gcov_master), so that the modules it loads (the probe) register their counters there and
# are written with it.
include_guard(GLOBAL)
option(KERNODECK_COVERAGE "Build with gcc's --coverage for ci/coverage" OFF)
if(NOT KERNODECK_COVERAGE)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "KERNODECK_COVERAGE needs gcc (gcov's format, read by gcovr)")
endif()
add_compile_options(--coverage -fprofile-update=atomic)
add_link_options(--coverage)
add_library(kernodeck_coverage_exit OBJECT "${PROJECT_SOURCE_DIR}/coverage/exit_dump.c")
set(kd_is_exe "$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>")
link_libraries("$<${kd_is_exe}:kernodeck_coverage_exit>")
add_link_options("$<${kd_is_exe}:LINKER:--wrap=_exit>" "$<${kd_is_exe}:LINKER:--wrap=__gcov_exit>"
                 "$<${kd_is_exe}:LINKER:--wrap=raise>"
                 "$<${kd_is_exe}:LINKER:--export-dynamic-symbol=__gcov_master>")

# The check's own child, between fork and exec (coverage/exec_dump.c): kernodeck_coverage_finish.
function(kernodeck_coverage_finish)
  add_library(kernodeck_coverage_exec OBJECT "${PROJECT_SOURCE_DIR}/coverage/exec_dump.c")
  target_link_libraries(kernodeck-diagnostic PRIVATE kernodeck_coverage_exec)
  target_link_options(kernodeck-diagnostic PRIVATE "LINKER:--wrap=execve" "LINKER:--wrap=execv")
endfunction()
