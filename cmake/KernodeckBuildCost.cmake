# What the compiler spends its time on, kept down without changing what is built for users.
# Measured on one of check/'s files (evidence.cpp, 2 cores): 15.7 s at -O2 -g, 10.5 s at -O2 -g1,
# 7.5 s at -O0 -g1, 2.9 s of it parsing the headers; a suite's file 10.5 s, 5.9 s, 3.7 s and 1.7 s.
# The cost is the JSON library's templates, instantiated, optimised and described in full debug
# information in every file that uses them (docs/suite.md, "How long a build takes"):
# - the presets build RelWithDebInfo with line tables alone (-g1: a backtrace, a sanitizer's
#   report and a profile keep their files and lines) instead of -g (CMakePresets.json);
# - kernodeck_test_code(TARGET...): code that only tests (the harness, the suites, the unit tests)
#   is built without optimisation: the check it certifies is built as its users get it;
# - kernodeck_precompile(TARGET [REUSE_FROM OTHER]): the JSON library and the standard headers the
#   files include, precompiled once per target (or once for a family of targets built alike);
# - kernodeck_unity(TARGET [EXCEPT FILE...]): the target's files compiled eight to a unit, so that
#   the templates they share are instantiated and optimised once a unit (the check's core: 145 s
#   to 114 s for what ./ci/conformance builds). A file whose names at namespace scope would meet
#   another's is left out (EXCEPT), with the reason beside the call.
# - __FILE__ (GoogleTest's "Case declared at", an assertion's file) is the file's path in the
#   project, whichever folder the build is in and however the compiler is given the file: by its
#   absolute path, as CMake gives it, or relative to the build tree, as a compiler cache with a
#   base folder does (ci/common.sh, kd_compiler_cache), so that build trees share their objects.
include_guard(GLOBAL)
option(KERNODECK_PRECOMPILED_HEADERS "Precompile the headers the project's files share" ON)

file(RELATIVE_PATH kernodeck_source_from_build "${CMAKE_BINARY_DIR}" "${PROJECT_SOURCE_DIR}/")
add_compile_options("-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=")
if(kernodeck_source_from_build)
  add_compile_options("-fmacro-prefix-map=${kernodeck_source_from_build}=")
endif()

function(kernodeck_test_code)
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE -O0)
  endforeach()
endfunction()

function(kernodeck_unity target)
  cmake_parse_arguments(ARG "" "" "EXCEPT" ${ARGN})
  # gcov's line counts stay with each file where coverage is measured.
  if(KERNODECK_COVERAGE)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  if(ARG_EXCEPT)
    set_source_files_properties(${ARG_EXCEPT} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
endfunction()

function(kernodeck_precompile target)
  cmake_parse_arguments(ARG "" "REUSE_FROM" "HEADERS" ${ARGN})
  if(NOT KERNODECK_PRECOMPILED_HEADERS)
    return()
  endif()
  if(ARG_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${ARG_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE <nlohmann/json.hpp> <functional> <map>
                              <optional> <string> <vector> ${ARG_HEADERS})
  endif()
endfunction()
