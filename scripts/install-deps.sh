#!/usr/bin/env bash
# Install the Debian packages the build, the tests and the demo need, only those missing.
set -euo pipefail
pkgs=(g++ cmake make pkg-config libseccomp-dev libcap-dev libyajl-dev libmnl-dev libssl-dev
      libboost-test-dev busybox-static iproute2 procps util-linux jq openssl strace tcpdump
      uidmap runc crun libsystemd-dev libprotobuf-c-dev protobuf-c-compiler python3 curl)
# libsystemd-dev: sd-bus for sharness-systemd; libprotobuf-c-dev, protobuf-c-compiler: CRIU's RPC
# (checkpoint, restore); python3, curl: the egress door's servers and clients (conformance/suites/
# egress_door.sh, egress.sh); uidmap: rootless id maps; runc, crun: the reference runtimes of
# conformance/diff/diff.sh
# --vm: what scripts/vm.sh needs to build and boot its Debian guests (`make test-vm`, docs/vm.md)
if [ "${1:-}" = --vm ]; then
  pkgs=(qemu-system-x86 qemu-utils mmdebstrap kmod cpio xz-utils zstd e2fsprogs debian-archive-keyring)
fi
# --rootfs: what scripts/rootfs.sh needs to build a workload root filesystem (python3, node, curl)
if [ "${1:-}" = --rootfs ]; then
  pkgs=(mmdebstrap debian-archive-keyring)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
