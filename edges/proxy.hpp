// The proxy: what it holds once up (its listeners, TLS contexts, the registries it checks
// peers in), how it serves, and how it is bound before it does.
#pragma once
#include <dirent.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "tls/tls.hpp"
#include "spec-mapping/mesh.hpp"

namespace sh::edges {

inline constexpr int kMaxConnections = 64;

// The registry of one role: <root>/.edges/<role>/, one <container id>.sock per accepting
// container. Opened before the sandbox (Landlock then forbids opening it), read under a lock
// (one directory stream), instances tried in turn from a rotating start.
struct RoleDir {
  DIR* dir = nullptr;
  std::mutex mu;
  unsigned next = 0;
  ~RoleDir() {
    if (dir) ::closedir(dir);
  }
};

struct Listener {
  Fd fd;
  bool server = false;  // accepts TLS from peers (else: plaintext from the workload)
  policy::Edge edge;    // client side: where it goes
  std::shared_ptr<RoleDir> peers;  // client side: the registry of edge.to
};

struct Proxy {
  std::string id;
  policy::Mesh mesh;
  std::mutex ctx_mu;  // renewal swaps the contexts; a connection takes a reference first
  tls::Ctx client_ctx, server_ctx;
  Fd control;  // SOCK_SEQPACKET from the supervisor: renewed certificate and key
  std::vector<Listener> listeners;
  Fd service_dir;  // <root>/<id>/service (O_PATH) when the service is on a UNIX socket
  Fd live;         // the live registry (edges/live.hpp): every peer's leaf is checked in it
  Fd init_pidfd;
  bool networked = false;  // lives in a container network namespace with a non-loopback address
  std::atomic<int> active{0};
};

// Accept and relay until the container's init exits, taking renewals from the supervisor.
[[noreturn]] void serve(Proxy& px);

// The harsh bounds (edges/confine.cpp), after every socket, the key and the log are open;
// says what binds it, for the log.
Result<std::string> confine_proxy(uint32_t uid, const Proxy& px);
// What the supervisor keeps of root: enough to renew the leaf and stop the proxy.
Result<void> bound_supervisor();

}  // namespace sh::edges
