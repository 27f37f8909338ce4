# shellcheck shell=bash
# conformance/rootless-lib.bash: an unprivileged user for a suite to run the runtime as. Sourced
# after lib.sh (and client-lib.bash, for ensure_pkgs). It creates a user with a unique name and a
# subordinate id range (useradd's own allocation in /etc/subuid and /etc/subgid, else usermod's),
# a home under the suite's temp dir with a private XDG_RUNTIME_DIR, and on exit (also after a
# failure) removes what the user runs, the user, its home and its ranges.
#
#   as_user CMD...         CMD as the user, clean environment (HOME, USER, XDG_RUNTIME_DIR)
#   urt ARGS...            the runtime under test as the user, --root $RL_ROOT
#   ubundle NAME ARGS...   the runtime's own `spec --rootless` bundle, rootfs owned by the user; sets B
#   ucfg BUNDLE FILTER     jq on the bundle's config.json, keeping it the user's
#   urun BUNDLE [GLOBAL_ARGS...]     `run` as the user; sets OUT, ERR, RC
#   ucreate BUNDLE ID [GLOBAL_ARGS...]  `create` as the user, pid file $RL_HOME/ID.pid
#   RL_USER RL_UID RL_GID RL_HOME RL_XDG RL_ROOT SUBUID SUBUID_N SUBGID SUBGID_N
#   rootless_teardown      (the EXIT trap calls it; a suite may call it to check the result)
ensure_pkgs uidmap || { echo "cannot install uidmap (newuidmap, newgidmap)" >&2; exit 1; }

RL_USER=shrl$$                 # unique per run: a stale one from a crash is never reused
RL_HOME=$TMP/home
RL_XDG=$RL_HOME/xdg            # the user's XDG_RUNTIME_DIR (0700, its own)
RL_ROOT=$RL_XDG/rt-state       # the runtime's --root for the user

_subids_of() { grep -s "^$RL_USER:" "$1" || true; }

rootless_teardown() {
  local pid c
  [ -e "$TMP/.rl-torn-down" ] && return 0
  if id -u "$RL_USER" >/dev/null 2>&1; then
    local uid; uid=$(id -u "$RL_USER")
    if [ -x "$RL_HOME/pm" ]; then
      as_user "$RL_HOME/pm" rm --all --force --time 0 >/dev/null 2>&1 || true
      as_user "$RL_HOME/pm" system reset --force >/dev/null 2>&1 || true
    fi
    for c in $(as_user "$RUNTIME" --root "$RL_ROOT" list -q 2>/dev/null); do
      as_user "$RUNTIME" --root "$RL_ROOT" delete --force "$c" >/dev/null 2>&1 || true
    done
    # Whatever the user still runs (containers, podman's pause process, conmon): by pid.
    for pid in $(ps -e -o pid= -o uid= | awk -v u="$uid" '$2 == u { print $1 }'); do
      kill -KILL "$pid" 2>/dev/null || true
    done
    _umount_under "$RL_HOME"
    userdel -r -f "$RL_USER" >/dev/null 2>&1 || userdel -f "$RL_USER" >/dev/null 2>&1 || true
  fi
  # userdel removes the subordinate ranges; make sure (usermod's lock, then by hand)
  local f
  for f in /etc/subuid /etc/subgid; do
    if [ -n "$(_subids_of "$f")" ]; then
      sed -i "/^$RL_USER:/d" "$f"
    fi
  done
  : >"$TMP/.rl-torn-down"
}

_umount_under() {  # unmount everything mounted under DIR, deepest first
  local m
  for m in $(awk -v t="$1/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
}
# shellcheck disable=SC2154  # _st is assigned inside the trap string
trap '_st=$?; [ "$BASHPID" = "$$" ] && rootless_teardown; (exit $_st); _cleanup' EXIT

# The user: useradd allocates its subordinate ranges (SUB_UID_COUNT in /etc/login.defs, with the
# file lock shadow's tools share); if this useradd does not, usermod adds a free range.
useradd -m -d "$RL_HOME" -s /bin/sh -K UMASK=022 "$RL_USER" || { echo "useradd $RL_USER failed" >&2; exit 1; }
RL_UID=$(id -u "$RL_USER")
RL_GID=$(id -g "$RL_USER")
if [ -z "$(_subids_of /etc/subuid)" ] || [ -z "$(_subids_of /etc/subgid)" ]; then
  _top=$(cat /etc/subuid /etc/subgid 2>/dev/null | awk -F: 'BEGIN { m = 200000 } $2 + $3 > m { m = $2 + $3 } END { print m }')
  usermod --add-subuids "$_top-$((_top + 65535))" --add-subgids "$_top-$((_top + 65535))" "$RL_USER" ||
    { echo "usermod --add-subuids failed" >&2; exit 1; }
fi
IFS=: read -r _ SUBUID SUBUID_N < <(_subids_of /etc/subuid | head -1)
IFS=: read -r _ SUBGID SUBGID_N < <(_subids_of /etc/subgid | head -1)
echo "# user $RL_USER uid $RL_UID gid $RL_GID, subuid $SUBUID+$SUBUID_N, subgid $SUBGID+$SUBGID_N"
[ "$SUBUID_N" -ge 65536 ] && [ "$SUBGID_N" -ge 65536 ] || { echo "no subordinate range of 65536" >&2; exit 1; }
install -d -m 0700 -o "$RL_USER" -g "$RL_GID" "$RL_XDG"

# as_user CMD...: CMD as the user, with a clean environment of its own.
as_user() {
  runuser -u "$RL_USER" -- env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME="$RL_HOME" \
    USER="$RL_USER" LOGNAME="$RL_USER" XDG_RUNTIME_DIR="$RL_XDG" "$@"
}
# The user must reach the runtime and the shipped policies: a tree under a 0700 home (a clone in
# /root) is not reachable, so then the suite uses copies in its temp dir (0755).
if ! as_user test -x "$RUNTIME"; then
  install -m 0755 "$RUNTIME" "$TMP/rt-$RUNTIME_NAME"
  RUNTIME=$TMP/rt-$RUNTIME_NAME
fi
RL_POLICIES=$TMP/policies
install -d -m 0755 "$RL_POLICIES"
install -m 0644 "$SHARNESS_SOURCE_DIR"/policies/*.json "$RL_POLICIES/"

# urt ARGS...: the runtime under test as the user, with its private --root.
urt() { as_user timeout -k 5 "$RT_TIMEOUT" "$RUNTIME" "${RT_EXTRA[@]}" --root "$RL_ROOT" "$@"; }

# ubundle NAME ARGS...: a bundle the user made: the runtime's own `spec --rootless` (no terminal,
# process.args ARGS) and a copy of a busybox rootfs owned by the user. Sets B.
ubundle() {
  local name=$1 c; shift
  for c in $(urt list -q 2>/dev/null); do urt delete --force "$c" >/dev/null 2>&1 || true; done
  new_bundle "src-$name" true >/dev/null
  B=$RL_HOME/b$CASENUM-$name
  as_user mkdir "$B" "$B/data"
  # a copy (make-bundle.sh hard-links from a shared cache: chowning those would change them all)
  cp -a "$CASEDIR/src-$name/rootfs" "$B/rootfs"
  chown -R -h "$RL_USER:$RL_GID" "$B/rootfs"
  as_user "$RUNTIME" spec --rootless --bundle "$B" || { fail "spec --rootless as $RL_USER failed"; return 1; }
  ucfg "$B" '.process.terminal = false
             | .mounts += [{"destination": "/data", "type": "bind", "source": $d, "options": ["rbind", "rw"]}]' \
    --arg d "$B/data"
  set_args "$B" "$@"
}

# ucfg BUNDLE JQ_FILTER [jq options...]: lib.sh's cfg, keeping the file the user's.
ucfg() {
  local b=$1; shift
  jq "$@" "$b/config.json" >"$CASEDIR/.config.new" || { fail "jq failed on $b/config.json: $*"; return 1; }
  cat "$CASEDIR/.config.new" >"$b/config.json"
}

# urun BUNDLE [GLOBAL_ARGS...]: `run` as the user. Sets OUT, ERR, RC.
urun() {
  local b=$1 id; shift
  id=u$CASENUM-$RANDOM
  RC=0
  urt "$@" run --bundle "$b" "$id" >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" </dev/null || RC=$?
  OUT=$(<"$CASEDIR/$id.out")
  ERR=$(<"$CASEDIR/$id.err")
  echo "run $id: exit $RC; stderr: $ERR"
}

# ucreate BUNDLE ID [GLOBAL_ARGS...]: `create` as the user with a pid file; fails the case on error.
ucreate() {
  local b=$1 id=$2; shift 2
  RC=0
  urt "$@" create --bundle "$b" --pid-file "$RL_HOME/$id.pid" "$id" \
    >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" </dev/null || RC=$?
  ERR=$(<"$CASEDIR/$id.err")
  [ "$RC" = 0 ] || { fail "create $id as $RL_USER failed (exit $RC): $ERR"; return 1; }
}

ustatus() { urt state "$1" 2>/dev/null | jq -r .status; }

status_field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"; }

