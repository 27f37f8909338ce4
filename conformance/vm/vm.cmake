# Included from the top-level CMakeLists.txt: the guest suites (docs/vm.md), one CTest entry per
# guest, vm.trixie and vm.bookworm, label vm (`make test-vm`). Each boots its Debian guest under
# qemu (building its image on first use, cached in /var/cache/sharness-vm) and runs the cases of
# conformance/vm/GUEST.list against the built binary shared into the guest.
foreach(guest trixie bookworm)
  add_test(NAME vm.${guest} COMMAND bash ${CMAKE_SOURCE_DIR}/conformance/vm/run.sh ${guest})
  set_tests_properties(vm.${guest} PROPERTIES
    ENVIRONMENT "SHARNESS_RUNTIME=$<TARGET_FILE:sharness-runtime>;SHARNESS_SOURCE_DIR=${CMAKE_SOURCE_DIR};CONSOLE_RECEIVER=$<TARGET_FILE:console-receiver>"
    LABELS vm RUN_SERIAL TRUE TIMEOUT 2700)
endforeach()
