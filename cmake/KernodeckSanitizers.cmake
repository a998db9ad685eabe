# The asan build (preset asan): every program and library of the project compiled with
# AddressSanitizer and UndefinedBehaviorSanitizer, no recovery, frame pointers kept; and
# libFuzzer's coverage instrumentation (-fsanitize=fuzzer-no-link), so that the fuzz targets
# (fuzz/) link the very libraries the check is made of. Clang only: its sanitizer runtime
# is linked statically into each program, so the suite's LD_PRELOAD and LD_AUDIT libraries,
# mount namespaces and stripped environments cannot separate a program from its runtime.
# libtorch itself stays uninstrumented (Debian's build): its allocations go through the
# runtime's malloc, its code is not checked.
include_guard(GLOBAL)
option(KERNODECK_SANITIZE
       "Build with AddressSanitizer + UndefinedBehaviorSanitizer and build the fuzz targets" OFF)
if(NOT KERNODECK_SANITIZE)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "KERNODECK_SANITIZE needs clang for C and C++ (the preset asan sets "
                      "clang-14); this build has ${CMAKE_CXX_COMPILER_ID}")
endif()
add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer -fno-optimize-sibling-calls
                    -fsanitize=fuzzer-no-link)
add_link_options(-fsanitize=address,undefined)
# What cannot run under AddressSanitizer (an address-space limit: its shadow memory is
# terabytes of reserved addresses) is skipped with that reason where KERNODECK_SANITIZED is set.
add_compile_definitions(KERNODECK_SANITIZED=1)

# The runtimes' default options, built into every program (sanitizers/options.c): the suite
# starts the check with a clean environment, where ASAN_OPTIONS from outside never arrives.
# The check itself writes its findings to files in the build tree (sanitizer-findings/), since
# the worker's stderr is not passed on whole; ci/test fails when any is there. They name the
# machine's paths, so they stay out of the published reports.
set(KERNODECK_SANITIZER_LOG_DIR "${PROJECT_BINARY_DIR}/sanitizer-findings")
file(MAKE_DIRECTORY "${KERNODECK_SANITIZER_LOG_DIR}")
foreach(kind stderr check)
  add_library(kernodeck_sanitizer_options_${kind} OBJECT
              "${PROJECT_SOURCE_DIR}/sanitizers/options.c")
endforeach()
target_compile_definitions(kernodeck_sanitizer_options_check PRIVATE
  "KD_SANITIZER_LOG=\"${KERNODECK_SANITIZER_LOG_DIR}/sanitizer-check\"")
# Every executable but the check gets the options that report on stderr; the check, those
# that report to a file (kernodeck_sanitize_finish below).
link_libraries("$<$<AND:$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>,$<NOT:$<STREQUAL:$<TARGET_PROPERTY:NAME>,kernodeck-diagnostic>>>:kernodeck_sanitizer_options_stderr>")

# After the targets exist: the check's own options, and the libraries that must stay
# uninstrumented (each says why).
function(kernodeck_sanitize_finish)
  target_link_libraries(kernodeck-diagnostic PRIVATE kernodeck_sanitizer_options_check)
  if(TARGET kd_load_audit)
    # An LD_AUDIT library is loaded in a link namespace of its own, before the program:
    # the sanitizer runtime's symbols are out of its reach there.
    target_compile_options(kd_load_audit PRIVATE -fno-sanitize=all)
    target_link_options(kd_load_audit PRIVATE -fno-sanitize=all)
  endif()
endfunction()
