#!/usr/bin/env bash
# scripts/vm.sh: Debian guests under qemu for the tests that need another kind of host (systemd
# as PID 1, other kernels and cgroup layouts than this machine's).
# See `scripts/vm.sh --help` and docs/vm.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
VMDIR=$HERE/vm
CACHE=${SHARNESS_VM_CACHE:-/var/cache/sharness-vm}
MIRROR=${SHARNESS_VM_MIRROR:-http://deb.debian.org/debian}

usage() {
  cat <<EOF
usage: scripts/vm.sh run [--guest NAME] [--share DIR]... [--user NAME] [--timeout SECONDS] -- CMD...
       scripts/vm.sh build [--guest NAME]
       scripts/vm.sh list

run    Boot the guest (building its image first if it is not cached), run CMD inside it as root
       (or as --user NAME, in that user's systemd session), print CMD's stdout and stderr and exit
       with CMD's exit code. Each --share DIR is mounted at the same path in the guest (virtio-9p,
       read-write); with no --share, the repository ($REPO) is shared. CMD runs in the current
       directory if it is inside a share, else in /. The guest boots on a throwaway qcow2 overlay in
       a temp dir, so several runs may go at once; nothing it writes to its own disk is kept.
       Exit codes: CMD's; 124 when the run timed out (--timeout, default \$SHARNESS_VM_TIMEOUT or
       3600 s); 125 when the guest could not run CMD (its console log is printed).
build  Build the guest image if the cache has none for its current recipe (as root).
list   The guests and whether their image is cached.

Guests (scripts/vm/NAME.recipe):
  trixie    Debian 13, systemd as PID 1, pure cgroup v2, AppArmor, kernel 6.12, crun, runc, podman,
            containerd, docker.io (their services disabled), user 'sharness' (uid 1000, subuids)
  bookworm  Debian 12, its stock kernel 6.1 (Landlock ABI 2), systemd, crun, runc, user 'sharness'

Environment:
  SHARNESS_VM_CACHE    image cache (default /var/cache/sharness-vm); images are keyed by a hash of
                       their recipe and rebuilt when it changes, under flock
  SHARNESS_VM_ACCEL    kvm, tcg or auto (default auto: KVM if a short probe boots, else TCG)
  SHARNESS_VM_MEM      guest memory in MiB (default 4096);  SHARNESS_VM_CPUS  vCPUs (default 2)
  SHARNESS_VM_TIMEOUT  seconds a run may take (default 3600)
  SHARNESS_VM_MIRROR   Debian mirror for image builds (default http://deb.debian.org/debian)
  SHARNESS_VM_QUIET=1  no "vm:" progress lines on stderr
EOF
}

log() { [ "${SHARNESS_VM_QUIET:-0}" = 1 ] || echo "vm: $*" >&2; }
die() { echo "vm: $*" >&2; exit 125; }

recipe_file() {
  local f=$VMDIR/$1.recipe
  [ -f "$f" ] || die "no guest '$1' (guests: $(cd "$VMDIR" && ls ./*.recipe | sed 's|^\./||; s|\.recipe$||' | tr '\n' ' '))"
  echo "$f"
}

# The image key: the recipe and every file the image is made from (a change rebuilds it).
recipe_hash() {
  cat "$(recipe_file "$1")" "$VMDIR/guest-run.sh" "$VMDIR/sharness-vm.service" "$VMDIR/initramfs-init" \
     "$VMDIR/build-image.sh" "$VMDIR/customize.sh" | sha256sum | cut -c1-16
}

image_dir() { echo "$CACHE/$1-$(recipe_hash "$1")"; }

need() {
  local missing=() c
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 || missing+=("$c"); done
  [ ${#missing[@]} -eq 0 ] || die "missing ${missing[*]}: run scripts/install-deps.sh --vm (Debian: qemu-system-x86 qemu-utils mmdebstrap)"
}

cmd_build() {
  local guest=$1 dir lock
  dir=$(image_dir "$guest")
  [ -f "$dir/ok" ] && return 0
  [ "$(id -u)" = 0 ] || die "building the $guest image needs root (mmdebstrap, mkfs.ext4 -d)"
  need mmdebstrap mkfs.ext4 flock modprobe cpio
  mkdir -p "$CACHE"
  lock=$CACHE/$guest.lock
  exec {lockfd}>"$lock"
  log "waiting for the build lock $lock"
  flock "$lockfd"
  if [ ! -f "$dir/ok" ]; then
    local t0=$SECONDS
    log "building the $guest image into $dir (once per recipe)"
    SHARNESS_VM_MIRROR=$MIRROR bash "$VMDIR/build-image.sh" "$(recipe_file "$guest")" "$dir" >&2 ||
      { exec {lockfd}>&-; die "building the $guest image failed"; }
    log "built the $guest image in $((SECONDS - t0)) s"
    # older images of this guest (other recipes) are dropped
    local old
    for old in "$CACHE/$guest"-*; do
      [ "$old" != "$dir" ] && [ -d "$old" ] && rm -rf "$old"
    done
  fi
  exec {lockfd}>&-
}

# KVM probe: the nested guests of this machine's host die at the first VEX (AVX) instruction, so a
# CPU model without AVX is tried; the probe boots the guest's kernel to its initramfs only.
KVM_CPU=${SHARNESS_VM_KVM_CPU:-host,-avx,-avx2,-avx512f,-xsave,-xsaves,-xsavec,-xsaveopt,-fma,-f16c,-avx-vnni,-vaes,-vpclmulqdq}
choose_accel() {
  local dir=$1 want=${SHARNESS_VM_ACCEL:-auto}
  case $want in
    tcg) echo tcg; return ;;
    kvm) echo kvm; return ;;
  esac
  [ -w /dev/kvm ] || { echo tcg; return; }
  local probe=/run/sharness-vm-accel  # once per boot of this machine
  [ -w /run ] || probe=$CACHE/accel-probe
  if [ -f "$probe" ] && [ "$(cat "$probe")" != unknown ]; then cat "$probe"; return; fi
  local out
  out=$(timeout 20 qemu-system-x86_64 -accel kvm -cpu "$KVM_CPU" -m 256 -smp 1 -nographic -no-reboot \
    -kernel "$dir/vmlinuz" -initrd "$dir/initrd" -append "console=ttyS0 panic=-1 sharness.probe=1" \
    -serial stdio -display none -monitor none 2>&1 </dev/null || true)
  if grep -q 'sharness-probe-ok' <<<"$out"; then echo kvm >"$probe"; else echo tcg >"$probe"; fi
  cat "$probe"
}

cmd_run() {
  local guest=$1 user=$2 timeout=$3; shift 3
  local -a shares=("${SHARES[@]}")
  [ $# -gt 0 ] || die "run: no command (scripts/vm.sh run [--guest NAME] [--share DIR]... -- CMD...)"
  need qemu-system-x86_64 qemu-img
  [ ${#shares[@]} -gt 0 ] || shares=("$REPO")
  cmd_build "$guest"
  local dir tmp
  dir=$(image_dir "$guest")
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/sharness-vm.XXXXXX")
  local qpid="" tpids=()
  cleanup() {
    [ -n "$qpid" ] && kill "$qpid" 2>/dev/null && wait "$qpid" 2>/dev/null
    local p; for p in "${tpids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    if [ "${SHARNESS_VM_DEBUG:-0}" = 1 ]; then rm -f "$tmp/overlay.qcow2"; else rm -rf "$tmp"; fi
  }
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  mkdir "$tmp/ctl"
  qemu-img create -q -f qcow2 -F raw -b "$dir/root.img" "$tmp/overlay.qcow2"
  # the command, quoted, run by bash in the guest
  { printf 'exec'; printf ' %q' "$@"; printf '\n'; } >"$tmp/ctl/cmd.sh"
  echo "$user" >"$tmp/ctl/user"
  local cwd; cwd=$(pwd -P)
  echo / >"$tmp/ctl/cwd"
  local -a virtfs=() i=0 s rs
  for s in "${shares[@]}"; do
    rs=$(cd "$s" 2>/dev/null && pwd -P) || die "--share $s: no such directory"
    echo "share$i $rs" >>"$tmp/ctl/shares"
    virtfs+=(-virtfs "local,path=$rs,mount_tag=share$i,security_model=passthrough,id=share$i")
    case $cwd/ in "$rs"/*) echo "$cwd" >"$tmp/ctl/cwd" ;; esac
    i=$((i + 1))
  done
  : >"$tmp/out"; : >"$tmp/err"; : >"$tmp/console"
  local accel cpu
  accel=$(choose_accel "$dir")
  if [ "$accel" = kvm ]; then cpu=$KVM_CPU; else cpu=max; fi
  log "booting $guest ($accel, ${SHARNESS_VM_CPUS:-2} vCPUs, ${SHARNESS_VM_MEM:-4096} MiB), shares: ${shares[*]}"
  local t0=$SECONDS quiet="quiet loglevel=3 systemd.show_status=0"
  # SHARNESS_VM_DEBUG=1: the boot's messages on the console, its log kept (path printed)
  if [ "${SHARNESS_VM_DEBUG:-0}" = 1 ]; then quiet="systemd.show_status=1"; log "console log: $tmp/console (kept)"; fi
  qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m "${SHARNESS_VM_MEM:-4096}" -smp "${SHARNESS_VM_CPUS:-2}" \
    -nodefaults -no-user-config -display none -monitor none -no-reboot \
    -kernel "$dir/vmlinuz" -initrd "$dir/initrd" \
    -append "console=ttyS0 root=/dev/vda rw panic=-1 $quiet $(cat "$dir/cmdline")" \
    -drive "file=$tmp/overlay.qcow2,if=virtio,format=qcow2,discard=unmap" \
    -serial "file:$tmp/console" \
    -device virtio-serial-pci \
    -chardev "file,id=out,path=$tmp/out" -device virtserialport,chardev=out,name=sharness.out \
    -chardev "file,id=err,path=$tmp/err" -device virtserialport,chardev=err,name=sharness.err \
    -virtfs "local,path=$tmp/ctl,mount_tag=vmctl,security_model=passthrough,id=vmctl" "${virtfs[@]}" \
    -nic user,model=virtio-net-pci \
    -device virtio-rng-pci \
    </dev/null >"$tmp/qemu.log" 2>&1 &
  qpid=$!
  tail -n +1 -f --pid="$qpid" "$tmp/out" &
  tpids+=($!)
  tail -n +1 -f --pid="$qpid" "$tmp/err" >&2 &
  tpids+=($!)
  local timed_out=0
  while kill -0 "$qpid" 2>/dev/null; do
    if [ $((SECONDS - t0)) -ge "$timeout" ]; then timed_out=1; kill "$qpid" 2>/dev/null; break; fi
    sleep 0.5
  done
  wait "$qpid" 2>/dev/null || true
  qpid=""
  local p; for p in "${tpids[@]}"; do wait "$p" 2>/dev/null || true; done
  tpids=()
  if [ $timed_out = 1 ]; then
    log "timed out after $timeout s; the guest's console ends with:"; tail -n 30 "$tmp/console" >&2
    exit 124
  fi
  if [ ! -s "$tmp/ctl/rc" ]; then
    log "the guest did not run the command; qemu said:"; cat "$tmp/qemu.log" >&2
    log "its console ends with:"; tail -n 40 "$tmp/console" >&2
    exit 125
  fi
  local rc; rc=$(cat "$tmp/ctl/rc")
  # No output port (guest-run.sh fell back to the console): the command's output is there.
  if [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] && grep -q 'sharness-vm: no sharness.out/err port' "$tmp/console"; then
    log "the command's output went to the guest's console:"; sed -n '/sharness-vm: no sharness.out\/err port/,$p' "$tmp/console" | tr -d '\r'
  fi
  log "$guest ran the command in $((SECONDS - t0)) s (boot included), exit code $rc"
  exit "$rc"
}

cmd_list() {
  local f g
  for f in "$VMDIR"/*.recipe; do
    g=$(basename "$f" .recipe)
    if [ -f "$(image_dir "$g")/ok" ]; then echo "$g cached $(image_dir "$g")"; else echo "$g not built"; fi
  done
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
sub=$1; shift
GUEST=trixie USER_NAME="" TIMEOUT=${SHARNESS_VM_TIMEOUT:-3600}
SHARES=()
while [ $# -gt 0 ]; do
  case $1 in
    --guest) GUEST=$2; shift 2 ;;
    --guest=*) GUEST=${1#*=}; shift ;;
    --share) SHARES+=("$2"); shift 2 ;;
    --share=*) SHARES+=("${1#*=}"); shift ;;
    --user) USER_NAME=$2; shift 2 ;;
    --user=*) USER_NAME=${1#*=}; shift ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --timeout=*) TIMEOUT=${1#*=}; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) [ "$sub" = run ] && break; echo "vm: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
case $sub in
  run) recipe_file "$GUEST" >/dev/null; cmd_run "$GUEST" "$USER_NAME" "$TIMEOUT" "$@" ;;
  build) recipe_file "$GUEST" >/dev/null; cmd_build "$GUEST" ;;
  list) cmd_list ;;
  -h|--help|help) usage ;;
  *) usage >&2; exit 2 ;;
esac
