// The door: what it holds once it has read its config (egress/door_open.cpp), how it confines
// itself (egress/door_confine.cpp) and how it serves (egress/door_serve.cpp,
// egress/connection.cpp). docs/egress.md, "The door's interface", is the contract.
#pragma once
#include <atomic>
#include <memory>
#include <string>

#include "base/error.hpp"
#include "base/fd.hpp"
#include "egress/address.hpp"
#include "egress/budget.hpp"
#include "egress/inject.hpp"
#include "egress/leaf.hpp"
#include "egress/resolve.hpp"
#include "spec-mapping/egress.hpp"
#include "tls/tls.hpp"

namespace sh::egress {

inline constexpr int kListenFd = 3, kLogFd = 4;
inline constexpr int kMaxConnections = 64;

struct Door {
  std::string container;
  policy::EgressPolicy policy;
  Fd listener, log;
  AddressRules addresses;
  std::unique_ptr<Resolver> resolver;
  std::unique_ptr<LeafMint> mint;
  tls::Ctx upstream;
  Credentials credentials;
  std::vector<std::string> scrub;  // Credentials::scrub_needles()
  std::unique_ptr<Budget> budget;
  std::atomic<int> active{0};
};

// Everything the config names read and checked, fds 3 and 4 taken; every other fd above 2
// closed. Refuses to run as root.
Result<std::unique_ptr<Door>> open_door(const std::string& config_path);
// The harsh bounds, once everything is open; says what binds it, for the log.
Result<std::string> confine_door(const Door& d);
// Accept until the listener is shut; one thread per connection.
int serve(Door& d);
// One client connection, start to end.
void serve_connection(Door& d, Fd client);

}  // namespace sh::egress
