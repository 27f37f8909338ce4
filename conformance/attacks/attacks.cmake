# Included from the top-level CMakeLists.txt: the attack suites, conformance/attacks/*.sh, as
# CTest entries attacks.<name>, registered exactly as conformance/suites/*.sh are (our binary by
# default; not root is a failure, never a skip; cve_2019_5736 only ever attacks a copy of ours).
file(GLOB ATTACK_SUITES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/conformance/attacks/*.sh)
foreach(suite ${ATTACK_SUITES})
  get_filename_component(name ${suite} NAME_WE)
  add_test(NAME attacks.${name} COMMAND bash ${suite})
  set_tests_properties(attacks.${name} PROPERTIES
    ENVIRONMENT "SHARNESS_RUNTIME=$<TARGET_FILE:sharness-runtime>;SHARNESS_SOURCE_DIR=${CMAKE_SOURCE_DIR};CONSOLE_RECEIVER=$<TARGET_FILE:console-receiver>"
    RUN_SERIAL TRUE TIMEOUT 600)
endforeach()
