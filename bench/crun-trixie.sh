#!/usr/bin/env bash
# bench/crun-trixie.sh [DIR]: the newest crun that runs here, Debian 13's (trixie), for the bench,
# without changing the system. Its .deb and those of the libraries it needs are fetched with
# apt-get download through a private apt state (a trixie sources list, lists and cache under DIR:
# the system's own apt lists and dpkg database are never touched), unpacked with dpkg-deb -x into
# DIR/root, and run through that directory's own dynamic loader:
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

[ "$(uname -m)" = x86_64 ] || { echo "crun-trixie: only for x86_64" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "crun-trixie: $keyring is missing (debian-archive-keyring)" >&2; exit 1; }
# The archive the system's apt already uses (deb.debian.org unless the host says otherwise).
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"/{etc,lists/partial,cache/archives/partial,debs,root}
echo "deb [signed-by=$keyring] $mirror trixie main" >"$dir.tmp/etc/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$dir.tmp/etc/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$dir.tmp/lists" -o "Dir::Cache=$dir.tmp/cache" -o "Dir::State::status=/dev/null"
  -o "APT::Architecture=amd64" -o "APT::Sandbox::User=root")
echo "crun-trixie: fetching Debian 13's crun into $dir" >&2
apt-get "${apt_opts[@]}" -qq update >&2
# crun and everything it depends on (with an empty status file apt assumes nothing is installed).
mapfile -t pkgs < <(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests \
  --no-conflicts --no-breaks --no-replaces --no-enhances crun | grep -v '^ ' | grep -v '<' | sort -u)
(cd "$dir.tmp/debs" && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}" >&2)
for d in "$dir.tmp"/debs/*.deb; do dpkg-deb -x "$d" "$dir.tmp/root"; done
rm -rf "$dir.tmp/lists" "$dir.tmp/cache"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
runnable || { echo "crun-trixie: $crun does not run through $loader" >&2; exit 1; }
echo "$dir"
