# sharness-kms (the KMS sidecar: gate + worker), sharness-kms-client (static, so it runs in
# any container rootfs), and the library both use (`sharness-runtime kms seal` runs `sharness-kms seal`).
find_package(OpenSSL 3 REQUIRED)
sharness_floor(sharness_kms kms "base;oci;policy;tls;linux;lifecycle" DIRS kms)
# OpenSSL comes through sharness_base: shared, or static for a SHARNESS_STATIC target.
target_link_libraries(sharness_kms PUBLIC sharness_lifecycle sharness_tls)

file(GLOB KMS_DOOR CONFIGURE_DEPENDS cmd/sharness-kms/*.cpp)
add_executable(sharness-kms ${KMS_DOOR})
target_link_libraries(sharness-kms PRIVATE sharness_kms sharness_args)
install(TARGETS sharness-kms RUNTIME DESTINATION bin)

# Only libc and OpenSSL, linked statically: the client is bind-mounted read-only into
# containers whose rootfs has no libssl.
find_library(SSL_STATIC libssl.a REQUIRED)
find_library(CRYPTO_STATIC libcrypto.a REQUIRED)
add_executable(sharness-kms-client cmd/sharness-kms-client/main.cpp kms/crypto.cpp kms/protocol.cpp tls/tls.cpp
  spec-mapping/names.cpp base/error.cpp base/file.cpp)
target_include_directories(sharness-kms-client PRIVATE ${CMAKE_SOURCE_DIR} ${OPENSSL_INCLUDE_DIR})
target_link_libraries(sharness-kms-client PRIVATE ${SSL_STATIC} ${CRYPTO_STATIC} -static-pie -pthread)
install(TARGETS sharness-kms-client RUNTIME DESTINATION bin)

# Unit tests named test_kms_* need the KMS library too, and so does hello's (hello seals a
# throwaway vault for a policy with secrets).
foreach(src ${UNIT_TESTS})
  get_filename_component(name ${src} NAME_WE)
  if(name MATCHES "^test_kms" OR name STREQUAL "test_hello")
    target_link_libraries(${name} PRIVATE sharness_kms)
  endif()
endforeach()

# The weaker-memory cases run the runtime (and so its hooks and the KMS) under a seccomp
# filter that answers ENOSYS to memfd_secret: a kernel without it, for those processes only.
add_executable(without-memfd-secret tests/tools/without_memfd_secret.cpp)
target_link_libraries(without-memfd-secret PRIVATE PkgConfig::SECCOMP)

# The KMS suite needs the two KMS binaries.
if(TEST conformance.kms)
  set_property(TEST conformance.kms APPEND PROPERTY ENVIRONMENT
    "SHARNESS_KMS=$<TARGET_FILE:sharness-kms>;SHARNESS_KMS_CLIENT=$<TARGET_FILE:sharness-kms-client>;SHARNESS_KMS_SEAL=$<TARGET_FILE:sharness-runtime>;SHARNESS_WITHOUT_MEMFD_SECRET=$<TARGET_FILE:without-memfd-secret>")
endif()
