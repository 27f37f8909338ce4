#!/usr/bin/env bash
# Process: args, env, cwd, user and groups, umask, capabilities, no_new_privs, rlimits,
# oom_score_adj, hostname and domainname, each checked from inside the container.
. "$(dirname "$0")/../lib.sh"

# status_field TEXT NAME: the value of "NAME:\tVALUE" in a /proc/PID/status dump.
status_field() { sed -n "s/^$2:[[:space:]]*//p" <<<"$1"; }

# has_cap HEX BIT: is capability BIT set in the hex mask?
has_cap() { (( (16#$1 >> $2) & 1 )); }

CAP_CHOWN=0 CAP_KILL=5 CAP_NET_BIND_SERVICE=10 CAP_NET_RAW=13 CAP_SYS_ADMIN=21 CAP_AUDIT_WRITE=29

case_args() {
  local b
  b=$(new_bundle b sh -c 'echo "[$0][$1][$2][$#]"' zero 'one two' '' "it's \"q\"")
  run_in "$b"
  assert_rc 0
  assert_eq "[zero][one two][][3]" "$OUT" "argv as seen by the process"
  b=$(new_bundle b2 sh -c 'echo "$3"' a b c "it's \"q\" \\ "'$HOME')
  run_in "$b"
  assert_eq "it's \"q\" \\ \$HOME" "$OUT" "argv with quotes, backslash and dollar"
}

case_args_path_lookup() {
  # args[0] without a slash is looked up in the container's PATH (busybox applets are in /bin)
  local b
  b=$(new_bundle b basename /a/b/c)
  cfg "$b" '.process.env = ["PATH=/bin"]'
  run_in "$b"
  assert_rc 0
  assert_eq c "$OUT" "basename via PATH"
}

case_env() {
  local b
  export SHARNESS_HOST_ONLY=leak
  b=$(new_bundle b sh -c 'env | sort')
  cfg "$b" '.process.env = ["PATH=/bin:/usr/bin", "FOO=bar baz", "EMPTY=", "EQ=a=b"]'
  run_in "$b"
  assert_rc 0
  assert_contains "$OUT" "FOO=bar baz" "env"
  assert_contains "$OUT" $'\nEQ=a=b' "env value with ="
  assert_contains "$OUT" "EMPTY=" "empty env value"
  assert_contains "$OUT" "PATH=/bin:/usr/bin" "PATH"
  assert_not_contains "$OUT" SHARNESS_HOST_ONLY "host environment leaking in"
}

# runc sets HOME when the env has none: the uid's home in the container's /etc/passwd, "/" when
# it has no entry. An /etc/passwd that is a symlink to a host file is read inside the rootfs
# (there it names nothing), never from the host. Control: a HOME the env sets is kept.
case_home_from_passwd() {
  local b
  b=$(new_bundle b sh -c 'echo "HOME=$HOME"')
  cfg "$b" '.process.env = ["PATH=/bin"]'
  run_in "$b"
  assert_rc 0
  assert_eq HOME=/root "$OUT" "uid 0: the passwd entry's home"
  cfg "$b" '.process.user.uid = 4321'
  run_in "$b"
  assert_eq HOME=/ "$OUT" "a uid with no passwd entry"
  cfg "$b" '.process.user.uid = 0 | .process.env = ["PATH=/bin", "HOME=/set"]'
  run_in "$b"
  assert_eq HOME=/set "$OUT" "control: the env's HOME is kept"
  printf 'root:x:0:0::/from-the-host:/bin/sh\n' >"$CASEDIR/host-passwd"
  rm "$b/rootfs/etc/passwd"
  ln -s "$CASEDIR/host-passwd" "$b/rootfs/etc/passwd"
  cfg "$b" '.process.env = ["PATH=/bin"]'
  run_in "$b"
  assert_rc 0
  assert_eq HOME=/ "$OUT" "a passwd symlink to a host file is resolved inside the rootfs"
}

case_cwd() {
  local b
  b=$(new_bundle b pwd)
  cfg "$b" '.process.cwd = "/tmp"'
  run_in "$b"
  assert_rc 0
  assert_eq /tmp "$OUT" "pwd"
  b=$(new_bundle b2 sh -c 'pwd; ls')
  mkdir -p "$b/rootfs/srv/app" && : >"$b/rootfs/srv/app/marker"
  cfg "$b" '.process.cwd = "/srv/app"'
  run_in "$b"
  assert_eq $'/srv/app\nmarker' "$OUT" "pwd and ls in cwd"
}

case_cwd_missing_is_made() {
  # runc and crun make a missing cwd at create (mkdir -p in the rootfs, before a read-only root
  # applies): the process starts in it
  local b id
  b=$(new_bundle b sh -c 'pwd; stat -c %a .')
  cfg "$b" '.process.cwd = "/srv/not/there" | .root.readonly = true'
  id=$(newid cwdnew)
  must_create "$b" "$id" || return 1
  must_start "$id"
  wait_status "$id" stopped
  assert_eq $'/srv/not/there\n755' "$(<"$CASEDIR/$id.out")" "pwd and mode of the made cwd"
}

case_cwd_not_a_dir_fails_create() {
  # a cwd that cannot be a directory fails create (not start), naming the cwd
  local b id
  b=$(new_bundle b pwd)
  cfg "$b" '.process.cwd = "/etc/passwd/sub"'
  id=$(newid cwdbad)
  create_in "$b" "$id"
  [ "$RC" != 0 ] || { fail "create succeeded with process.cwd under a file"; return 1; }
  echo "$ERR"
  if [ "$OURS" = 1 ]; then
    assert_contains "$ERR" 'process.cwd' "the error names process.cwd"
    assert_contains "$ERR" '/etc/passwd/sub' "the error names the cwd"
  fi
  assert_nothing_left "$id"
}

case_user() {
  local b
  b=$(new_bundle b sh -c 'id -u; id -g; id -G; cat /proc/self/status')
  cfg "$b" '.process.user = {"uid": 1000, "gid": 1001}'
  run_in "$b"
  assert_rc 0
  local lines; mapfile -t lines <<<"$OUT"
  assert_eq 1000 "${lines[0]}" "id -u"
  assert_eq 1001 "${lines[1]}" "id -g"
  assert_eq 1001 "${lines[2]}" "id -G (no additional gids: only the primary group)"
  assert_match "$(status_field "$OUT" Uid)" '^1000[[:space:]]+1000[[:space:]]+1000[[:space:]]+1000$' "real/effective/saved/fs uid"
  assert_match "$(status_field "$OUT" Gid)" '^1001[[:space:]]+1001[[:space:]]+1001[[:space:]]+1001$' "real/effective/saved/fs gid"
}

case_additional_gids() {
  local b got
  b=$(new_bundle b sh -c 'id -G; grep ^Groups: /proc/self/status')
  cfg "$b" '.process.user = {"uid": 1000, "gid": 1000, "additionalGids": [10, 20, 65534]}'
  run_in "$b"
  assert_rc 0
  got=$(head -1 <<<"$OUT" | tr ' ' '\n' | sort -n | tr '\n' ' ')
  assert_eq "10 20 1000 65534 " "$got" "id -G (sorted)"
  got=$(sed -n 's/^Groups:[[:space:]]*//p' <<<"$OUT" | tr -s ' \t' '\n' | grep . | sort -n | tr '\n' ' ')
  assert_eq "10 20 65534 " "$got" "Groups: in /proc/self/status"
}

case_user_cannot_write_root_files() {
  # the uid change is real: uid 1000 cannot write a root-owned 0644 file
  local b
  b=$(new_bundle b sh -c 'echo x >> /etc/passwd && echo wrote || echo denied')
  cfg "$b" '.process.user = {"uid": 1000, "gid": 1000}'
  run_in "$b"
  assert_eq denied "$OUT" "write to /etc/passwd as uid 1000"
}

case_umask() {
  local b
  b=$(new_bundle b sh -c 'umask; : > /tmp/f; stat -c %a /tmp/f')
  cfg "$b" '.process.user.umask = 23'   # 0027
  run_in "$b"
  assert_rc 0
  assert_eq $'0027\n640' "$OUT" "umask and the mode of a new file"
}

case_caps_dropped() {
  local b eff bnd prm
  b=$(new_bundle b sh -c 'cat /proc/self/status')
  run_in "$b"
  assert_rc 0
  eff=$(status_field "$OUT" CapEff); bnd=$(status_field "$OUT" CapBnd); prm=$(status_field "$OUT" CapPrm)
  echo "CapEff=$eff CapBnd=$bnd CapPrm=$prm"
  has_cap "$eff" $CAP_NET_RAW && fail "CAP_NET_RAW in CapEff $eff though not configured"
  has_cap "$bnd" $CAP_NET_RAW && fail "CAP_NET_RAW in CapBnd $bnd though not configured"
  has_cap "$eff" $CAP_SYS_ADMIN && fail "CAP_SYS_ADMIN in CapEff $eff"
  has_cap "$eff" $CAP_CHOWN && fail "CAP_CHOWN in CapEff $eff though not configured"
  has_cap "$eff" $CAP_KILL || fail "CAP_KILL missing from CapEff $eff"
  has_cap "$bnd" $CAP_NET_BIND_SERVICE || fail "CAP_NET_BIND_SERVICE missing from CapBnd $bnd"
  # exactly the configured three
  assert_eq 0000000020000420 "$eff" "CapEff = AUDIT_WRITE|NET_BIND_SERVICE|KILL"
  assert_eq 0000000020000420 "$bnd" "CapBnd"
}

# Docker's and Podman's --cap-drop ALL write "capabilities": {}: every set is empty (runc), so
# a uid-0 process holds nothing. Control: the same config with only "bounding" and "effective"
# listing CAP_KILL shows it there, and absent permitted/inheritable/ambient stay empty.
case_caps_empty_object_is_none() {
  local b s
  b=$(new_bundle b sh -c 'cat /proc/self/status')
  cfg "$b" '.process.capabilities = {}'
  run_in "$b"
  assert_rc 0
  for s in CapInh CapPrm CapEff CapBnd CapAmb; do
    assert_eq 0000000000000000 "$(status_field "$OUT" $s)" "$s with \"capabilities\": {}"
  done
  cfg "$b" '.process.capabilities = {"bounding": ["CAP_KILL"], "permitted": ["CAP_KILL"], "effective": ["CAP_KILL"]}'
  run_in "$b"
  assert_rc 0
  assert_eq 0000000000000020 "$(status_field "$OUT" CapBnd)" "control: CapBnd with bounding [CAP_KILL]"
  assert_eq 0000000000000020 "$(status_field "$OUT" CapEff)" "control: CapEff"
  assert_eq 0000000000000000 "$(status_field "$OUT" CapInh)" "absent inheritable is empty"
}

case_caps_no_inheritable_ambient() {
  local b
  b=$(new_bundle b sh -c 'cat /proc/self/status')
  run_in "$b"
  assert_eq 0000000000000000 "$(status_field "$OUT" CapInh)" "CapInh when the config asks none"
  assert_eq 0000000000000000 "$(status_field "$OUT" CapAmb)" "CapAmb when the config asks none"
}

case_caps_added() {
  local b eff
  b=$(new_bundle b sh -c 'cat /proc/self/status')
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_CHOWN", "CAP_NET_RAW"])'
  run_in "$b"
  assert_rc 0
  eff=$(status_field "$OUT" CapEff)
  has_cap "$eff" $CAP_CHOWN || fail "CAP_CHOWN missing from CapEff $eff"
  has_cap "$eff" $CAP_NET_RAW || fail "CAP_NET_RAW missing from CapEff $eff"
  has_cap "$(status_field "$OUT" CapBnd)" $CAP_NET_RAW || fail "CAP_NET_RAW missing from CapBnd"
}

case_cap_chown_effect() {
  # the capability set is enforced: root without CAP_CHOWN cannot chown, with it can
  local b
  b=$(new_bundle b sh -c ': > /tmp/f; chown 65534 /tmp/f && echo chowned || echo refused')
  run_in "$b"
  assert_eq refused "$OUT" "chown without CAP_CHOWN"
  cfg "$b" '.process.capabilities |= with_entries(.value += ["CAP_CHOWN"])'
  run_in "$b"
  assert_eq chowned "$OUT" "chown with CAP_CHOWN"
}

case_caps_runc_spec_ambient() {
  # `runc spec` lists CAP_AUDIT_WRITE, CAP_KILL, CAP_NET_BIND_SERVICE as ambient but not as
  # inheritable: the kernel raises none of them, so the config runs with an empty ambient set (as
  # runc and crun do), and ours says in its log which ones it left out.
  local b id log=$CASEDIR/rt.log st cap
  b=$(runc_spec_bundle b cat /proc/self/status)
  id=$(newid spec)
  _cgpath_for "$b" "$id"
  RC=0
  rt --log "$log" --log-format json run --bundle "$b" "$id" >"$CASEDIR/$id.out" 2>"$CASEDIR/$id.err" </dev/null || RC=$?
  st=$(<"$CASEDIR/$id.out")
  cat "$CASEDIR/$id.err" "$log" 2>/dev/null
  assert_rc 0 "run of the runc spec config"
  assert_eq 0000000000000000 "$(status_field "$st" CapAmb)" "CapAmb"
  assert_eq 0000000000000000 "$(status_field "$st" CapInh)" "CapInh"
  assert_eq 0000000020000420 "$(status_field "$st" CapEff)" "CapEff = AUDIT_WRITE|NET_BIND_SERVICE|KILL"
  if [ "$OURS" = 1 ]; then
    for cap in CAP_AUDIT_WRITE CAP_KILL CAP_NET_BIND_SERVICE; do
      jq -e -s --arg c "$cap" 'any(.[]; .level == "warning" and (.msg | contains($c + " is not in inheritable")))' \
        "$log" >/dev/null 2>&1 || fail "no warning line naming $cap left out of the ambient set"
    done
  fi
}

case_caps_non_root_user() {
  # a non-root user keeps capabilities across execve only through the ambient set (kernel rule):
  # without ambient it ends with none, with inheritable+ambient CAP_KILL it has CAP_KILL; the
  # bounding set is the configured one either way
  local b st
  b=$(new_bundle b sh -c 'cat /proc/self/status')
  cfg "$b" '.process.user = {"uid": 1000, "gid": 1000}'
  run_in "$b"
  assert_rc 0
  assert_eq 0000000000000000 "$(status_field "$OUT" CapEff)" "CapEff of uid 1000 without ambient"
  assert_eq 0000000020000420 "$(status_field "$OUT" CapBnd)" "CapBnd of uid 1000"
  cfg "$b" '.process.capabilities.inheritable = ["CAP_KILL"] | .process.capabilities.ambient = ["CAP_KILL"]'
  run_in "$b"
  assert_rc 0
  assert_eq 0000000000000020 "$(status_field "$OUT" CapAmb)" "CapAmb with ambient CAP_KILL"
  assert_eq 0000000000000020 "$(status_field "$OUT" CapEff)" "CapEff of uid 1000 with ambient CAP_KILL"
}

case_no_new_privs() {
  local b
  b=$(new_bundle b grep NoNewPrivs /proc/self/status)
  run_in "$b"
  assert_match "$OUT" '^NoNewPrivs:[[:space:]]+1$' "noNewPrivileges true"
  cfg "$b" '.process.noNewPrivileges = false'
  run_in "$b"
  assert_match "$OUT" '^NoNewPrivs:[[:space:]]+0$' "noNewPrivileges false"
}

case_rlimit_nofile() {
  local b
  b=$(new_bundle b sh -c 'ulimit -n; ulimit -Sn; ulimit -Hn; grep "open files" /proc/self/limits')
  cfg "$b" '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 100, "hard": 100}]'
  run_in "$b"
  assert_rc 0
  local lines; mapfile -t lines <<<"$OUT"
  assert_eq 100 "${lines[0]}" "ulimit -n"
  assert_match "${lines[3]}" 'open files[[:space:]]+100[[:space:]]+100[[:space:]]' "/proc/self/limits"
}

case_rlimit_soft_below_hard() {
  local b
  b=$(new_bundle b sh -c 'grep -E "open files|core file" /proc/self/limits')
  cfg "$b" '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 50, "hard": 100},
                                {"type": "RLIMIT_CORE", "soft": 0, "hard": 4096}]'
  run_in "$b"
  assert_rc 0
  assert_match "$OUT" 'open files[[:space:]]+50[[:space:]]+100[[:space:]]' "NOFILE soft 50 hard 100"
  assert_match "$OUT" 'core file size[[:space:]]+0[[:space:]]+4096[[:space:]]' "CORE soft 0 hard 4096"
}

case_rlimit_effect() {
  known_fail crun   # crun 1.8.1 applies NOFILE 10 to itself first, then fails to open its files
  # the limit bites: with NOFILE 10 and fds 0-9 open, cat cannot open a file
  local b
  b=$(new_bundle b sh -c 'exec 3</etc/passwd 4<&3 5<&3 6<&3 7<&3 8<&3 9<&3
                          cat /etc/group >/dev/null && echo opened || echo refused')
  cfg "$b" '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 10, "hard": 10}]'
  run_in "$b"
  assert_rc 0
  assert_eq refused "$OUT" "cat with NOFILE 10 and fds 0-9 open"
  assert_match "$ERR" '[Tt]oo many open files' "the error seen"
  # and with the default limit (1024), it opens
  cfg "$b" '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 1024, "hard": 1024}]'
  run_in "$b"
  assert_eq opened "$OUT" "cat with NOFILE 1024 and fds 0-9 open"
}

case_rlimit_cannot_raise_hard() {
  # without CAP_SYS_RESOURCE in the container, a hard limit set by the runtime is a boundary
  local b
  b=$(new_bundle b sh -c 'ulimit -Hn 200 && echo raised || echo refused; ulimit -Hn')
  cfg "$b" '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 100, "hard": 100}]'
  run_in "$b"
  assert_eq $'refused\n100' "$OUT" "raising the hard NOFILE inside"
}

case_oom_score_adj() {
  local b
  b=$(new_bundle b cat /proc/self/oom_score_adj)
  cfg "$b" '.process.oomScoreAdj = 500'
  run_in "$b"
  assert_rc 0
  assert_eq 500 "$OUT" "oom_score_adj"
  # (lowering it below the caller's needs CAP_SYS_RESOURCE, which this host lacks: raise only)
  cfg "$b" '.process.oomScoreAdj = 1000'
  run_in "$b"
  assert_eq 1000 "$OUT" "oom_score_adj 1000"
}

case_hostname() {
  local b
  b=$(new_bundle b sh -c 'hostname; uname -n')
  cfg "$b" '.hostname = "box-1.example"'
  run_in "$b"
  assert_rc 0
  assert_eq $'box-1.example\nbox-1.example' "$OUT" "hostname and uname -n"
}

case_domainname() {
  known_fail runc   # runc 1.1 has no "domainname" support (added in 1.2)
  local b
  b=$(new_bundle b cat /proc/sys/kernel/domainname)
  cfg "$b" '.domainname = "corp.example"'
  run_in "$b"
  assert_rc 0
  assert_eq corp.example "$OUT" "domainname"
}

case_no_tty() {
  local b
  b=$(new_bundle b sh -c '[ -t 0 ] || [ -t 1 ] && echo tty || echo notty')
  run_in "$b"
  assert_eq notty "$OUT" "terminal false: stdio is not a tty"
}

case_fds_closed() {
  # nothing but 0, 1, 2 is open in the container's process (runtime fds do not leak in)
  local b
  b=$(new_bundle b sh -c 'ls /proc/self/fd')
  run_in "$b" 3</dev/null
  assert_rc 0
  # ls itself opens one fd for the directory it lists
  local fds; fds=$(tr '\n' ' ' <<<"$OUT")
  assert_match "$fds" '^0 1 2 ([0-9]+ )?$' "open fds in the container"
}

# The session keyring: a new one per container, never one found by name. runc and crun join
# "_ses.<id>", which first looks for an existing keyring of that name the caller may search: one
# planted in advance under a container's id (here in root's user keyring) is joined, and shared
# with whoever planted it. Ours makes an anonymous one (docs/intended-differences.md).
PLANTED=""
revoke_planted() { [ -z "$PLANTED" ] || "$TMP/keyring" revoke "$PLANTED" 2>/dev/null; PLANTED=""; }
case_session_keyring_new() {
  local tool b id host got
  known_fail runc crun  # both join "_ses.<id>" by name
  tool=$(static_tool keyring.c)
  b=$(new_bundle b /keyring show)
  cp "$tool" "$b/rootfs/keyring"
  id=$(newid k)
  trap revoke_planted EXIT
  PLANTED=$("$tool" plant "_ses.$id") || { fail "could not plant a keyring named _ses.$id"; return; }
  # Control: a join by that name gets the planted keyring, as a runtime naming it would.
  assert_eq "$PLANTED _ses.$id" "$("$tool" join "_ses.$id")" "control: join by name finds the planted keyring"
  host=$("$tool" show)
  run_in "$b" "$id"
  assert_rc 0 "keyring show in the container"
  got=${OUT%% *}
  [[ "$got" =~ ^[0-9]+$ ]] || fail "no session keyring serial from inside: $OUT $ERR"
  assert_ne "$PLANTED" "$got" "the container's session keyring is not the one planted under its name"
  assert_ne "${host%% *}" "$got" "the container's session keyring is not the caller's"
  [[ "${OUT#* }" == _ses* ]] || fail "the container's session keyring is a session keyring: $OUT"
  # --no-new-keyring keeps the caller's: the probe sees a shared keyring when there is one.
  b=$(new_bundle b2 /keyring show)
  cp "$tool" "$b/rootfs/keyring"
  run_in "$b" "$(newid k2)" --no-new-keyring
  assert_eq "$host" "$OUT" "--no-new-keyring: the caller's session keyring"
  revoke_planted
}
tcase "args are passed verbatim" case_args
tcase "session keyring: a new anonymous one, not one planted under the container's name" case_session_keyring_new
tcase "args[0] is looked up in the container's PATH" case_args_path_lookup
tcase "env is exactly the configured one" case_env
tcase "HOME from the container's /etc/passwd when the env has none" case_home_from_passwd
tcase "cwd is honoured" case_cwd
tcase "user uid:gid (id, /proc/self/status)" case_user
tcase "additionalGids" case_additional_gids
tcase "uid 1000 cannot write a root-owned file" case_user_cannot_write_root_files
tcase "umask" case_umask
tcase "cwd: a missing one is made at create (as runc and crun)" case_cwd_missing_is_made
tcase "cwd: one that cannot be a directory fails create, named" case_cwd_not_a_dir_fails_create
tcase "capabilities: only the configured ones (NET_RAW, SYS_ADMIN, CHOWN absent)" case_caps_dropped
tcase "capabilities: no inheritable or ambient unless asked" case_caps_no_inheritable_ambient
tcase "capabilities: an empty object ({}, --cap-drop ALL) is no capabilities" case_caps_empty_object_is_none
tcase "capabilities: CAP_CHOWN and CAP_NET_RAW present when listed" case_caps_added
tcase "capabilities: CAP_CHOWN decides whether chown works" case_cap_chown_effect
tcase "capabilities: a non-root user keeps them only through ambient" case_caps_non_root_user
tcase "capabilities: the runc spec config (ambient, not inheritable) runs, ambient left empty" case_caps_runc_spec_ambient
tcase "noNewPrivileges -> NoNewPrivs: 1 (and 0 when false)" case_no_new_privs
tcase "rlimit NOFILE 100/100 -> ulimit -n 100" case_rlimit_nofile
tcase "rlimits with soft < hard" case_rlimit_soft_below_hard
tcase "rlimit NOFILE bites (Too many open files)" case_rlimit_effect
tcase "the hard rlimit cannot be raised inside" case_rlimit_cannot_raise_hard
tcase "oomScoreAdj in /proc/self/oom_score_adj" case_oom_score_adj
tcase "hostname" case_hostname
tcase "domainname" case_domainname
tcase "terminal false: no tty" case_no_tty
tcase "only fds 0, 1, 2 are open" case_fds_closed
finish
