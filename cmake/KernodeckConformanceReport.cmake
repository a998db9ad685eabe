# The conformance run's own report, as two CTest tests of the fixture kernodeck_report that
# every conformance case requires (suites/CMakeLists.txt), so that any `ctest` selecting cases
# (a label, a name filter, any -j) leaves reports/junit.xml, summary.md and index.html of exactly
# those cases:
#
#   cmake -DSTEP=start  -DREPORTS=DIR -DXML=DIR -P KernodeckConformanceReport.cmake
#     empties XML (GoogleTest's XML of each case, in the build tree) and REPORTS/cases before
#     the first case runs;
#   cmake -DSTEP=report -DREPORTS=DIR -DXML=DIR -DJUNIT=kernodeck-junit -DSOURCE=DIR -DXSD=FILE
#         [-DVARIANT=NAME] [-DEVIDENCE=kernodeck-evidence -DBUILD=DIR]
#         -P KernodeckConformanceReport.cmake
#     after the last, turns the cases' GoogleTest XML and their ".started" marks into
#     REPORTS/junit.xml, summary.md and index.html with the certificate of REPORTS/cases,
#     validates the report against the XSD when xmllint is installed and, with EVIDENCE, holds
#     every file of REPORTS against the machine's details (kernodeck-evidence --published
#     --this-machine: its absolute paths, SOURCE, BUILD and HOME, its host and user names).
#     It fails when no valid report could be written or the reports would publish the
#     machine, not when cases failed: those fail as themselves.
#
# The same options as ci/common.sh's kd_ctest, which excludes these two tests and writes the
# same files from CTest's own JUnit.
cmake_minimum_required(VERSION 3.22)

foreach(required REPORTS XML)
  if(NOT ${required})
    message(FATAL_ERROR "${required} is required")
  endif()
endforeach()

if(STEP STREQUAL "start")
  # gtest/, ctest-junit.xml and ctest-tests.json are where older builds left the raw results.
  file(REMOVE_RECURSE "${XML}" "${REPORTS}/cases" "${REPORTS}/gtest" "${REPORTS}/ctest-junit.xml"
       "${REPORTS}/ctest-tests.json")
  file(MAKE_DIRECTORY "${XML}" "${REPORTS}/cases")
  return()
elseif(NOT STEP STREQUAL "report")
  message(FATAL_ERROR "STEP must be start or report, not '${STEP}'")
endif()

foreach(required JUNIT SOURCE XSD)
  if(NOT ${required})
    message(FATAL_ERROR "${required} is required")
  endif()
endforeach()

set(args --gtest-xml "${XML}" --output "${REPORTS}/junit.xml"
    --title kernodeck-diagnostic --cases "${REPORTS}/cases" --source-root "${SOURCE}"
    --summary "${REPORTS}/summary.md" --html "${REPORTS}/index.html")
if(VARIANT)
  list(APPEND args --variant "${VARIANT}")
endif()

# The commit, as kd_commit says it: "+changes" when tracked files differ from it.
find_program(KD_GIT git)
if(KD_GIT)
  execute_process(COMMAND "${KD_GIT}" -C "${SOURCE}" rev-parse --short=12 HEAD
    OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status ERROR_QUIET)
  if(status EQUAL 0 AND commit)
    execute_process(COMMAND "${KD_GIT}" -C "${SOURCE}" status --porcelain --untracked-files=no
      OUTPUT_VARIABLE changes RESULT_VARIABLE status ERROR_QUIET)
    if(status EQUAL 0 AND NOT changes STREQUAL "")
      string(APPEND commit "+changes")
    endif()
    list(APPEND args --commit "${commit}")
  endif()
endif()

if("$ENV{KERNODECK_EXPECT_GPU}" STREQUAL "1")
  list(APPEND args --gpu-declared yes)
else()
  list(APPEND args --gpu-declared no)
endif()
if(DEFINED ENV{TMPDIR} AND NOT "$ENV{TMPDIR}" STREQUAL "")
  list(APPEND args --hide-prefix "$ENV{TMPDIR}")
else()
  list(APPEND args --hide-prefix /tmp)
endif()

execute_process(COMMAND "${JUNIT}" ${args} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "kernodeck-junit could not write ${REPORTS}/junit.xml")
endif()

find_program(KD_XMLLINT xmllint)
if(KD_XMLLINT)
  execute_process(COMMAND "${KD_XMLLINT}" --noout --schema "${XSD}" "${REPORTS}/junit.xml"
    RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${REPORTS}/junit.xml does not validate against ${XSD}")
  endif()
endif()

# Nothing published may name the machine: its folders, HOME, host or user (--this-machine).
if(EVIDENCE)
  set(machine --this-machine --machine-path "${SOURCE}")
  if(BUILD)
    list(APPEND machine --machine-path "${BUILD}")
  endif()
  execute_process(COMMAND "${EVIDENCE}" --published ${machine} "${REPORTS}"
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${REPORTS} would publish details of this machine (above)")
  endif()
endif()
message("conformance report: ${REPORTS}/junit.xml, ${REPORTS}/summary.md, ${REPORTS}/index.html")
