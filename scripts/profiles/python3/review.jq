# The review of the policy `policy learn` wrote for python3/job.py (scripts/learn-profiles.sh).
# Every other section is the learned one, or harsh's.
.description = "Untrusted Python 3 (Debian 12's python3.11) under harsh: the syscalls, files and pins learned with `policy learn` from scripts/profiles/python3/job.py (a batch job on the standard library: read from /srv, write in /tmp, print), then reviewed (scripts/profiles/python3/review.jq says what changed and why). No subprocess, no fork, no network; pins filled by `policy pin` at install time (docs/learn.md)."
# Widened: /tmp is the workspace. The job never truncated, linked or moved across directories
# there, a job that rewrites its own output does; harsh's /tmp rights, nothing outside /tmp.
| .files["/tmp"] = ["read_file", "read_dir", "write_file", "truncate", "make_reg", "make_dir", "make_sym",
                    "remove_file", "remove_dir", "refer"]
# Widened: Debian's packaged modules (python3-yaml, python3-numpy, ...) are read from here; the
# job's interpreter only listed it, a job that imports one reads it. Read-only, root's files.
| .files["/usr/lib/python3/dist-packages"] = ["read_file", "read_dir"]
# Removed: the local administrator's module dir (empty in the image; site.py lists it and goes on
# when it cannot): untrusted code gets no modules the image did not ship.
| .files |= del(.["/usr/local/lib/python3.11/dist-packages"])
# Added: getcwd. `python3 -c CODE` and the REPL put the working directory first on sys.path, and
# importlib asks for it; the job, a script, never did (its path came first). Found by running
# `python3 -c` under Podman (conformance/clients/podman.sh).
| .syscalls.allow = (.syscalls.allow + ["getcwd"] | unique)
# Added: memory.denyWriteExecute. CPython runs no code it writes (no JIT in 3.11; ctypes' libffi
# uses static trampolines), and hostile code that writes machine code and makes it executable
# (ctypes, mprotect) then gets EACCES (hello --workload python3 found nothing else held it).
| .memory.denyWriteExecute = true
