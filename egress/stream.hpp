// A byte stream the door reads heads and bodies from and writes to: a plain socket or a TLS
// session over one, with what was read but not yet used kept in `buf`.
#pragma once
#include <openssl/ssl.h>

#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sh::egress {

class Stream {
 public:
  virtual ~Stream() = default;
  // Some bytes appended to buf; false once the peer closed.
  virtual Result<bool> fill() = 0;
  virtual Result<void> write(std::string_view data) = 0;
  // Until buf starts with a whole head: its length, or 0 when the peer closed before a byte.
  Result<size_t> head();
  std::string buf;
};

class FdStream : public Stream {
 public:
  explicit FdStream(int fd) : fd_(fd) {}
  Result<bool> fill() override;
  Result<void> write(std::string_view data) override;

 private:
  int fd_;
};

class TlsStream : public Stream {
 public:
  explicit TlsStream(SSL* ssl) : ssl_(ssl) {}
  Result<bool> fill() override;
  Result<void> write(std::string_view data) override;

 private:
  SSL* ssl_;
};

}  // namespace sh::egress
