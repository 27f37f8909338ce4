# Included from the top-level CMakeLists.txt: the differential suite, conformance/diff/diff.sh, as
# the CTest entry conformance.diff. It runs every config of conformance/diff/corpus/ under Debian's
# runc (SHARNESS_DIFF_REFERENCE=/usr/bin/crun: under crun) and under the built runtime, and fails
# on any difference that docs/intended-differences.md does not list.
add_root_suites(conformance 900 ${CMAKE_SOURCE_DIR}/conformance/diff/diff.sh)
