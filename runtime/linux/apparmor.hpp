// process.apparmorProfile, applied as runc applies it: "exec PROFILE" written to the task's
// own /proc/thread-self/attr/apparmor/exec (the per-LSM file, Linux 5.1+), or to the older
// /proc/thread-self/attr/exec where the kernel has no per-LSM directory; the kernel switches
// to the profile at the next execve, the container's. Where the host has no AppArmor a
// config asking for a profile is refused, never silently run unconfined (runc 1.1 drops it
// quietly on such a host: an intended difference).
//
// The handle is opened by the launch plan (runtime/lifecycle/process_launch), before any
// bound is applied, from a private procfs (fsopen, or a non-recursive open_tree clone of
// the container's /proc where a user namespace forbids a new procfs): it is checked to be a
// procfs root (PROC_SUPER_MAGIC, inode 1), and the attr file is reached beneath it with
// openat2(RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS|RESOLVE_NO_XDEV), so no mount over
// /proc/self/attr (CVE-2025-52881) can redirect the write. The write happens first in
// launch(), before no_new_privs, the user change and the filters.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "base/fd.hpp"

namespace sh::apparmor {

// Whether the kernel answers for AppArmor for the calling thread, read through `proc` (a
// procfs root fd): its own attr/apparmor/current reads, or, on kernels without the per-LSM
// directory, the generic attr/current reads as an AppArmor label. `features` asks this of
// the host's /proc; the launch plan of its private procfs.
bool kernel_answers(int proc);
bool kernel_answers();  // the host's /proc

// Whether the generic /proc/<tid>/attr/current text is an AppArmor label ("unconfined" or
// "NAME (MODE)"), for kernels without the per-LSM directory (an SELinux context has no space).
bool looks_like_label(std::string_view current);

// The text written to the exec attribute: "exec PROFILE". A name that is empty or holds a
// control character (the kernel reads the attribute as one line) is refused.
Result<std::string> exec_attr_text(std::string_view profile);
// The attribute's path beneath a procfs root: the per-LSM one if the kernel has it.
std::string exec_attr_path(bool per_lsm_dir);

// The exec attribute of the calling thread, opened for writing as described above; fails
// with "AppArmor is not enabled" where the kernel does not answer for AppArmor.
Result<Fd> open_exec_attr();
// Write "exec PROFILE" to `fd` (one write, whole, or an error naming the profile).
Result<void> change_onexec(int fd, std::string_view profile);
// Whether the kernel would take PROFILE: a short-lived child of the caller asks for it on its
// own exec attribute and exits without exec'ing (the caller's own attribute is untouched), so
// a profile that is not loaded fails `create`, not `start`. Errors as open_exec_attr's, or
// "profile ... is not loaded".
Result<void> check_loaded(std::string_view profile);

}  // namespace sh::apparmor
