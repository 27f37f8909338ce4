// The door before it serves: who it is (never root), the fds it was given, the config and
// everything the config names, read now: once confined it opens no file.
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>

#include "base/file.hpp"
#include "egress/door.hpp"
#include "egress/door_config.hpp"
#include "egress/request_log.hpp"
#include "egress/upstream.hpp"
#include "runtime/linux/capabilities.hpp"
#include "spec-mapping/egress_host.hpp"

namespace sh::egress {
namespace {

// Not root, and holding no capability: the starter gives the door a throwaway uid; whatever
// capability came with it is dropped (the bounding set too, when the door may).
Result<void> not_privileged() {
  uid_t r, e, s;
  if (::getresuid(&r, &e, &s) != 0) return sys_error("getresuid");
  if (r == 0 || e == 0 || s == 0) return fail("the door does not run as root: start it under a throwaway uid");
  auto held = TRY(caps::held_now());
  oci::Capabilities none;
  none.bounding = none.effective = none.inheritable = none.permitted = none.ambient = std::vector<std::string>{};
  if (held.permitted & (1ull << CAP_SETPCAP)) TRYVC("drop the bounding set", caps::apply_bounding(none));
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) return sys_error("clear ambient capabilities");
  if (held.permitted || held.inheritable) TRYVC("drop capabilities", caps::apply_sets(none));
  return {};
}

Result<Fd> take_listener() {
  int type = 0, listening = 0;
  socklen_t l1 = sizeof type, l2 = sizeof listening;
  if (::getsockopt(kListenFd, SOL_SOCKET, SO_TYPE, &type, &l1) != 0 ||
      ::getsockopt(kListenFd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &l2) != 0)
    return sys_error("fd 3 is not the listening socket");
  if (type != SOCK_STREAM || !listening) return fail("fd 3 is not a listening stream socket");
  if (::fcntl(kListenFd, F_SETFD, FD_CLOEXEC) != 0) return sys_error("fd 3: FD_CLOEXEC");
  return Fd(kListenFd);
}

Result<Fd> take_log() {
  int fl = ::fcntl(kLogFd, F_GETFL);
  if (fl < 0) return sys_error("fd 4 (the request log)");
  if ((fl & O_ACCMODE) == O_RDONLY) return fail("fd 4 (the request log) is not open for writing");
  if (::fcntl(kLogFd, F_SETFD, FD_CLOEXEC) != 0) return sys_error("fd 4: FD_CLOEXEC");
  return Fd(kLogFd);
}

}  // namespace

Result<std::unique_ptr<Door>> open_door(const std::string& config_path) {
  TRYV(not_privileged());
  auto d = std::make_unique<Door>();
  d->listener = TRY(take_listener());
  d->log = TRY(take_log());
  // Nothing else inherited stays open (DESIGN §6.3).
  if (::syscall(SYS_close_range, kLogFd + 1, ~0u, 0) != 0) return sys_error("close_range");
  DoorConfig cfg = TRY(parse_door_config(TRY(read_file(config_path, 1 << 20)), config_path));
  d->container = cfg.container;
  d->policy = std::move(cfg.egress);
  d->mint = TRY(LeafMint::load(cfg.ca_cert, cfg.ca_key));
  d->upstream = TRY(upstream_ctx(cfg.upstream_trust));
  d->resolver = cfg.hosts ? TRY(Resolver::from_hosts_file(*cfg.hosts)) : TRY(Resolver::from_dns());
  d->addresses.allow = std::move(cfg.allow);
  d->addresses.own = TRY(own_addresses());
  d->addresses.own.insert(d->addresses.own.end(), cfg.deny.begin(), cfg.deny.end());
  for (const auto& r : d->policy.rules)
    if (policy::is_address(r.host)) d->addresses.literal.push_back(TRY(parse_ip(r.host)));
  d->credentials = TRY(Credentials::fetch(d->policy, cfg.credentials.get()));
  d->scrub = d->credentials.scrub_needles();
  d->budget = std::make_unique<Budget>(d->policy.budgets);
  set_request_log(d->log.get(), d->container);
  ::tzset();  // strftime (the log's time) reads /etc/localtime once: now, while the door may
  return d;
}

}  // namespace sh::egress
