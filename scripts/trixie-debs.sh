#!/usr/bin/env bash
# scripts/trixie-debs.sh [--skip REGEX] DIR PKG...: Debian 13's (trixie) PKGs and everything they
# depend on, unpacked into DIR/root, without changing the system: the .debs are fetched with
# apt-get download through a private apt state (a trixie sources list, lists and cache under DIR;
# the system's apt lists and dpkg database are never touched) and unpacked with dpkg-deb -x.
# Dependencies whose names match REGEX are left out. DIR is replaced whole, only once all of it is
# there. For the newest tools on a Debian 12 host: bench/crun-trixie.sh (crun), scripts/criu-trixie.sh
# (CRIU). Their binaries need trixie's glibc: run them through DIR/root's own loader
# (DIR/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path DIR/root/usr/lib/x86_64-linux-gnu BIN).
set -euo pipefail

skip='^$'
if [ "${1:-}" = --skip ]; then skip=$2; shift 2; fi
dir=${1:?usage: trixie-debs.sh [--skip REGEX] DIR PKG...}
shift
[ $# -gt 0 ] || { echo "trixie-debs: no package named" >&2; exit 1; }
[ "$(uname -m)" = x86_64 ] || { echo "trixie-debs: only for x86_64" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "trixie-debs: $keyring is missing (debian-archive-keyring)" >&2; exit 1; }
# The archive the system's apt already uses (deb.debian.org unless the host says otherwise).
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"/{etc,lists/partial,cache/archives/partial,debs,root}
echo "deb [signed-by=$keyring] $mirror trixie main" >"$dir.tmp/etc/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$dir.tmp/etc/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$dir.tmp/lists" -o "Dir::Cache=$dir.tmp/cache" -o "Dir::State::status=/dev/null"
  -o "APT::Architecture=amd64" -o "APT::Sandbox::User=root")
echo "trixie-debs: fetching Debian 13's $* into $dir" >&2
apt-get "${apt_opts[@]}" -qq update >&2
# The packages and everything they depend on (with an empty status file apt assumes nothing is installed).
mapfile -t pkgs < <(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests \
  --no-conflicts --no-breaks --no-replaces --no-enhances "$@" | grep -v '^ ' | grep -v '<' | grep -Ev "$skip" | sort -u)
(cd "$dir.tmp/debs" && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}" >&2)
for d in "$dir.tmp"/debs/*.deb; do dpkg-deb -x "$d" "$dir.tmp/root"; done
rm -rf "$dir.tmp/lists" "$dir.tmp/cache"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
