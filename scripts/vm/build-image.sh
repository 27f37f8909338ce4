#!/usr/bin/env bash
# build-image.sh RECIPE OUTDIR: build one guest image from Debian packages (called by scripts/vm.sh
# build, under its lock). OUTDIR gets root.img (ext4, raw, sparse), vmlinuz, initrd, cmdline, ok.
set -euo pipefail
recipe=$1 out=$2
VMDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
. "$recipe"
work=$(mktemp -d "$(dirname "$out")/.build-$SUITE.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The rootfs is kept beside the image key until the image is done, so a build that failed after
# mmdebstrap resumes from it.
root=$(dirname "$out")/.rootfs-$SUITE
stamp=$(cat "$recipe" "$VMDIR/customize.sh" | sha256sum | cut -c1-16)
inc=$(IFS=,; echo "${PACKAGES[*]},$KERNEL_PKG")
t0=$SECONDS
if [ "$(cat "$root.done" 2>/dev/null)" != "$stamp" ]; then
rm -rf "$root"; mkdir -p "$root"
# minbase, no recommends (mmdebstrap's default), no docs, man pages or locales; apt lists and
# caches dropped. The customize hook disables the daemons and adds the rootless user.
mmdebstrap --variant=minbase --mode=root --format=directory --include="$inc" \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook="bash '$VMDIR/customize.sh' \"\$1\" ${DISABLE_UNITS[*]}" \
  "$SUITE" "$root" "${SHARNESS_VM_MIRROR:-http://deb.debian.org/debian}"
echo "$stamp" >"$root.done"
echo "build-image: mmdebstrap $SUITE: $((SECONDS - t0)) s"
fi

# Finishing steps, on the kept rootfs (idempotent). The runner: sharness-vm.service runs
# /usr/local/sbin/sharness-vm-run at the end of the boot.
install -m 755 "$VMDIR/guest-run.sh" "$root/usr/local/sbin/sharness-vm-run"
install -m 644 "$VMDIR/sharness-vm.service" "$root/etc/systemd/system/sharness-vm.service"
chroot "$root" systemctl enable sharness-vm.service 2>/dev/null
# AppArmor: the profiles Debian ships for desktop programs (about a hundred, most of them
# "unconfined" stubs) would be compiled at every boot, minutes under TCG: only the abstractions and
# tunables stay. Docker and Podman load their own profiles (docker-default, containers-default).
find "$root/etc/apparmor.d" -maxdepth 1 -type f -delete
# /etc and /var are up to date with /usr: no ldconfig.service, journal catalog or hwdb rebuilds at
# each boot (ConditionNeedsUpdate)
touch "$root/etc/.updated" "$root/var/.updated"
# boot work no run needs (measured under TCG: modprobe@drm alone took 40 s on a loaded host)
for u in modprobe@drm.service netavark-dhcp-proxy.service netavark-dhcp-proxy.socket systemd-binfmt.service; do
  ln -sf /dev/null "$root/etc/systemd/system/$u"
done
kver=$(basename "$(ls -d "$root"/lib/modules/* | sort -V | tail -1)")
cp "$root/boot/vmlinuz-$kver" "$work/vmlinuz"
# initramfs: the guest's own static busybox and the modules the root disk needs, decompressed,
# in dependency order
ird=$work/initrd.d
mkdir -p "$ird/bin" "$ird/modules"
cp "$root/bin/busybox" "$ird/bin/busybox"
cp "$VMDIR/initramfs-init" "$ird/init"
: >"$ird/modules/order"
modprobe -d "$root" -S "$kver" -a --show-depends virtio_pci virtio_blk ext4 2>/dev/null |
  awk '$1 == "insmod" {print $2}' | awk '!seen[$0]++' | while read -r m; do
  b=$(basename "$m"); b=${b%.xz}; b=${b%.zst}
  case $m in
    *.xz) xz -dc "$m" >"$ird/modules/$b" ;;
    *.zst) zstd -qdc "$m" >"$ird/modules/$b" ;;
    *) cp "$m" "$ird/modules/$b" ;;
  esac
  echo "$b" >>"$ird/modules/order"
done
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd"
# the disk: boot files are not needed inside (the kernel and initrd boot from outside)
rm -f "$root"/boot/initrd.img-* 
truncate -s "$IMAGE_SIZE" "$work/root.img"
mkfs.ext4 -q -F -L sharness-root -d "$root" "$work/root.img"
echo "${CMDLINE:-}" >"$work/cmdline"
du -sh --apparent-size "$root" | sed 's/^/build-image: rootfs /'
mkdir -p "$out"
mv "$work/root.img" "$work/vmlinuz" "$work/initrd" "$work/cmdline" "$out/"
date -u +%FT%TZ >"$out/ok"
# the rootfs stays (beside the images, about 800 MB): a change to the finishing steps below
# rebuilds the image from it without mmdebstrap
echo "build-image: $SUITE done in $((SECONDS - t0)) s"
