# The conformance run's own report, as two CTest tests of the fixture kernodeck_report that
# every conformance case requires (suites/CMakeLists.txt), so that any `ctest` selecting cases
# (a label, a name filter, any -j) leaves reports/junit.xml, summary.md and index.html of exactly
# those cases:
#
#   cmake -DSTEP=start  -DREPORTS=DIR -DRECORDS=DIR -P KernodeckConformanceReport.cmake
#     empties RECORDS (the record of each case, contract/case_record.hpp, in the build tree) and
#     REPORTS/cases before the first case runs;
#   cmake -DSTEP=report -DREPORTS=DIR -DRECORDS=DIR -DJUNIT=kernodeck-junit -DSOURCE=DIR
#         [-DVARIANT=NAME] [-DBUILD=DIR] [-DCAUSES=FILE] -P KernodeckConformanceReport.cmake
#     after the last, publishes the run with `kernodeck-junit publish` (reporting/publish.hpp),
#     the one pipeline ci/common.sh's kd_ctest runs too: the cases' records become
#     REPORTS/junit.xml, summary.md and index.html with the certificate
#     of REPORTS/cases (the commit git tells for SOURCE, KERNODECK_EXPECT_GPU, TMPDIR hidden)
#     and each failed case's cause from CAUSES (the build's causes.json, kernodeck-causes --json);
#     then the pipeline says that the report validates against junit-10.xsd (in-process: no
#     xmllint needed), that every skip has a reason and that no file of REPORTS names this
#     machine (its paths, SOURCE and BUILD, HOME, its host and user names), or fails. This test
#     fails when any of that fails, not when cases failed: those fail as themselves.
#
# ci/common.sh's kd_ctest excludes these two tests and publishes from CTest's own JUnit instead.
cmake_minimum_required(VERSION 3.22)

foreach(required REPORTS RECORDS)
  if(NOT ${required})
    message(FATAL_ERROR "${required} is required")
  endif()
endforeach()

if(STEP STREQUAL "start")
  # gtest/, ctest-junit.xml and ctest-tests.json are where older builds left the raw results.
  file(REMOVE_RECURSE "${RECORDS}" "${REPORTS}/cases" "${REPORTS}/gtest" "${REPORTS}/ctest-junit.xml"
       "${REPORTS}/ctest-tests.json")
  file(MAKE_DIRECTORY "${RECORDS}" "${REPORTS}/cases")
  return()
elseif(NOT STEP STREQUAL "report")
  message(FATAL_ERROR "STEP must be start or report, not '${STEP}'")
endif()

foreach(required JUNIT SOURCE)
  if(NOT ${required})
    message(FATAL_ERROR "${required} is required")
  endif()
endforeach()

set(args publish --reports "${REPORTS}" --case-records "${RECORDS}" --source-root "${SOURCE}")
if(VARIANT)
  list(APPEND args --variant "${VARIANT}")
endif()
if(BUILD)
  list(APPEND args --machine-path "${BUILD}")
endif()
if(CAUSES)
  list(APPEND args --causes "${CAUSES}")
endif()
execute_process(COMMAND "${JUNIT}" ${args} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "kernodeck-junit publish failed for ${REPORTS} (above)")
endif()
message("conformance report: ${REPORTS}/junit.xml, ${REPORTS}/summary.md, ${REPORTS}/index.html")
