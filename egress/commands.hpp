// What sharness-egress runs beside the door (cmd/sharness-egress/main.cpp dispatches): the
// container's hooks `up` (egress/up.cpp) and `down` (egress/down.cpp). Their flags are the
// edge proxy's hooks' (--root, --config), and so is their record of what was started.
#pragma once
#include "base/error.hpp"
#include "edges/commands.hpp"

namespace sh::egress {

// createRuntime hook (OCI state on stdin): the listener in the container's network namespace,
// the door started on it under its own uid and namespaces, supervised; fails unless it serves.
Result<int> up(const edges::Opts& o);
// poststop hook (OCI state on stdin): the door and its supervisor stopped, the uid released.
Result<int> down(const edges::Opts& o);

}  // namespace sh::egress
