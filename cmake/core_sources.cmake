# The runtime library's sources (everything but main() and the CLI commands), listed once for the
# main build (sharness_core) and the fuzz build (fuzz/CMakeLists.txt: fuzz_core). SHARNESS_ROOT
# is the source tree.
file(GLOB_RECURSE CORE_SOURCES CONFIGURE_DEPENDS
  ${SHARNESS_ROOT}/base/*.cpp ${SHARNESS_ROOT}/oci/*.cpp ${SHARNESS_ROOT}/spec-mapping/*.cpp
  ${SHARNESS_ROOT}/hooks/*.cpp ${SHARNESS_ROOT}/runtime/lifecycle/*.cpp ${SHARNESS_ROOT}/runtime/linux/*.cpp
  ${SHARNESS_ROOT}/runtime/cli/args.cpp ${SHARNESS_ROOT}/runtime/cli/table.cpp
  ${SHARNESS_ROOT}/tls/*.cpp ${SHARNESS_ROOT}/edges/*.cpp ${SHARNESS_ROOT}/kms/host/*.cpp)
# sd-bus calls: only in the sharness-systemd helper, which links libsystemd (CMakeLists.txt).
list(FILTER CORE_SOURCES EXCLUDE REGEX "runtime/linux/systemd_bus\\.cpp$")
