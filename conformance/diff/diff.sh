#!/usr/bin/env bash
# conformance/diff/diff.sh: the differential suite. Every config in conformance/diff/corpus/ (each
# exactly as a real generator wrote it: runc, crun, our own spec, Docker, Podman, containerd's ctr
# and CRI; regenerate.sh rewrites them) runs under a reference runtime (Debian's runc, or
# SHARNESS_DIFF_REFERENCE=/usr/bin/crun) and under the runtime under test (SHARNESS_RUNTIME), and
# what each did is compared, one TAP case per corpus config:
#
#   step            whether it succeeded, and if not at which step (create or start)
#   exit            the exit code of the container's process
#   caps nonewprivs seccomp ids mounts hostname rlimits lo net cgroup sysctl env cwd umask
#   oom_score_adj terminal pid masked readonly hooks
#                   effects seen from inside (a probe script is the container's process) and, for
#                   cgroup limits, read on the host between create and start; hooks: what each hook
#                   saw (its kind and the state's status), in order
#
# A difference fails the case unless docs/intended-differences.md lists it, keyed by corpus name
# (a shell glob) and effect, with its reason.
#
# Before both runs the config is normalized the same way for both runtimes, so that a config
# written on another host runs here: root.path becomes a busybox rootfs (scripts/make-bundle.sh);
# process.args the probe; bind sources that do not exist here (resolv.conf, hosts, hostname,
# shm, secrets, .containerenv written by the client) temp files or dirs; namespace paths
# namespaces this suite holds (network, ipc, uts, pid); cgroupsPath one under this run's parent;
# hooks that call the client's daemon (dockerd's libnetwork-setkey) a recording hook. Nothing
# else is touched.
#
# SHARNESS_CASES='regex' runs only the matching corpus names; SHARNESS_VERBOSE=1 shows every
# case's comparison.
# shellcheck disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

REF=${SHARNESS_DIFF_REFERENCE:-/usr/sbin/runc}
if [ ! -x "$REF" ] && { [ "$REF" = /usr/sbin/runc ] || [ "$REF" = /usr/bin/crun ]; }; then
  echo "# installing $(basename "$REF")"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$(basename "$REF")" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$(basename "$REF")" >/dev/null; }
fi
[ -x "$REF" ] || { echo "reference runtime not executable: $REF" >&2; exit 1; }
REF_NAME=$(basename "$REF")
CORPUS=$SHARNESS_SOURCE_DIR/conformance/diff/corpus
TABLE=$SHARNESS_SOURCE_DIR/docs/intended-differences.md
[ -r "$TABLE" ] || { echo "missing $TABLE" >&2; exit 1; }
EFFECTS=(step exit caps nonewprivs seccomp ids mounts hostname rlimits lo net cgroup sysctl env cwd
  umask oom_score_adj terminal pid masked readonly hooks)

RECEIVER=${CONSOLE_RECEIVER:-}
if [ -z "$RECEIVER" ]; then
  RECEIVER=$TMP/console-receiver
  g++ -std=gnu++23 -O1 -Wall -o "$RECEIVER" "$SHARNESS_SOURCE_DIR/tests/tools/console_receiver.cpp" ||
    { echo "cannot build console-receiver (set CONSOLE_RECEIVER)" >&2; exit 1; }
fi

# ---------------------------------------------------------------------------------------------
# The table of intended differences: rows "| corpus glob | effect | reason |" (header skipped).
declare -a INTENDED_GLOB=() INTENDED_EFFECT=() INTENDED_REASON=()
while IFS='|' read -r _ g e r _; do
  g=$(xargs <<<"$g"); e=$(xargs <<<"$e"); r=$(sed 's/^ *//; s/ *$//' <<<"$r")
  g=${g//\`/}; e=${e//\`/}
  [ -n "$g" ] && [ -n "$e" ] || continue
  [[ $g == corpus || $g == -* || $g == :* ]] && continue
  INTENDED_GLOB+=("$g") INTENDED_EFFECT+=("$e") INTENDED_REASON+=("$r")
done < <(grep -E '^\|' "$TABLE")

# intended NAME EFFECT: prints the reason and returns 0 when a row lists this difference. EFFECT
# is an effect ("mounts"), one line's key in it ("mounts:/sys/fs/cgroup", "env:HOME",
# "caps:CapBnd"), or one whole line ("cgroup:devices c 10:200 rwm"); a row's cells are globs.
intended() {
  local i
  for i in "${!INTENDED_GLOB[@]}"; do
    # shellcheck disable=SC2053  # the table's cells are globs
    if [[ $1 == ${INTENDED_GLOB[i]} && $2 == ${INTENDED_EFFECT[i]} ]]; then
      echo "${INTENDED_REASON[i]}"
      return 0
    fi
  done
  return 1
}

# line_key LINE: what a line of an effect is about: its first word, up to a space, tab, "=" or
# ":" (a mount point, an env name, a cgroup file, a capability set).
line_key() {
  local k=${1#"${1%%[! ]*}"}
  k=${k%%[ $'\t'=:]*}
  echo "$k"
}

# ---------------------------------------------------------------------------------------------
# Namespaces that corpus configs join by path (a client's sandbox netns, a pod's ipc/uts/pid):
# held by this suite for its whole run, bind-mounted under $TMP (lib.sh unmounts those), the pid
# namespace by a sleeping process stopped by pid at exit.
for t in net ipc uts; do
  : >"$TMP/ns-$t"
done
unshare --net="$TMP/ns-net" --ipc="$TMP/ns-ipc" --uts="$TMP/ns-uts" true ||
  { echo "cannot make the namespaces to join" >&2; exit 1; }
setsid unshare --pid --fork sleep 100000 </dev/null >/dev/null 2>&1 &
PID_HOLDER=$!
disown "$PID_HOLDER"
PIDNS_PID=""
for _ in $(seq 50); do
  PIDNS_PID=$(cat "/proc/$PID_HOLDER/task/$PID_HOLDER/children" 2>/dev/null | awk '{ print $1 }')
  [ -n "$PIDNS_PID" ] && break
  sleep 0.05
done
[ -n "$PIDNS_PID" ] || PIDNS_PID=$PID_HOLDER
_diff_exit() {
  local rc=$? d
  kill -KILL "$PID_HOLDER" "$PIDNS_PID" 2>/dev/null
  for d in "$TMP"/c*/state-ref; do
    [ -d "$d" ] || continue
    for id in $("$REF" --root "$d" list -q 2>/dev/null); do "$REF" --root "$d" delete --force "$id" >/dev/null 2>&1; done
  done
  (exit "$rc")
  _cleanup
}
trap _diff_exit EXIT

# ---------------------------------------------------------------------------------------------
# The probe: the container's process. Busybox sh; prints one section per effect.
cat >"$TMP/probe" <<'EOF'
#!/bin/sh
s() { echo "== $1"; }
s caps; grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status
s nonewprivs; grep '^NoNewPrivs:' /proc/self/status
s seccomp; grep -E '^Seccomp(_filters)?:' /proc/self/status
s ids; grep -E '^(Uid|Gid|Groups):' /proc/self/status
s mounts
# mount point, type, per-mount options, propagation (without peer ids), source, super options
awk '{ opt = ""; for (i = 7; $i != "-"; i++) { t = $i; sub(/:[0-9]+$/, "", t); opt = opt " " t }
       print $5, $(i + 1), $6, "[" opt " ]", $(i + 2), $(i + 3) }' /proc/self/mountinfo | sort
s hostname; hostname; cat /proc/sys/kernel/domainname 2>&1
s rlimits; cat /proc/self/limits
s lo; ip -o link show lo 2>&1 | sed -n 's/^[0-9]*: \([^:]*\): <\([^>]*\)>.*/\1 \2/p'
s net; ip -o link show 2>&1 | sed -n 's/^[0-9]*: \([^:@]*\).*/\1/p' | sort
s sysctl
while read -r k; do
  [ -n "$k" ] && echo "$k=$(cat "/proc/sys/$(echo "$k" | tr . /)" 2>&1)"
done </.diff/sysctls
s env; env | sort
s cwd; pwd
s umask; umask
s oom_score_adj; cat /proc/self/oom_score_adj
s terminal; for fd in 0 1 2; do [ -t $fd ] && echo "fd$fd tty" || echo "fd$fd not a tty"; done
s pid; [ "$$" = 1 ] && echo "pid 1" || echo "not pid 1"
s masked
while read -r p; do
  if [ -d "$p" ]; then echo "$p dir entries=$(ls -A "$p" 2>/dev/null | wc -l)"
  elif [ -e "$p" ]; then echo "$p file bytes=$(head -c 64 "$p" 2>/dev/null | wc -c)"
  else echo "$p absent"; fi
done </.diff/masked
s readonly
while read -r p; do
  if [ ! -e "$p" ]; then echo "$p absent"; elif [ -w "$p" ]; then echo "$p writable"; else echo "$p read-only"; fi
done </.diff/readonly
s end
EOF
chmod 0755 "$TMP/probe"

# The recording hook: appends "KIND STATUS" (the status of the state on its stdin) to FILE.
cat >"$TMP/hook-record" <<EOF
#!/bin/sh
printf '%s %s\n' "\$1" "\$($(command -v jq) -r .status)" >>"\$2"
EOF
chmod 0755 "$TMP/hook-record"

# The driver: a subreaper (as a shim or conmon is), so the container's init comes back to it and
# its exit status can be read. drive.pl OUT PIDFILE HOSTREAD -- CREATE... -- START...
# OUT gets the step ("ok", "create failed (exit N)", "start failed (exit N)") and the exit section;
# HOSTREAD PID runs between create and start.
cat >"$TMP/drive.pl" <<'EOF'
use strict; use warnings; use POSIX ();
my $nr = { x86_64 => 157, aarch64 => 167 }->{(POSIX::uname())[4]} // 157;
syscall($nr, 36, 1, 0, 0, 0) == 0 or die "prctl: $!\n";
my ($out, $pidfile, $hostread) = splice(@ARGV, 0, 3);
shift @ARGV;
my @create; push @create, shift @ARGV while @ARGV && $ARGV[0] ne '--';
shift @ARGV;
my @start = @ARGV;
open(my $o, '>', $out) or die "$out: $!\n";
$o->autoflush(1);
my $rc = system(@create);
if ($rc != 0) { printf $o "create failed (exit %d)\n", $rc == -1 ? 255 : $rc >> 8; exit 0 }
open(my $f, '<', $pidfile) or do { print $o "create failed (no pid file)\n"; exit 0 };
my $pid = <$f>; close $f; chomp $pid;
system($hostread, $pid);
$rc = system(@start);
if ($rc != 0) {
  printf $o "start failed (exit %d)\n", $rc >> 8;
  kill 'KILL', $pid; waitpid($pid, 0); exit 0;
}
my $timed_out = 0;
local $SIG{ALRM} = sub { $timed_out = 1; kill 'KILL', $pid };
alarm 20;
while (1) { my $w = waitpid(-1, 0); last if $w == $pid || $w == -1 }
my $st = $?;
alarm 0;
print $o $timed_out ? "ok\n== exit\ntimed out\n" : sprintf("ok\n== exit\n%d signal %d\n", $st >> 8, $st & 127);
EOF

# hostread PID: the cgroup limits of the container's init, read on the host, its id replaced;
# written to $DIFF_HOST.
cat >"$TMP/hostread" <<'EOF'
#!/bin/bash
pid=$1 id=$DIFF_ID
exec >"$DIFF_HOST"
echo "== cgroup"
while IFS=: read -r _ ctrls path; do
  [[ $ctrls == name=* ]] && continue
  echo "${ctrls:-unified}:${path//$id/ID}"
  case ${ctrls:-unified} in
    memory) files="memory.limit_in_bytes memory.soft_limit_in_bytes memory.memsw.limit_in_bytes memory.swappiness memory.kmem.limit_in_bytes memory.kmem.tcp.limit_in_bytes" d=memory ;;
    pids) files="pids.max" d=pids ;;
    cpu,cpuacct|cpu) files="cpu.shares cpu.cfs_quota_us cpu.cfs_period_us" d=$ctrls ;;
    cpuset) files="cpuset.cpus cpuset.mems" d=cpuset ;;
    blkio) files="blkio.weight" d=blkio ;;
    devices) files="" d=devices
      # one line per rule, so that the table can name one rule
      sort "/sys/fs/cgroup/devices$path/devices.list" 2>/dev/null | sed 's/^/  devices /' ;;
    hugetlb) files="" d=hugetlb ;;
    unified) files="memory.max pids.max cpu.max" d=unified ;;
    *) files="" d=$ctrls ;;
  esac
  for f in $files; do
    [ -r "/sys/fs/cgroup/$d$path/$f" ] && echo "  $f: $(sort "/sys/fs/cgroup/$d$path/$f" | tr '\n' ' ')"
  done
done < <(sort -t: -k2 "/proc/$pid/cgroup")
EOF
chmod 0755 "$TMP/hostread"

# ---------------------------------------------------------------------------------------------
# Normalizing a corpus config (the same for both runtimes)

# stand_in N DEST: a temp file or dir in place of a bind source that is not on this host.
stand_in() {
  local p=$CASEDIR/binds/$1 dest=$2
  mkdir -p "$CASEDIR/binds"
  case $(basename "$dest") in
    resolv.conf) echo "nameserver 127.0.0.1" >"$p" ;;
    hosts) printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' >"$p" ;;
    hostname) echo "diff-host" >"$p" ;;
    .containerenv|*.env|*.conf|termination-log) : >"$p" ;;
    *) mkdir -p "$p"; echo stand-in >"$p/stand-in" ;;
  esac
  echo "$p"
}

# normalize CORPUS_FILE OUT: the config to run (cgroupsPath is set per run).
normalize() {
  local in=$1 out=$2 i n src dest type opts subs='{}'
  n=$(jq '.mounts | length' "$in")
  for ((i = 0; i < n; i++)); do
    IFS=$'\t' read -r type src dest opts < <(jq -r --argjson i "$i" \
      '.mounts[$i] | [.type // "", .source // "", .destination, ((.options // []) | join(","))] | @tsv' "$in")
    [[ $type == bind || ,$opts, == *,bind,* || ,$opts, == *,rbind,* ]] || continue
    [ -e "$src" ] && [[ $src != /tmp/* ]] && continue
    subs=$(jq --arg i "$i" --arg p "$(stand_in "$i" "$dest")" '.[$i] = $p' <<<"$subs")
  done
  jq --argjson subs "$subs" --arg net "$TMP/ns-net" --arg ipc "$TMP/ns-ipc" --arg uts "$TMP/ns-uts" \
     --arg pid "/proc/$PIDNS_PID/ns/pid" --arg rec "$TMP/hook-record" --arg recfile "$CASEDIR/hooks.RUN" '
    .root = {path: "rootfs", readonly: (.root.readonly // false)}
    | .process.args = ["/.diff/probe"]
    | .mounts = [(.mounts // []) | to_entries[] | .value + (if $subs[.key | tostring] then {source: $subs[.key | tostring]} else {} end)]
    | if .linux.namespaces then .linux.namespaces |= map(
        if .path then .path = ({network: $net, ipc: $ipc, uts: $uts, pid: $pid}[.type] // .path) else . end)
      else . end
    | if .hooks then .hooks |= with_entries(.key as $k | .value |= map(
        if (.path | test("^/proc/[0-9]+/exe$|/(dockerd|podman|conmon|containerd[^/]*)$"))
        then {path: $rec, args: [$rec, $k, $recfile]} else . end)) else . end
  ' "$in" >"$out"
}

# ---------------------------------------------------------------------------------------------
# One run: BIN TAG (ref|ours). Writes $CASEDIR/TAG.result: "ok"/"create failed ..."/"start
# failed ..." then the sections of the probe, the host-side read and the hooks.
run_under() {
  local bin=$1 tag=$2
  local b=$CASEDIR/b-$tag id=diff-$CASENUM-$tag root=$CASEDIR/state-$tag sock="" rpid="" term=()
  local res=$CASEDIR/$tag.result
  MAKE_BUNDLE_CGROUPS_PATH=/$CGPARENT/$id "$MAKE_BUNDLE" "$b" sh >/dev/null
  mkdir -p "$b/rootfs/.diff"
  cp "$TMP/probe" "$b/rootfs/.diff/probe"
  jq -r '.linux.maskedPaths // [] | .[]' "$CASEDIR/config.json" >"$b/rootfs/.diff/masked"
  jq -r '.linux.readonlyPaths // [] | .[]' "$CASEDIR/config.json" >"$b/rootfs/.diff/readonly"
  { jq -r '.linux.sysctl // {} | keys[]' "$CASEDIR/config.json"
    echo net.ipv4.ip_unprivileged_port_start; echo net.ipv4.ping_group_range; } | sort -u >"$b/rootfs/.diff/sysctls"
  chmod -R a+rX "$b/rootfs/.diff"
  sed "s|hooks.RUN|hooks.$tag|g" "$CASEDIR/config.json" |
    jq --arg cg "/$CGPARENT/$id" '.linux.cgroupsPath = $cg' >"$b/config.json"
  mkdir -p "$root"
  echo "$id" >>"$CASEDIR/.ids"
  if [ "$(jq -r '.process.terminal // false' "$b/config.json")" = true ]; then
    sock=$CASEDIR/console-$tag.sock
    "$RECEIVER" "$sock" --expect "== end" --timeout 25 >"$CASEDIR/$tag.tty" 2>"$CASEDIR/$tag.receiver" &
    rpid=$!
    for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.02; done
    term=(--console-socket "$sock")
  fi
  DIFF_ID=$id DIFF_HOST=$CASEDIR/$tag.host perl "$TMP/drive.pl" "$CASEDIR/$tag.step" "$CASEDIR/$tag.pid" "$TMP/hostread" -- \
    timeout -k 5 "$RT_TIMEOUT" "$bin" --root "$root" create --bundle "$b" --pid-file "$CASEDIR/$tag.pid" "${term[@]}" "$id" -- \
    timeout -k 5 "$RT_TIMEOUT" "$bin" --root "$root" start "$id" \
    >"$CASEDIR/$tag.out" 2>"$CASEDIR/$tag.err" </dev/null
  timeout -k 5 "$RT_TIMEOUT" "$bin" --root "$root" delete --force "$id" >>"$CASEDIR/$tag.err" 2>&1
  if [ -n "$rpid" ]; then
    wait "$rpid" 2>/dev/null || true
    tr -d '\r' <"$CASEDIR/$tag.tty" | sed '1{/^winsize /d}' >>"$CASEDIR/$tag.out"
  fi
  {
    head -1 "$CASEDIR/$tag.step"
    if [ "$(head -1 "$CASEDIR/$tag.step")" = ok ]; then
      tail -n +2 "$CASEDIR/$tag.step"
      cat "$CASEDIR/$tag.host" "$CASEDIR/$tag.out"
    fi
    echo "== hooks"
    cat "$CASEDIR/hooks.$tag" 2>/dev/null || true
  } >"$res"
}

# section FILE NAME: the lines of section NAME (between "== NAME" and the next "== ").
section() {
  awk -v s="== $2" '$0 == s { on = 1; next } /^== / { on = 0 } on' "$1" |
    sed "s|/$CGPARENT/diff-$CASENUM-[a-z]*|/CGPARENT/ID|g"
}

# ---------------------------------------------------------------------------------------------
# One case per corpus config

diff_case() {
  local name=$1 e ref ours why bad=0 shown=0
  normalize "$CORPUS/$name.json" "$CASEDIR/config.json"
  run_under "$REF" ref
  run_under "$RUNTIME" ours
  for e in "${EFFECTS[@]}"; do
    if [ "$e" = step ]; then
      ref=$(head -1 "$CASEDIR/ref.result"); ours=$(head -1 "$CASEDIR/ours.result")
      ref=${ref%% (*}; ours=${ours%% (*}
    else
      [ "$(head -1 "$CASEDIR/ref.result")" = ok ] && [ "$(head -1 "$CASEDIR/ours.result")" = ok ] ||
        [ "$e" = hooks ] || continue
      ref=$(section "$CASEDIR/ref.result" "$e"); ours=$(section "$CASEDIR/ours.result" "$e")
    fi
    [ "$ref" == "$ours" ] && continue
    # the differing lines, each intended by a row for the effect or for its key, or not
    local lines=() l key unlisted=0 notes=()
    mapfile -t lines < <(diff <(echo "$ref") <(echo "$ours") | sed -n 's/^[<>] /&/p')
    for l in "${lines[@]}"; do
      key=$(line_key "${l:2}")
      if why=$(intended "$name" "$e") || why=$(intended "$name" "$e:$key") ||
        why=$(intended "$name" "$e:$(sed 's/^ *//' <<<"${l:2}")"); then
        notes+=("# intended: $e:$key (docs/intended-differences.md: ${why:0:90}...)")
      else
        unlisted=1
      fi
    done
    [ ${#notes[@]} = 0 ] || printf '%s\n' "${notes[@]}" | sort -u
    [ "$unlisted" = 1 ] || continue
    bad=1
    echo "DIFF $name $e: $REF_NAME (<) vs $RUNTIME_NAME (>)"
    for l in "${lines[@]}"; do
      key=$(line_key "${l:2}")
      intended "$name" "$e" >/dev/null || intended "$name" "$e:$key" >/dev/null ||
        intended "$name" "$e:$(sed 's/^ *//' <<<"${l:2}")" >/dev/null || echo "  $l"
    done | head -30
    [ "$e" = step ] && break
  done
  if [ "$bad" = 1 ] || [ "${SHARNESS_VERBOSE:-0}" = 1 ]; then
    for t in ref ours; do
      echo "--- $t: $(head -1 "$CASEDIR/$t.result"); stderr:"
      head -8 "$CASEDIR/$t.err" | sed 's/^/  /'
    done
    shown=1
  fi
  # our runtime's warnings are shown (a difference must be a warning or an error, never silent)
  [ "$shown" = 1 ] || grep -i 'warn' "$CASEDIR/ours.err" | head -5 | sed 's/^/# ours: /'
  [ "$bad" = 0 ] || fail "$name differs from $REF_NAME"
}

for f in "$CORPUS"/*.json; do
  name=$(basename "$f" .json)
  eval "case_$name() { diff_case '$name'; }" 2>/dev/null || { echo "bad corpus name: $name" >&2; exit 1; }
  tcase "$name" "case_$name"
done
finish
