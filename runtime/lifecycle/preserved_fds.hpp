// --preserve-fds N hands fds 3..3+N-1 of the caller to the container. They must be the
// caller's: checked at the top of create/run/exec, before the runtime opens anything, else
// a closed number would be taken by one of the runtime's own fds (a socket, a pidfd) and
// that fd would reach the container (BUG-3, the CVE-2024-21626 class).
#pragma once
#include "base/error.hpp"

namespace sh::lifecycle {

// Fails naming the first fd of 3..3+n-1 that is not open in the caller.
Result<void> check_preserved_fds(unsigned n);

}  // namespace sh::lifecycle
