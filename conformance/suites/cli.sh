#!/usr/bin/env bash
# The command line as users and clients meet it: every flag a command's parser takes (found by
# passing it each flag a runc-compatible runtime might take, and seeing which it does not refuse
# as undefined) is listed in `CMD --help` and in the command's man page; the pages render without
# warnings; and the bash completion script completes a command, a flag, a flag's value and a
# container id (from `list -q` in the --root given on the line).
#
# Runtime-agnostic: the commands come from `RT --help`, the man pages are `RT __man CMD` for ours
# and the installed RT-CMD(8) for another runtime, the completion script ours or the installed
# /usr/share/bash-completion/completions/RT.
. "$(dirname "$0")/../lib.sh"

# What a parser says of a flag it does not have: runc's and ours (Go's flag package), crun's.
UNDEFINED='provided but not defined|unrecognized option|invalid option'

if ! command -v man >/dev/null 2>&1 || ! command -v groff >/dev/null 2>&1; then
  echo "# man or groff is missing: installing man-db (apt-get install -y man-db)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq man-db groff-base >/dev/null ||
    { echo "cannot install man-db" >&2; exit 1; }
fi

# The commands `RT --help` lists (runc's format: "   name[, alias]  summary" under COMMANDS:).
COMMANDS=$("$RUNTIME" --help | awk '/^COMMANDS:/ {on = 1; next} on && /^[^ ]/ {on = 0} on && NF {sub(",", "", $1); print $1}')
[ -n "$COMMANDS" ] || { echo "FAIL: $RUNTIME --help lists no commands" >&2; exit 1; }

# help_flags TEXT: every --long and -x flag TEXT names.
help_flags() {
  grep -oE '(^|[ ,[(])--?[A-Za-z0-9][A-Za-z0-9-]*' <<<"$1" | sed -E 's/^[ ,[(]//' | sort -u
}

# Every flag any command's help names, runc's and crun's (so another runtime is asked about
# ours), and every single letter.
candidates() {
  local c
  {
    help_flags "$("$RUNTIME" --help 2>&1)"
    for c in $COMMANDS; do help_flags "$("$RUNTIME" "$c" --help 2>&1 || true)"; done
    printf -- '--%s\n' bundle console-socket pid-file no-pivot no-new-keyring preserve-fds detach keep force all \
      format quiet rootless process tty cwd env user additional-gids cap no-new-privs cgroup ignore-paused \
      process-label apparmor resources memory memory-reservation memory-swap kernel-memory kernel-memory-tcp \
      cpu-share cpu-shares cpu-period cpu-quota cpu-rt-period cpu-rt-runtime cpuset-cpus cpuset-mems pids-limit \
      blkio-weight l3-cache-schema mem-bw-schema stats interval image-path work-path parent-path leave-running \
      tcp-established ext-unix-sk shell-job lazy-pages page-server file-locks pre-dump manage-cgroups-mode \
      empty-ns auto-dedup no-subreaper policy wall-clock rootfs out kek dir role name seconds backdate owner \
      init root log log-format debug systemd-cgroup criu config version
    printf -- '-%s\n' {a..z} {A..Z}
  } | grep -vxE -- '--?(help|h)' | sort -u
}

CANDIDATES=$TMP/candidates
candidates >"$CANDIDATES"

# call CMD FLAG: CMD with FLAG=v and arguments that make it fail after parsing (an id that names
# no container, a subcommand that reads a file that is not there). Sets CALL_OUT.
call() {
  local cmd=$1 flag=$2 pre=()
  case $cmd in
    policy) pre=(check) ;;
    kms) pre=(seal) ;;
  esac
  CALL_OUT=$(cd "$CASEDIR/cwd" && rt "$cmd" "${pre[@]}" "$flag=v" no-such-container-$$ 2>&1 </dev/null) || true
  rm -f "$CASEDIR/cwd/config.json"
}

# man_text CMD: the command's man page rendered as text (CMD "" for the runtime's own page);
# fails on groff warnings.
man_text() {
  local cmd=$1 page src
  page=$RUNTIME_NAME${cmd:+-$cmd}
  if [ "$OURS" = 1 ]; then
    src=$CASEDIR/$page.8
    "$RUNTIME" __man $cmd >"$src"
  else
    src=$(man -w "$page" 2>/dev/null) || { fail "no man page $page"; return 1; }
  fi
  local warn
  warn=$( (zcat -f "$src" | groff -man -Tascii -ww -z) 2>&1) || true
  [ -z "$warn" ] || { fail "groff warns on $page: $warn"; return 1; }
  LC_ALL=C MANWIDTH=160 man -l "$src" 2>/dev/null | col -b
}

# has_flag TEXT FLAG: FLAG stands in TEXT as a word of its own.
has_flag() {
  grep -qE -- "(^|[ ,[(])$2([ ,=\"')]|$)" <<<"$1"
}

# One case per command: what its parser takes, its help and its man page list.
case_flags_documented() {
  local cmd=$CMD flag help man taken=0
  mkdir -p "$CASEDIR/cwd"
  help=$(rt "$cmd" --help 2>&1) || help=$(rt help "$cmd" 2>&1) || fail "$cmd --help failed: $help"
  man=$(man_text "$cmd")
  assert_contains "$man" "$cmd" "$cmd's man page"
  # The control: a word no runtime defines is refused as undefined, so "taken" means something;
  # a command that is not supported refuses everything before it parses a flag.
  call "$cmd" --no-such-flag-$$
  if ! grep -qE "$UNDEFINED" <<<"$CALL_OUT"; then
    assert_match "$CALL_OUT" "not supported" "$cmd --no-such-flag: neither undefined nor unsupported"
    echo "$cmd is not supported: it parses no flag"
    return 0
  fi
  while read -r flag; do
    call "$cmd" "$flag"
    if grep -qE "$UNDEFINED" <<<"$CALL_OUT"; then continue; fi
    taken=$((taken + 1))
    has_flag "$help" "$flag" || fail "$cmd takes $flag (said: ${CALL_OUT:0:120}) but $cmd --help does not list it"
    has_flag "$man" "$flag" || fail "$cmd takes $flag but its man page does not list it"
  done <"$CANDIDATES"
  echo "$cmd takes $taken of the candidate flags"
}

case_global_flags_documented() {
  local flag help man out taken=0
  mkdir -p "$CASEDIR/cwd"
  help=$("$RUNTIME" --help 2>&1)
  man=$(man_text "")
  while read -r flag; do
    # Ends at `list` in an empty root: a value that names a file lands in the case's dir.
    out=$(cd "$CASEDIR/cwd" && rt_raw --root "$STATE" "$flag=v" list 2>&1 </dev/null) || true
    if grep -qE "$UNDEFINED" <<<"$out"; then continue; fi
    taken=$((taken + 1))
    has_flag "$help" "$flag" || fail "the global $flag is taken (said: ${out:0:120}) but --help does not list it"
    has_flag "$man" "$flag" || fail "the global $flag is taken but the man page does not list it"
  done <"$CANDIDATES"
  echo "$taken global flags taken"
  [ "$taken" -ge 5 ] || fail "only $taken global flags taken: the probe is broken"
}

# `help CMD` is `CMD --help`, and so is -h; exec's -h after the container id is the command's.
case_help_forms() {
  local a b
  a=$(rt exec --help); b=$(rt help exec)
  assert_eq "$a" "$b" "help exec"
  b=$(rt exec -h)
  assert_eq "$a" "$b" "exec -h"
  assert_line "$a" '--process' "exec --help lists --process"
  # Every exec flag on one line with its help (runc's and crun's layout: flag, then text).
  while read -r flag; do
    assert_line "$a" "^ +(-[a-z], )?$flag( [^ ]+)? +[a-zA-Z(]" "$flag on one line with its help"
  done < <(help_flags "$a" | grep -- '^--')
}

# The completion script: a command, a flag, a flag value and a container id from the --root on
# the line (and not one from another root).
case_completion() {
  local script fn id
  if [ "$OURS" = 1 ]; then
    script=$CASEDIR/completion
    "$RUNTIME" __completion >"$script"
  else
    script=/usr/share/bash-completion/completions/$RUNTIME_NAME
    [ -r "$script" ] || { fail "no bash completion script for $RUNTIME_NAME"; return 1; }
  fi
  new_bundle b sleep 100 >/dev/null
  id=$(newid cpl)
  must_create "$B" "$id"
  # complete WORDS...: COMPREPLY (one a line) for the last word, as bash-completion calls it.
  complete_words() {
    bash --norc --noprofile -c '
      . "$1" || exit 1
      fn=$(complete -p "$2" | sed -nE "s/.*-F ([^ ]+) .*/\1/p")
      [ -n "$fn" ] || { echo "no completion function for $2" >&2; exit 1; }
      shift 2
      COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
      COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
      "$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
      printf "%s\n" "${COMPREPLY[@]}"' _ "$script" "$RUNTIME_NAME" "$@"
  }
  # The script runs COMP_WORDS[0] for the ids: our binary by its path, in a PATH of its own.
  local bin=$RUNTIME out
  out=$(complete_words "$bin" "")
  assert_line "$out" '^exec$' "commands"
  assert_line "$out" '^kill$' "commands"
  out=$(complete_words "$bin" ex)
  assert_eq exec "$out" "a command from its start"
  out=$(complete_words "$bin" exec --pid)
  assert_line "$out" '^--pid-file$' "an exec flag"
  out=$(complete_words "$bin" exec --)
  assert_line "$out" '^--console-socket$' "exec flags"
  assert_line "$out" '^--preserve-fds$' "exec flags"
  out=$(complete_words "$bin" list --format "")
  assert_line "$out" '^json$' "list --format's values"
  out=$(complete_words "$bin" --root "$STATE" kill "")
  assert_line "$out" "^$id\$" "a container id in --root $STATE"
  out=$(complete_words "$bin" "--root=$STATE" exec --tty "")
  assert_line "$out" "^$id\$" "a container id in --root=$STATE, after a flag"
  out=$(complete_words "$bin" --root "$STATE" kill "$id" "")
  assert_line "$out" '^KILL$' "kill's signal"
  # The control: another root does not have it.
  mkdir -p "$CASEDIR/other-root"
  out=$(complete_words "$bin" --root "$CASEDIR/other-root" kill "")
  assert_not_contains "$out" "$id" "ids of another root"
}

for CMD in $COMMANDS; do
  [ "$CMD" = help ] && continue
  tcase "$CMD: every flag its parser takes is in its --help and man page" case_flags_documented
done
tcase "global: every flag the parser takes is in --help and the man page" case_global_flags_documented
[ "$OURS" = 1 ] && tcase "help exec, exec --help and exec -h agree; one line per flag" case_help_forms
tcase "bash completion: a command, a flag, a value and a container id from --root" case_completion
finish
