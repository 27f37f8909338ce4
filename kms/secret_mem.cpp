#include "kms/secret_mem.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <utility>

#include "base/fd.hpp"
#include "kms/crypto.hpp"

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447  // x86_64 and arm64 (glibc headers older than the syscall)
#endif

namespace sh::kms {
namespace {

Result<Fd> open_memfd_secret() {
  int fd = static_cast<int>(::syscall(SYS_memfd_secret, O_CLOEXEC));
  if (fd < 0) return sys_error("memfd_secret");
  return Fd(fd);
}

}  // namespace

bool memfd_secret_available() { return open_memfd_secret().has_value(); }

Result<SecretMem> SecretMem::create(size_t size, bool allow_weaker) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  size = (size + page - 1) / page * page;
  SecretMem m;
  auto fd = open_memfd_secret();
  if (fd) {
    if (::ftruncate(fd->get(), static_cast<off_t>(size)) != 0) return sys_error("memfd_secret: ftruncate");
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd->get(), 0);
    if (p == MAP_FAILED) return sys_error("memfd_secret: mmap " + std::to_string(size) + " bytes");
    m.base_ = static_cast<uint8_t*>(p);
    m.size_ = size;
  } else {
    if (!allow_weaker)
      return fail(std::move(fd.error())
                      .context("secret memory: the kernel gives no memfd_secret (boot with secretmem.enable=1, "
                               "or allow the weaker mode with \"allowWeakerMemory\": true)"));
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return sys_error("secret memory (weaker mode): mmap");
    m.base_ = static_cast<uint8_t*>(p);
    m.size_ = size;
    m.weak_ = true;
    if (::mlock(p, size) != 0) return sys_error("secret memory (weaker mode): mlock");
    if (::madvise(p, size, MADV_DONTDUMP) != 0) return sys_error("secret memory (weaker mode): MADV_DONTDUMP");
    if (::madvise(p, size, MADV_WIPEONFORK) != 0) return sys_error("secret memory (weaker mode): MADV_WIPEONFORK");
  }
  std::memset(m.base_, 0, m.size_);  // faults every page in now
  return m;
}

SecretMem::SecretMem(SecretMem&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)), size_(std::exchange(o.size_, 0)), weak_(o.weak_) {}

SecretMem& SecretMem::operator=(SecretMem&& o) noexcept {
  if (this != &o) {
    this->~SecretMem();
    base_ = std::exchange(o.base_, nullptr);
    size_ = std::exchange(o.size_, 0);
    weak_ = o.weak_;
  }
  return *this;
}

SecretMem::~SecretMem() {
  if (!base_) return;
  scrub(base_, size_);
  ::munmap(base_, size_);
  base_ = nullptr;
}

std::string SecretMem::describe() const {
  char buf[224];
  std::snprintf(buf, sizeof buf, "%s (%zu bytes at %p)",
                weak_ ? "WEAKER MODE (no memfd_secret, allowed by allowWeakerMemory): ordinary anonymous memory, "
                        "mlocked, MADV_DONTDUMP, MADV_WIPEONFORK, readable by root via /proc/<pid>/mem"
                      : "memfd_secret",
                size_, static_cast<void*>(base_));
  return buf;
}

}  // namespace sh::kms
