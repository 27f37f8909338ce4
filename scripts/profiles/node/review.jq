# The review of the policy `policy learn` wrote for node/job.js (scripts/learn-profiles.sh).
.description = "Untrusted JavaScript on Node.js (Debian 12's nodejs 18) under harsh: the syscalls, files and pins learned with `policy learn` from scripts/profiles/node/job.js (a batch job on Node's standard library: read from /srv, write in /tmp, print), then reviewed (scripts/profiles/node/review.jq says what changed and why). Address space widened for V8; no child process, no network; pins filled by `policy pin` at install time (docs/learn.md)."
# Widened: /tmp is the workspace (harsh's /tmp rights; see python3's review).
| .files["/tmp"] = ["read_file", "read_dir", "write_file", "truncate", "make_reg", "make_dir", "make_sym",
                    "remove_file", "remove_dir", "refer"]
# Folded: Node's own JavaScript (Debian splits acorn, undici, cjs-module-lexer out of the binary
# into /usr/share/nodejs); the job loaded five files, another script loads others of the same tree.
| .files |= with_entries(select(.key | startswith("/usr/share/nodejs/") | not))
| .files["/usr/share/nodejs"] = ["read_file", "read_dir"]
# Widened: libuv reads the memory limit of its cgroup: memory.limit_in_bytes on this v1 host,
# memory.max on a v2 one. harsh's own rule on /sys/fs/cgroup, read-only.
| .files |= with_entries(select(.key | startswith("/sys/fs/cgroup/") | not))
| .files["/sys/fs/cgroup"] = ["read_file", "read_dir"]
# Widened: the job peaked at 7 tasks (main thread, V8's platform workers, libuv's pool, which a
# busier script fills: 4 threads by default). 12 holds node's own threads, not a fork bomb.
| .pids = {"limit": 12}
