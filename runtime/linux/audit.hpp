// The kernel's audit netlink socket, read-only (docs/denials.md): the multicast group
// AUDIT_NLGRP_READLOG, which every subscriber with CAP_AUDIT_READ receives whole, whoever else
// listens (auditd's unicast connection, systemd-journald's own subscription); and AUDIT_GET,
// for whether audit is enabled and how many records the kernel lost. Nothing here changes the
// host's audit settings. Plain netlink (libmnl has no static archive in Debian, and the runtime
// is static).
#pragma once
#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "base/fd.hpp"

namespace sh::audit {

struct Status {
  bool enabled = false;       // audit_enabled: Landlock logs nothing without it
  uint32_t lost = 0;          // records the kernel dropped (backlog full, rate limit), host-wide
  uint32_t backlog_limit = 0;
  uint32_t rate_limit = 0;    // records per second, 0: none
};

Result<Status> status();

// A socket subscribed to AUDIT_NLGRP_READLOG, with a large receive buffer.
Result<Fd> subscribe();

enum class Got { record, overrun, nothing };
// One datagram: its record type and text (Got::nothing when none is waiting, the socket being
// non-blocking). Got::overrun: the socket's buffer overflowed and records were dropped.
Result<Got> receive(int fd, int& type, std::string& text);

}  // namespace sh::audit
