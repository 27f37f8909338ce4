# The review of the policy `policy learn` wrote for sh/job.sh (scripts/learn-profiles.sh).
.description = "Untrusted shell scripts (Debian 12's dash with coreutils, sed and grep) under harsh: the syscalls, files and pins learned with `policy learn` from scripts/profiles/sh/job.sh (a job reading /srv, working in /tmp, printing), then reviewed (scripts/profiles/sh/review.jq says what changed and why). Only the binaries the job ran are pinned; no network; pins filled by `policy pin` at install time (docs/learn.md)."
# Widened: /tmp is the workspace (harsh's /tmp rights; see python3's review).
| .files["/tmp"] = ["read_file", "read_dir", "write_file", "truncate", "make_reg", "make_dir", "make_sym",
                    "remove_file", "remove_dir", "refer"]
# Widened: listing the input directory (ls /srv) is what a shell job does first.
| .files["/srv"] = ["read_file", "read_dir"]
# Widened: /dev/null read too (`< /dev/null`); the learned write, truncate and ioctl kept.
| .files["/dev/null"] |= (. + ["read_file"] | unique)
# Kept as learned: a pipeline of three and the shell (6 tasks at the peak) is under harsh's 4 only
# with a shorter pipeline; the learned peak is the limit.
# Removed: socket and connect. glibc's NSS (`id`) asks nscd over a UNIX socket first and reads
# /etc/passwd when it cannot; under this profile there is no nscd to reach, and a job that can make
# sockets is one step from the network (harsh's empty namespace holds it too).
| .syscalls.allow -= ["socket", "connect"]
# Added: memory.denyWriteExecute. dash, coreutils, sed and grep run no code they write.
| .memory.denyWriteExecute = true
