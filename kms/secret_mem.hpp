// Memory for the KMS's secrets: memfd_secret(2) pages, which the kernel removes from its
// direct map, so no other process (root included, through /proc/<pid>/mem or ptrace) and
// not even the kernel's own accessors can read them. Where the kernel lacks memfd_secret
// (or it is disabled: secretmem.enable=0), the KMS refuses unless its config allows the
// weaker mode: anonymous memory, mlocked, excluded from core dumps and wiped on fork, but
// readable by root through /proc/<pid>/mem. The caller says which mode it got.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "base/error.hpp"

namespace sh::kms {

class SecretMem {
 public:
  SecretMem() = default;
  // `size` bytes (rounded up to pages), zeroed and faulted in (so no later page fault needs
  // a syscall the sandbox forbids).
  static Result<SecretMem> create(size_t size, bool allow_weaker);
  SecretMem(SecretMem&& o) noexcept;
  SecretMem& operator=(SecretMem&& o) noexcept;
  SecretMem(const SecretMem&) = delete;
  SecretMem& operator=(const SecretMem&) = delete;
  ~SecretMem();  // scrubs, then unmaps

  std::span<uint8_t> bytes() { return {base_, size_}; }
  std::span<uint8_t> slot(size_t i, size_t len) { return {base_ + i * len, len}; }
  std::span<uint8_t> at(size_t offset, size_t len) { return {base_ + offset, len}; }
  bool weak() const { return weak_; }
  // "memfd_secret (N pages at 0x...)" or "WEAKER: mlocked anonymous memory (...)".
  std::string describe() const;

 private:
  uint8_t* base_ = nullptr;
  size_t size_ = 0;
  bool weak_ = false;
};

// Whether this kernel gives memfd_secret (asks once; the fd is closed at once).
bool memfd_secret_available();

}  // namespace sh::kms
