# Included from the top-level CMakeLists.txt: the client suites, conformance/clients/*.sh, as CTest
# entries clients.<name>. Each starts its own private daemon(s), registers the runtime named by
# SHARNESS_RUNTIME (ours by default; runc works too) and stops everything it started, by pid.
# Not root is a failure, never a skip (lib.sh). `make test-clients` runs only these.
file(GLOB CLIENT_SUITES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/conformance/clients/*.sh)
add_root_suites(clients 1500 ${CLIENT_SUITES})
foreach(suite ${CLIENT_SUITES})
  get_filename_component(name ${suite} NAME_WE)
  set_tests_properties(clients.${name} PROPERTIES LABELS clients)
endforeach()

# The iptables snapshot comparison docker.sh's teardown uses, checked on captured iptables-save
# outputs (no root, no daemon).
add_test(NAME unit.client_ipt_compare COMMAND bash ${CMAKE_SOURCE_DIR}/conformance/clients/ipt_compare_test.bash)
set_tests_properties(unit.client_ipt_compare PROPERTIES LABELS unit)
