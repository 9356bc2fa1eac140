include(GoogleTest)

# signet_add_test(NAME SOURCES src... LIBS lib...)
# A GoogleTest binary whose cases ctest discovers just before it runs them,
# so the build itself never executes test code.
function(signet_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    SIGNET_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    SIGNET_BINARY_DIR="${CMAKE_BINARY_DIR}")
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
    PROPERTIES TIMEOUT 300)
endfunction()

# signet_add_microbench(NAME SOURCES src... LIBS lib...)
# A Google Benchmark binary in build/bench/, never run by ctest: timings
# belong in docs/PERFORMANCE.md, not in pass/fail tests.
function(signet_add_microbench name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} benchmark::benchmark)
endfunction()
