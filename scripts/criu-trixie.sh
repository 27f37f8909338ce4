#!/usr/bin/env bash
# scripts/criu-trixie.sh [DIR]: Debian 13's CRIU (4.1.1) on a Debian 12 host, without changing the
# system, for developing and testing checkpoint/restore here: Debian 12's CRIU 3.17 fails `criu
# check` on newer kernels (DESIGN.md §7). The .debs of criu and what it depends on are fetched with
# apt-get download through a private apt state (a trixie sources list, lists and cache under DIR;
# the system's apt lists and dpkg database are never touched) and unpacked with dpkg-deb -x into
# DIR/root, as bench/crun-trixie.sh does for crun. trixie's criu needs glibc 2.38+, so DIR/criu is a
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

[ "$(uname -m)" = x86_64 ] || { echo "criu-trixie: only for x86_64" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "criu-trixie: $keyring is missing (debian-archive-keyring)" >&2; exit 1; }
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"/{etc,lists/partial,cache/archives/partial,debs,root}
echo "deb [signed-by=$keyring] $mirror trixie main" >"$dir.tmp/etc/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$dir.tmp/etc/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$dir.tmp/lists" -o "Dir::Cache=$dir.tmp/cache" -o "Dir::State::status=/dev/null"
  -o "APT::Architecture=amd64" -o "APT::Sandbox::User=root")
echo "criu-trixie: fetching Debian 13's criu into $dir" >&2
apt-get "${apt_opts[@]}" -qq update >&2
# criu and the libraries it loads (not its Python tools: crit is not needed here).
mapfile -t pkgs < <(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests \
  --no-conflicts --no-breaks --no-replaces --no-enhances --no-pre-depends criu libcriu2 |
  grep -v '^ ' | grep -v '<' | grep -Ev '^(python3|perl|debconf|dpkg|tzdata|readline-common|media-types|netbase)' | sort -u)
(cd "$dir.tmp/debs" && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}" >&2)
for d in "$dir.tmp"/debs/*.deb; do dpkg-deb -x "$d" "$dir.tmp/root"; done
rm -rf "$dir.tmp/lists" "$dir.tmp/cache"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
# The wrapper: criu through trixie's loader and libraries (the paths are fixed here, not taken from
# the environment, since the runtime runs it as root).
cat >"$wrapper" <<W
#!/bin/sh
exec $lib/ld-linux-x86-64.so.2 --library-path $lib $root/usr/sbin/criu "\$@"
W
chmod 0755 "$wrapper"
runnable || { echo "criu-trixie: $wrapper does not run" >&2; exit 1; }
echo "$wrapper"
