// Capabilities with libcap: what this kernel supports, and applying the five sets (names <->
// numbers, pure, are oci/cap_names.hpp). Only the sets the
// config lists are granted; inheritable and ambient stay empty unless asked (DESIGN.md §6.5).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "oci/cap_names.hpp"
#include "oci/config.hpp"

namespace sh::caps {

// Names unknown to this kernel (newer than cap_max_bits) are dropped with a warning, as runc does.
Result<std::vector<int>> parse_list(const std::vector<std::string>& names, const std::string& what);
// The kernel's highest capability number (/proc/sys/kernel/cap_last_cap, read once).
int last_cap();

// The ambient capabilities the kernel will not raise: those not in both permitted and
// inheritable (as `runc spec` writes CAP_AUDIT_WRITE, CAP_KILL, CAP_NET_BIND_SERVICE). They are
// left out of the ambient set, never refused, as runc and crun do.
Result<std::vector<int>> ambient_left_out(const oci::Capabilities& c);
// One warning per capability ambient_left_out finds, naming it and the set it is missing from.
Result<void> warn_ambient_left_out(const oci::Capabilities& c, const std::string& what);

// What the process holds, as masks (bit N = capability N).
struct Held {
  uint64_t permitted = 0, inheritable = 0, bounding = 0;
};
// This process's own sets (capget and PR_CAPBSET_READ).
Result<Held> held_now();
// The first capability of `c` that capset(2) will refuse for a process holding `h` (with
// CAP_SETPCAP), named with its set; empty when all can be set. Permitted and effective must be
// held permitted; inheritable must be inheritable or in the bounding set left after the
// config's bounding list. Only meaningful without a user namespace: a new or joined one gives
// init every capability in it.
Result<std::string> first_unraisable(const oci::Capabilities& c, const Held& h);

// Drop from the bounding set everything not in `bounding`. Needs CAP_SETPCAP: call before setuid.
// Every set nullopt (no capabilities object) keeps the set; otherwise an absent bounding is empty.
Result<void> apply_bounding(const oci::Capabilities& c);
// Set effective/permitted/inheritable, then ambient (only what ambient_left_out keeps). Call after the uid change
// (with PR_SET_KEEPCAPS kept across it).
Result<void> apply_sets(const oci::Capabilities& c);

}  // namespace sh::caps
