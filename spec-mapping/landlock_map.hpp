// A policy's files, ports, scope and exec sections as Landlock, and what the exec allowlist
// asks of the rest of config.json (docs/landlock.md "Policies").
//
// The block has the shape of config.json's process.landlock (the runtime-spec proposal) and
// goes into the "sharness" extension as its "landlock" key. It is never merged into the
// config's own process.landlock: the runtime enforces both, one Landlock layer each, so the
// kernel intersects them exactly (a right is allowed only where every layer allows it) and
// a config can add nothing to what the policy grants.
#pragma once
#include <optional>

#include "base/error.hpp"
#include "oci/config.hpp"
#include "oci/landlock.hpp"
#include "spec-mapping/policy.hpp"

namespace sh::policy {

// The Landlock block of the policy, or nullopt when it has none of files/ports/scope/exec:
//  - files: every filesystem right handled; a rule per path with its rights;
//  - exec: "execute" handled (every right when files is present too); each pinned file gets
//    execute, and read_file when reads are handled (execve opens the file for reading);
//  - ports: bind_tcp and connect_tcp handled; a rule per listed port, plus the mesh's TCP
//    ends (connect to each TCP edge's local port, bind the TCP service port);
//  - scope: the scopes listed;
//  - disableBestEffort = !bestEffort;
//  - stand_ins: each handled right another bound of p covers (landlock_standin.hpp), which a
//    kernel lacking it drops without refusing.
std::optional<oci::LandlockConfig> landlock_block(const Policy& p);
// The TCP ports the block allows: the ports section's, plus (with TCP handled) the mesh's TCP
// ends: connect to each TCP edge's local port (its client proxy listens there), bind the
// service's port when it accepts over TCP; connect to the egress door's port. Sorted, unique; empty
// without a ports section.
Ports ports_with_edges(const Policy& p);

// What an exec allowlist needs around it, so that only the pinned files can run:
//  - root.readonly (the root is a mount too: a writable one would be a writable mount
//    without noexec);
//  - noexec on every mount not mounted "ro" (tmpfs, /dev, binds...);
//  - a new pid namespace and linux.sysctl vm.memfd_noexec=2 in it (no memfd can be
//    executed; the sysctl is per pid namespace, inherited by children, and can only be
//    raised from inside).
// No-op without an exec section.
// `memfd_noexec`: the kernel has the sysctl (Linux 6.3+); without it the sysctl is left out.
void apply_exec_allowlist(const Policy& p, oci::Config& c, bool memfd_noexec);

}  // namespace sh::policy
