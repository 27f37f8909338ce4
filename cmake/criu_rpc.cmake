# CRIU's RPC (checkpoint/restore through `criu swrk`): protoc-c compiles our copy of its messages,
# runtime/linux/criu_rpc.proto -> <build>/gen/runtime/linux/criu_rpc.pb-c.{c,h}, into TARGET
# (runtime/linux/criu.cpp includes the header). The main build and fuzz/ both use it.
pkg_check_modules(PROTOBUFC REQUIRED IMPORTED_TARGET libprotobuf-c)
find_program(PROTOC_C protoc-c REQUIRED)

function(sharness_criu_rpc target root)
  set(gen ${CMAKE_BINARY_DIR}/gen/runtime/linux)
  add_custom_command(OUTPUT ${gen}/criu_rpc.pb-c.c ${gen}/criu_rpc.pb-c.h
    COMMAND ${CMAKE_COMMAND} -E make_directory ${gen}
    COMMAND ${PROTOC_C} --proto_path=${root}/runtime/linux --c_out=${gen} ${root}/runtime/linux/criu_rpc.proto
    DEPENDS ${root}/runtime/linux/criu_rpc.proto
    COMMENT "protoc-c runtime/linux/criu_rpc.proto" VERBATIM)
  set_source_files_properties(${gen}/criu_rpc.pb-c.c PROPERTIES COMPILE_OPTIONS "-w")
  target_sources(${target} PRIVATE ${gen}/criu_rpc.pb-c.c)
  target_include_directories(${target} PRIVATE ${CMAKE_BINARY_DIR}/gen)
endfunction()
