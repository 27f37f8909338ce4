#!/usr/bin/env bash
# bench/crun-trixie.sh [DIR]: the newest crun that runs here, Debian 13's (trixie), for the bench,
# without changing the system. Its .deb and those of the libraries it needs are fetched with
# apt-get download through a private apt state (a trixie sources list, lists and cache under DIR:
# the system's own apt lists and dpkg database are never touched), unpacked with dpkg-deb -x into
# DIR/root (scripts/trixie-debs.sh), and run through that directory's own dynamic loader:
#
#   DIR/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path DIR/root/usr/lib/x86_64-linux-gnu DIR/root/usr/bin/crun ...
#
# (trixie's crun needs glibc 2.38+, newer than Debian 12's). crun re-executes its sealed copy of
# /proc/self/exe with the same argv, which here is the loader with these arguments, so it works
# unchanged. Prints DIR on success; DIR defaults to /var/cache/sharness-bench/crun-trixie and is
# reused while it holds a runnable crun.
set -euo pipefail

dir=${1:-/var/cache/sharness-bench/crun-trixie}
root=$dir/root
lib=$root/usr/lib/x86_64-linux-gnu
loader=$lib/ld-linux-x86-64.so.2
crun=$root/usr/bin/crun

runnable() { [ -x "$crun" ] && "$loader" --library-path "$lib" "$crun" --version >/dev/null 2>&1; }
if runnable; then echo "$dir"; exit 0; fi

bash "$(dirname "$0")/../scripts/trixie-debs.sh" "$dir" crun
runnable || { echo "crun-trixie: $crun does not run through $loader" >&2; exit 1; }
echo "$dir"
