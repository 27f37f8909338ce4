# Included from the top-level CMakeLists.txt: the short fuzz pass as CTest entry fuzz.short, so
# `make test` (and CI) runs it. fuzz/run.sh builds the targets with clang 16 (installing
# clang-16 and libclang-rt-16-dev from Debian when missing, see fuzz/build.sh) into
# <build>/fuzz, replays fuzz/regressions/ (FUZZ_STRICT=1: an input that fails there again is a
# regression and fails the test) and fuzzes every target for 15 s (60 s in all). The first build
# of the sanitized targets takes minutes on two cores, hence the timeout.
add_test(NAME fuzz.short COMMAND bash ${CMAKE_SOURCE_DIR}/fuzz/run.sh --total 60)
set_tests_properties(fuzz.short PROPERTIES
  ENVIRONMENT "FUZZ_BUILD=${CMAKE_BINARY_DIR}/fuzz;FUZZ_STRICT=1"
  LABELS fuzz RUN_SERIAL TRUE TIMEOUT 2700)
