#!/bin/bash
# install-policies.sh RUNTIME SRC_DIR DEST_DIR: install the shipped policies (policies/*.json but
# schema.json) into DEST_DIR (/etc/sharness/policies), each with its exec pins refreshed from this
# host's own files (`RUNTIME policy pin --rootfs / POLICY --out DEST/POLICY`, resolved inside /,
# regular files only): harsh then pins the host's /bin/busybox, whatever its build (
# another distribution's or a security update's busybox made harsh refuse every container). The
# shipped files keep their pins (Debian 12's busybox-static). A pinned file the host lacks is an
# error: that policy is installed as shipped, and the script says so and exits 1 at the end.
# The workload profiles (python3, node, sh: docs/learn.md) pin an image's interpreter, not the
# host's: they are pinned from SHARNESS_WORKLOAD_ROOTFS (a Debian 12 image's root, or another
# image's after a security update) when it is set, else from this host, and a host without that
# interpreter (no node here, say) installs them as shipped with a note, not an error.
# Run by `make install` (cmake --install) and by the README's Docker/Podman/containerd set-up.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 RUNTIME SRC_DIR DEST_DIR" >&2; exit 2; }
rt=$1 src=$2 dest=$3
install -d -m 0755 "$dest"
status=0
for f in "$src"/*.json; do
  name=$(basename "$f")
  [ "$name" = schema.json ] && continue
  if ! grep -q '"exec"' "$f"; then
    install -m 0644 "$f" "$dest/$name"
    echo "installed $dest/$name"
    continue
  fi
  from=/ workload=0
  case $name in python3.json | node.json | sh.json) workload=1 from=${SHARNESS_WORKLOAD_ROOTFS:-/} ;; esac
  if "$rt" policy pin --rootfs "$from" "$f" --out "$dest/$name.new"; then
    chmod 0644 "$dest/$name.new"
    mv -f "$dest/$name.new" "$dest/$name"
    echo "installed $dest/$name, its pins from $([ "$from" = / ] && echo "this host" || echo "$from")"
  else
    rm -f "$dest/$name.new"
    install -m 0644 "$f" "$dest/$name"
    if [ "$workload" = 1 ]; then
      echo "installed $dest/$name as shipped (Debian 12's builds): $from lacks a file it pins (above); pin it from your image: $rt policy pin --bundle BUNDLE $dest/$name --out $dest/$name" >&2
      continue
    fi
    echo "installed $dest/$name as shipped: its pins could not be refreshed from this host (above)" >&2
    status=1
  fi
done
exit "$status"
