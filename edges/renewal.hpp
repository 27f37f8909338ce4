// Renewal (docs/edges.md "Renewal"): the supervisor, root, issues a fresh leaf when a third of
// the current one's life is left, writes it into the container's tmpfs and hands it to the
// proxy over a SOCK_SEQPACKET pair; the old leaf is revoked once the proxy has taken the new.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "base/fd.hpp"

namespace sh::edges {

// The renewal message: three decimal lengths on one line, then the certificate, the key and the
// CA certificate (PEM), in one SOCK_SEQPACKET record of at most this many bytes.
inline constexpr size_t kMaxRenewal = 48 * 1024;
struct RenewedLeaf {
  std::string cert, key, ca;
};
Result<RenewedLeaf> parse_renewal(const std::string& msg);

struct Renewal {
  std::string id, role, ca_dir;
  int64_t lifetime = 0;
  Fd identity_dir;  // the container's identity tmpfs
  uint32_t uid = 0, gid = 0;  // owner of its files (the container's user)
  Fd control;       // to the proxy
  Fd live;          // the live registry: the new leaf in, then the old one out
};

// Root, but holding nothing secret between renewals: waits for the container's init (then
// stops the proxy), for the proxy (then ends), or for the time to renew. Never returns.
[[noreturn]] void supervise(Renewal rn, Fd init_pidfd, pid_t proxy);

}  // namespace sh::edges
