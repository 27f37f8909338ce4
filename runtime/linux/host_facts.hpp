// The one host probe: fills base/host_facts.hpp's Facts from /proc, /sys, uname, prctl and a
// few syscalls. Only commands call it; every layer below is handed the result.
#pragma once
#include "base/host_facts.hpp"

namespace sh::host {

// cheap: files under /proc and /sys, uname, two prctls, two syscalls (what `policy explain`
// and every `create` under a policy need). features: also the seccomp actions and flags, the
// capability names and the idmap probe (a forked child with its own mount namespace).
enum class Depth { cheap, features };
Facts probe(Depth depth = Depth::cheap);

}  // namespace sh::host
