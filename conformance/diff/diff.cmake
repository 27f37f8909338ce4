# Included from the top-level CMakeLists.txt: the differential suite, conformance/diff/diff.sh, as
# the CTest entry conformance.diff. It runs every config of conformance/diff/corpus/ under Debian's
# runc (SHARNESS_DIFF_REFERENCE=/usr/bin/crun: under crun) and under the built runtime, and fails
# on any difference that docs/intended-differences.md does not list.
add_test(NAME conformance.diff COMMAND bash ${CMAKE_SOURCE_DIR}/conformance/diff/diff.sh)
set_tests_properties(conformance.diff PROPERTIES
  ENVIRONMENT "SHARNESS_RUNTIME=$<TARGET_FILE:sharness-runtime>;SHARNESS_SOURCE_DIR=${CMAKE_SOURCE_DIR};CONSOLE_RECEIVER=$<TARGET_FILE:console-receiver>"
  RUN_SERIAL TRUE TIMEOUT 900 SKIP_RETURN_CODE 77)
