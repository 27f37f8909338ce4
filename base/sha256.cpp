// OpenSSL's SHA256_* context API: deprecated in 3.0 but kept, and the only path that does not
// initialise the provider and config machinery, which costs 5 M instructions (4-5 ms here) on first
// use of EVP (bench/results/profile.md #2) against ~1 ms to hash a 2 MiB binary. The digest is
// the same code EVP's default provider runs (SHA-NI where the CPU has it).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "base/sha256.hpp"

#include <openssl/sha.h>
#include <unistd.h>

#include <cerrno>

namespace sh {
namespace {

std::string hex(const unsigned char (&md)[SHA256_DIGEST_LENGTH]) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * SHA256_DIGEST_LENGTH);
  for (unsigned char b : md) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  // Not the one-shot SHA256(): in OpenSSL 3 it goes through EVP_Q_digest.
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, data.data(), data.size());
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256_Final(md, &ctx);
  return hex(md);
}

Result<std::string> sha256_hex_fd(int fd, const std::string& what) {
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error(what + ": read");
    if (n == 0) break;
    SHA256_Update(&ctx, buf, size_t(n));
  }
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256_Final(md, &ctx);
  return hex(md);
}

}  // namespace sh
