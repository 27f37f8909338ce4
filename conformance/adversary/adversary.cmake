# Included from the top-level CMakeLists.txt: the adversarial suites, conformance/adversary/*.sh, as
# CTest entries adversary.<name>, registered as conformance/suites/*.sh are. Each plays a client
# that tries to loosen the operator's floor through one channel (DESIGN.md §3).
file(GLOB ADVERSARY_SUITES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/conformance/adversary/*.sh)
add_root_suites(adversary 600 ${ADVERSARY_SUITES})
