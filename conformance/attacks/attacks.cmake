# Included from the top-level CMakeLists.txt: the attack suites, conformance/attacks/*.sh, as
# CTest entries attacks.<name>, registered exactly as conformance/suites/*.sh are (our binary by
# default; not root is a failure, never a skip; cve_2019_5736 only ever attacks a copy of ours).
file(GLOB ATTACK_SUITES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/conformance/attacks/*.sh)
add_root_suites(attacks 600 ${ATTACK_SUITES})
