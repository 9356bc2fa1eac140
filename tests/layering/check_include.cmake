# cmake -DBUILD_DIR=... -DTARGET=... -DHEADER=... -DEXPECT=visible|hidden -P check_include.cmake
# Builds one probe target and checks the outcome: "visible" must compile;
# "hidden" must fail because HEADER is not found (any other failure, e.g. a
# broken build tree, fails the check instead of passing it by accident).
execute_process(
  COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(EXPECT STREQUAL "visible")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${HEADER} should be visible to ${TARGET} but the build failed:\n${output}")
  endif()
  message(STATUS "${HEADER}: visible, as it should be")
else()
  if(result EQUAL 0)
    message(FATAL_ERROR "${HEADER} compiled in ${TARGET}: the layer rule is not enforced")
  endif()
  # gcc says "H: No such file or directory", clang "'H' file not found".
  string(FIND "${output}" "${HEADER}: No such file or directory" found_gcc)
  string(FIND "${output}" "'${HEADER}' file not found" found_clang)
  if(found_gcc EQUAL -1 AND found_clang EQUAL -1)
    message(FATAL_ERROR "${TARGET} failed, but not because ${HEADER} is hidden:\n${output}")
  endif()
  message(STATUS "${HEADER}: hidden, as it should be")
endif()
