#!/usr/bin/env bash
# scripts/rootfs.sh NAME: print the path of a Debian root filesystem built from
# scripts/rootfs/NAME.recipe with mmdebstrap (minbase, no recommends, no docs), building it first if
# the cache has none for the recipe's current hash. For cases that need real programs (python3,
# node, curl) in a container: use the tree read-only (a bundle's root.path, "readonly": true) or
# under an overlay of your own; never write into it.
#
# Cache: $SHARNESS_ROOTFS_CACHE (default /var/cache/sharness-rootfs)/NAME-HASH, built under flock,
# so suites running at once share one build. Older trees of NAME are removed after a build.
# Mirror: $SHARNESS_VM_MIRROR (default http://deb.debian.org/debian), as scripts/vm.sh.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
name=${1:?usage: scripts/rootfs.sh NAME (recipes: scripts/rootfs/*.recipe)}
recipe=$HERE/rootfs/$name.recipe
[ -f "$recipe" ] || { echo "rootfs: no recipe $recipe" >&2; exit 2; }
CACHE=${SHARNESS_ROOTFS_CACHE:-/var/cache/sharness-rootfs}
key=$(cat "$recipe" "$HERE/rootfs.sh" | sha256sum | cut -c1-16)
dir=$CACHE/$name-$key
if [ ! -f "$dir.ok" ]; then
  [ "$(id -u)" = 0 ] || { echo "rootfs: building $name needs root (mmdebstrap)" >&2; exit 1; }
  command -v mmdebstrap >/dev/null || "$HERE/install-deps.sh" --rootfs >&2
  mkdir -p "$CACHE"
  exec {lockfd}>"$CACHE/$name.lock"
  flock "$lockfd"
  if [ ! -f "$dir.ok" ]; then
    # shellcheck source=/dev/null
    . "$recipe"
    t0=$SECONDS
    rm -rf "$dir"
    inc=$(IFS=,; echo "${PACKAGES[*]}")
    mmdebstrap --quiet --variant=minbase --mode=root --format=directory --include="$inc" \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' \
      --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
      "$SUITE" "$dir" "${SHARNESS_VM_MIRROR:-http://deb.debian.org/debian}" >&2
    date -u +%FT%TZ >"$dir.ok"
    echo "rootfs: $name built in $((SECONDS - t0)) s ($(du -sh "$dir" | cut -f1))" >&2
    for old in "$CACHE/$name"-*; do
      case $old in "$dir"|"$dir.ok") ;; *) rm -rf "$old" ;; esac
    done
  fi
  flock -u "$lockfd"
fi
echo "$dir"
