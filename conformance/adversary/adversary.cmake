# Included from the top-level CMakeLists.txt: the adversarial suites, conformance/adversary/*.sh, as
# CTest entries adversary.<name>, registered as conformance/suites/*.sh are. Each plays a client
# that tries to loosen the operator's floor through one channel (DESIGN.md §3).
file(GLOB ADVERSARY_SUITES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/conformance/adversary/*.sh)
foreach(suite ${ADVERSARY_SUITES})
  get_filename_component(name ${suite} NAME_WE)
  add_test(NAME adversary.${name} COMMAND bash ${suite})
  set_tests_properties(adversary.${name} PROPERTIES
    ENVIRONMENT "SHARNESS_RUNTIME=$<TARGET_FILE:sharness-runtime>;SHARNESS_SOURCE_DIR=${CMAKE_SOURCE_DIR}"
    RUN_SERIAL TRUE TIMEOUT 600)
endforeach()
