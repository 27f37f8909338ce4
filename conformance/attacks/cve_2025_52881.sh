#!/usr/bin/env bash
# CVE-2025-52881: the runtime's own writes to /proc (sysctls, oom_score_adj, ...) are redirected
# to another file: the runtime writes with all its privileges wherever the redirect points.
#
# We mount a fresh procfs, so the image cannot plant anything in /proc; the variants that matter:
#   - sysctl keys with "..", "/" or a leading "/" that walk out of /proc/sys;
#   - a config mount over a /proc/sys file (a host file bound over kernel/domainname) before the
#     sysctl write, and over the one /proc/sys file lxcfs may cover (kernel/ns_last_pid), with a
#     host PROCFS file as source (a sleeper's /proc/PID/oom_score_adj: a write through it would
#     show as a changed score on the host);
#   - the host's /proc bound onto the container's /proc, then a namespaced sysctl and
#     oom_score_adj written through it.
# The runtime must refuse, or write only the container's real procfs file; host files unchanged.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attack-lib.bash"

case_control_sysctl_applies() {
  local b
  b=$(new_bundle b cat /proc/sys/kernel/domainname /proc/sys/net/ipv4/ip_forward)
  cfg "$b" '.linux.sysctl = {"kernel.domainname": "attack-ctl.example", "net.ipv4.ip_forward": "1"}'
  run_in "$b"
  assert_rc 0
  # runc 1.1.5 has no domainname support but still writes the sysctl
  assert_eq $'attack-ctl.example\n1' "$OUT" "sysctls applied inside"
}

case_sysctl_traversal_keys() {
  local b key host=$CASEDIR/host-file keys
  echo original >"$host"
  b=$(new_bundle b true)
  assert_control_runs "$b"
  keys=("kernel/../../../../..$host" "kernel.......$(tr / . <<<"$host")" "../../..$host" "/..$host"
        "net/ipv4/../../../../..$host" "kernel/../../self/oom_score_adj" "net.ipv4.conf.all/../../../../../../..$host")
  for key in "${keys[@]}"; do
    cfg "$b" '.linux.sysctl = {($k): "pwned"}' --arg k "$key"
    run_in "$b"
    echo "sysctl '$key': exit $RC: ${ERR:0:200}"
    [ "$RC" != 0 ] || fail "sysctl key '$key' accepted"
    assert_eq original "$(<"$host")" "host file after sysctl '$key'"
  done
}

case_bind_host_file_over_sysctl() {
  local b host=$CASEDIR/host-domainname
  echo original >"$host"
  b=$(new_bundle b cat /proc/sys/kernel/domainname)
  cfg "$b" '.mounts += [{"destination": "/proc/sys/kernel/domainname", "type": "bind", "source": $s, "options": ["bind"]}]
            | .linux.sysctl = {"kernel.domainname": "pwned.example"}' --arg s "$host"
  run_in "$b"
  echo "exit $RC: $OUT ${ERR:0:200}"
  assert_eq original "$(<"$host")" "host file bound over /proc/sys/kernel/domainname"
  [ "$RC" != 0 ] || assert_eq pwned.example "$OUT" "the sysctl went to the real procfs file"
}

case_bind_host_procfs_file_over_ns_last_pid() {
  local b sp before
  sleep 120 &
  sp=$!
  before=$(<"/proc/$sp/oom_score_adj")
  b=$(new_bundle b true)
  cfg "$b" '.mounts += [{"destination": "/proc/sys/kernel/ns_last_pid", "type": "bind", "source": $s, "options": ["bind"]}]
            | .linux.sysctl = {"kernel.ns_last_pid": "999"}' --arg s "/proc/$sp/oom_score_adj"
  run_in "$b"
  echo "exit $RC: ${ERR:0:200}"
  local after
  after=$(<"/proc/$sp/oom_score_adj")
  kill "$sp" 2>/dev/null || true
  wait "$sp" 2>/dev/null || true
  assert_eq "$before" "$after" "a host process's oom_score_adj (bound over ns_last_pid)"
}

case_host_proc_bound_on_proc() {
  # the host's /proc bound onto the container's /proc (a procfs, so a runtime may accept it):
  # namespaced sysctls and oom_score_adj must still only affect the container
  local b host_dn host_adj
  host_dn=$(cat /proc/sys/kernel/domainname)
  host_adj=$(cat /proc/self/oom_score_adj)
  b=$(new_bundle b sh -c 'cat /proc/sys/kernel/domainname; true')
  cfg "$b" '.mounts |= map(if .destination == "/proc" then {"destination": "/proc", "type": "bind", "source": "/proc", "options": ["rbind"]} else . end)
            | .linux.sysctl = {"kernel.domainname": "pwned.example"} | .process.oomScoreAdj = 500
            | .linux.maskedPaths = [] | .linux.readonlyPaths = []'
  run_in "$b"
  echo "exit $RC: $OUT ${ERR:0:200}"
  assert_eq "$host_dn" "$(cat /proc/sys/kernel/domainname)" "host domainname"
  assert_eq "$host_adj" "$(cat /proc/self/oom_score_adj)" "the caller's oom_score_adj"
  assert_eq "$host_adj" "$(cat /proc/1/oom_score_adj)" "pid 1's oom_score_adj"
}

case_oom_score_adj_exec() {
  # exec writes oom_score_adj in the container's /proc: only its own process changes
  local b id out
  b=$(new_bundle b sleep 600)
  cfg "$b" '.process.oomScoreAdj = 300'
  id=$(newid ex)
  start_detached "$b" "$id"
  _run_cmd rt exec "$id" cat /proc/self/oom_score_adj
  out=$CMD_OUT
  echo "exec'd process oom_score_adj: $out"
  assert_eq 300 "$out" "exec'd process"
  assert_eq 0 "$(cat /proc/$$/oom_score_adj)" "the suite's oom_score_adj"
}

tcase "control: namespaced sysctls apply inside" case_control_sysctl_applies
tcase "sysctl keys with .. or / cannot reach a host file" case_sysctl_traversal_keys
tcase "host file bound over /proc/sys/kernel/domainname: sysctl never writes it" case_bind_host_file_over_sysctl
tcase "host procfs file bound over kernel/ns_last_pid: never written" case_bind_host_procfs_file_over_ns_last_pid
tcase "host /proc bound on /proc: sysctl and oom_score_adj stay in the container" case_host_proc_bound_on_proc
tcase "exec's oom_score_adj write lands on the exec'd process only" case_oom_score_adj_exec
finish
