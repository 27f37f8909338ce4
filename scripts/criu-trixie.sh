#!/usr/bin/env bash
# scripts/criu-trixie.sh [DIR]: Debian 13's CRIU (4.1.1) on a Debian 12 host, without changing the
# system, for developing and testing checkpoint/restore here: Debian 12's CRIU 3.17 fails `criu
# check` on newer kernels (DESIGN.md §7). The .debs of criu and what it depends on are fetched with
# apt-get download through a private apt state (a trixie sources list, lists and cache under DIR;
# the system's apt lists and dpkg database are never touched) and unpacked with dpkg-deb -x into
# DIR/root by scripts/trixie-debs.sh, as bench/crun-trixie.sh does for crun. trixie's criu needs glibc 2.38+, so DIR/criu is a
# wrapper that runs it through DIR/root's own dynamic loader. Prints the wrapper's path; DIR defaults
# to /var/cache/sharness-criu and is reused while it holds a criu that runs.
#
#   SHARNESS_RUNTIME_ARGS="--criu $(scripts/criu-trixie.sh)" bash conformance/suites/checkpoint.sh
set -euo pipefail

dir=${1:-/var/cache/sharness-criu}
root=$dir/root
lib=$root/usr/lib/x86_64-linux-gnu
wrapper=$dir/criu

runnable() { [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; }
if runnable; then echo "$wrapper"; exit 0; fi

# criu and the libraries it loads (not its Python tools: crit is not needed here).
bash "$(dirname "$0")/trixie-debs.sh" --skip '^(python3|perl|debconf|dpkg|tzdata|readline-common|media-types|netbase)' \
  "$dir" criu libcriu2
# The wrapper: criu through trixie's loader and libraries (the paths are fixed here, not taken from
# the environment, since the runtime runs it as root).
cat >"$wrapper" <<W
#!/bin/sh
exec $lib/ld-linux-x86-64.so.2 --library-path $lib $root/usr/sbin/criu "\$@"
W
chmod 0755 "$wrapper"
runnable || { echo "criu-trixie: $wrapper does not run" >&2; exit 1; }
echo "$wrapper"
