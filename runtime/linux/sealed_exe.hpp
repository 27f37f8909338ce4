// CVE-2019-5736: a container process must never reach a writable handle on the runtime's own
// binary through /proc/<pid>/exe. Commands that put a process into a container (create, run,
// exec) first re-execute themselves from a copy that cannot be written: the binary seen through a
// private, read-only, never-attached overlayfs mount (no copy; page cache shared), or, where
// overlayfs is unavailable, a sealed memfd copy. The overlay re-exec is first tried at the ELF
// entry point, before the C library starts (sealed_exe_entry.c); reexec() below is the complete
// path, with the memfd fallback and the errors, for whatever that one gave up on.
#pragma once

#include <string>
#include <vector>

#include "base/error.hpp"

namespace sh::sealed_exe {

// True if /proc/self/exe cannot be written by anyone: it sits on a read-only mount, or it is a
// memfd sealed against writes.
bool is_sealed();

// If the running binary is not sealed, re-executes it (same argv, same environment, same fds) from a
// sealed copy and does not return. Returns normally when already sealed; an error if no sealed
// copy could be made (the caller must refuse to go on).
Result<void> reexec(char** argv);

// The runtime binary's path on disk, also after a re-exec from a sealed copy (whose
// /proc/self/exe names the copy): for finding files installed next to it.
Result<std::string> binary_path();

// A helper binary installed next to the runtime (sharness-edge, sharness-kms): its path, or an
// error naming where it was looked for.
Result<std::string> sibling(const char* name);
// Replace this process with that helper, run with `args` (its argv after argv[0]); returns only
// on error.
Result<void> exec_sibling(const char* name, const std::vector<std::string>& args);

}  // namespace sh::sealed_exe
