// The gate: the KMS's only endpoint. It holds the listening UNIX socket and the TLS key,
// sits outside the worker's freezer cgroup, and for each connection: completes the mutual
// TLS 1.3 handshake (a peer with the wrong chain or role is refused there, and the worker is
// never thawed for it), reads one bounded request, thaws the worker, forwards the request,
// takes the sealed response, freezes the worker again, and only then replies. It never sees
// a master key or a derived key in clear: only requests and sealed responses pass through.
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>

#include "base/error.hpp"
#include "kms/config.hpp"
#include "kms/freezer.hpp"
#include "tls/tls.hpp"

namespace sh::kms {

struct Gate {
  const Config& cfg;
  int listen_fd;
  int chan;      // SOCK_SEQPACKET to the worker
  int sig_fd;    // signalfd for SIGTERM/SIGINT: stop
  int log_fd;
  pid_t worker;
  SSL_CTX* ctx;
  const tls::Peer& caller;  // the only peer the handshake accepts
  Freezer& freezer;
  bool worker_killed = false;  // set by forward() when the worker could not be frozen again
};

struct Forwarded {
  std::string response;  // empty: the worker sent nothing in time
  double thaw_ms = 0, freeze_ms = 0;
};
// Thaw the worker, hand it `request`, take its answer, freeze it again. A worker that cannot
// be frozen again is killed (SIGKILL, worker_killed set) before this returns, and the answer
// is dropped: the worker never stays thawed between requests, and serve() then stops.
Result<Forwarded> forward(Gate& g, std::string_view request);

// Serve until SIGTERM (returns 0) or the worker dies (returns 1).
int serve(Gate& g);

}  // namespace sh::kms
