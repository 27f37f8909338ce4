# shellcheck shell=bash
# conformance/clients/client-lib.bash: what every client suite (podman.sh, docker.sh, containerd.sh)
# shares. A client suite sources conformance/lib.sh for tcase/assert_*/finish, then this file.
#
#   CLIENT_TMP             the suite's private temp dir ($TMP of lib.sh, removed on exit)
#   ensure_pkgs P...       apt-get install the Debian packages that are missing
#   busybox_rootfs_tar F   write a rootfs tarball of busybox-static to F (for docker/podman import)
#   busybox_oci_archive F REF  write a single-layer OCI image archive (for ctr image import)
#   systemd_v2_host        systemd is PID 1 on pure cgroup v2: the clients' systemd driver
#   assert_scope UNIT SLICE PID ID [PROP=VALUE...]   the container's scope in systemctl show
#   client_cgroup_dirs DRIVER SLICE PREFIX [ID]      the containers' cgroup dirs, either driver
#   python_image DIR       (ours) the Debian 12 image with python3 (scripts/rootfs.sh workloads) as a
#                          rootfs tarball DIR/python.tar, and DIR/policies/python3.json: the shipped
#                          profile pinned from that image (docs/learn.md); prints the image's root
#   wait_for CMD...        retry CMD for up to 30 s
#   stop_pid PID           SIGTERM, wait up to 20 s, then SIGKILL: for daemons we started ourselves
#   ipt_parse, ipt_normal, ipt_compare, ipt_policy_in: iptables snapshots taken before a daemon
#                          and compared after its teardown (below)

CLIENT_TMP=${CLIENT_TMP:-$TMP}

ensure_pkgs() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "# installing ${missing[*]}"
  # A fresh machine may have no package lists yet: update once and retry.
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
}

busybox_rootfs_tar() {
  local out=$1 dir
  dir=$(mktemp -d "${CLIENT_TMP:-/tmp}/rootfs.XXXXXX")
  "$MAKE_BUNDLE" "$dir" sh >/dev/null
  tar -C "$dir/rootfs" -cf "$out" .
  rm -rf "$dir"
}

python_image() {
  local dir=$1 wl
  wl=$("$SHARNESS_SOURCE_DIR/scripts/rootfs.sh" workloads) || return 1
  mkdir -p "$dir/policies"
  "$RUNTIME" policy pin --rootfs "$wl" "$SHARNESS_SOURCE_DIR/policies/python3.json" --out "$dir/policies/python3.json" >/dev/null || return 1
  tar -C "$wl" -cf "$dir/python.tar" . || return 1
  echo "$wl"
}

# A one-layer OCI image layout archive, as `ctr image import` wants it.
busybox_oci_archive() {
  local out=$1 ref=$2 dir layer diff cfg man idx
  dir=$(mktemp -d "${CLIENT_TMP:-/tmp}/oci.XXXXXX")
  mkdir -p "$dir/blobs/sha256"
  busybox_rootfs_tar "$dir/layer.tar"
  diff=$(sha256sum "$dir/layer.tar" | cut -d' ' -f1)
  gzip -n -c "$dir/layer.tar" >"$dir/layer.tar.gz"
  layer=$(sha256sum "$dir/layer.tar.gz" | cut -d' ' -f1)
  mv "$dir/layer.tar.gz" "$dir/blobs/sha256/$layer"
  printf '{"architecture":"amd64","os":"linux","config":{"Cmd":["sh"],"Env":["PATH=/usr/sbin:/usr/bin:/sbin:/bin"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$diff" >"$dir/config.json"
  cfg=$(sha256sum "$dir/config.json" | cut -d' ' -f1)
  mv "$dir/config.json" "$dir/blobs/sha256/$cfg"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%d}]}' \
    "$cfg" "$(stat -c %s "$dir/blobs/sha256/$cfg")" "$layer" "$(stat -c %s "$dir/blobs/sha256/$layer")" >"$dir/manifest.json"
  man=$(sha256sum "$dir/manifest.json" | cut -d' ' -f1)
  idx=$(stat -c %s "$dir/manifest.json")
  mv "$dir/manifest.json" "$dir/blobs/sha256/$man"
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%d,"annotations":{"org.opencontainers.image.ref.name":"%s"}}]}' \
    "$man" "$idx" "$ref" >"$dir/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$dir/oci-layout"
  rm -f "$dir/layer.tar"
  tar -C "$dir" -cf "$out" oci-layout index.json blobs
  rm -rf "$dir"
}

# systemd_v2_host: systemd is PID 1 on pure cgroup v2 (the trixie guest, docs/vm.md), where the
# clients' own default is their systemd cgroup driver.
systemd_v2_host() {
  [ -d /run/systemd/system ] && [ "$(cat /proc/1/comm)" = systemd ] &&
    [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]
}

# assert_scope UNIT SLICE PID ID [PROPERTY=VALUE...]: the scope of container ID as systemd shows
# it: active, in SLICE, its cgroup /SLICE/UNIT, delegated, each PROPERTY=VALUE, made by the
# runtime under test (ours describes it "sharness container ID"), and PID (the container's
# process, seen from the host) in it.
assert_scope() {
  local unit=$1 slice=$2 pid=$3 id=$4 show p args=()
  shift 4
  for p in "$@"; do args+=(-p "${p%%=*}"); done
  show=$(systemctl show "$unit" -p ActiveState -p Slice -p ControlGroup -p Delegate -p Description "${args[@]}")
  echo "$show"
  assert_line "$show" '^ActiveState=active$' "the scope unit $unit"
  assert_line "$show" "^Slice=$slice\$" "its slice"
  assert_line "$show" "^ControlGroup=/$slice/$unit\$" "its cgroup"
  assert_line "$show" '^Delegate=yes$' "delegated"
  for p in "$@"; do assert_line "$show" "^$p\$" "the limit as a unit property"; done
  [ "$OURS" = 0 ] || assert_line "$show" "^Description=sharness container $id\$" "made by the runtime under test"
  assert_eq "0::/$slice/$unit" "$(cat "/proc/$pid/cgroup")" "the container's process, seen from the host"
}

# client_cgroup_dirs DRIVER SLICE PREFIX [ID]: the cgroup dirs of the suite's containers (of
# container ID): under the systemd driver the slice (the scope PREFIX-ID.scope in it), else
# lib.sh's cgroup_dirs.
client_cgroup_dirs() {
  local driver=$1 slice=$2 prefix=$3 d
  shift 3
  if [ "$driver" = systemd ]; then
    d=/sys/fs/cgroup/$slice${1:+/$prefix-$1.scope}
    [ ! -d "$d" ] || echo "$d"
  else
    cgroup_dirs "$@"
  fi
}

wait_for() {
  local i
  for ((i = 0; i < 60; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}

stop_pid() {
  local pid=$1 i
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 40; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.5
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# ---------------------------------------------------------------------------------------------
# iptables snapshots. A snapshot is a file of table<TAB>line, sorted: every chain (":NAME POLICY",
# counters stripped) and every rule ("-A ...") that iptables-save prints.
#
# A table the kernel had not made yet has no lines at all. dockerd's first start makes the nat
# and filter tables, and a table, once made, stays: its built-in chains then show up empty at
# policy ACCEPT, which is exactly what no table means. So the comparison leaves out built-in
# chains at ACCEPT on both sides; a rule, a user chain, and a built-in chain at another policy
# (dockerd sets FORWARD to DROP) still count.

ipt_parse() {  # iptables-save text on stdin -> snapshot lines on stdout
  awk '/^\*/ { t = substr($0, 2); next }
    /^:/ { sub(/ \[[0-9]+:[0-9]+\]$/, ""); print t "\t" $0; next }
    /^-A / { print t "\t" $0 }' | sort
}

IPT_BUILTIN='(INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING)'
ipt_normal() {  # snapshot on stdin without the built-in chains at ACCEPT
  grep -Ev "^[a-z]+"$'\t'":$IPT_BUILTIN ACCEPT$" || true
}

ipt_compare() {  # BEFORE AFTER (snapshot files): the differences as diff shows them; 1 if any
  diff <(ipt_normal <"$1") <(ipt_normal <"$2")
}

ipt_policy_in() {  # SNAPSHOT TABLE CHAIN: the built-in chain's policy there (ACCEPT when absent)
  local p
  p=$(awk -F'\t' -v t="$2" -v c=":$3 " '$1 == t && index($2, c) == 1 { split($2, a, " "); print a[2] }' "$1")
  echo "${p:-ACCEPT}"
}
