# The tsan build (process/ configured alone, its preset tsan; ./ci/test's tsan step): util, the
# process library and its tests compiled with ThreadSanitizer, nothing else of the project, so
# that the supervisor's use from several threads (the harness's parallel copies of a case) is
# checked in seconds. Clang only, as the asan build. The runtime's options are built into each
# program (sanitizers/options.c): the first race ends it with exit code 86, whatever the
# environment, so the test that ran into it fails.
include_guard(GLOBAL)
option(KERNODECK_TSAN "Build with ThreadSanitizer (the process library's own build)" OFF)
if(NOT KERNODECK_TSAN)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "KERNODECK_TSAN needs clang for C and C++ (the preset tsan sets "
                      "clang-14); this build has ${CMAKE_CXX_COMPILER_ID}")
endif()
add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
add_link_options(-fsanitize=thread)
add_library(kernodeck_tsan_options OBJECT "${CMAKE_CURRENT_LIST_DIR}/../sanitizers/options.c")
link_libraries("$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:kernodeck_tsan_options>")
