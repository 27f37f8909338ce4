#!/usr/bin/python3
"""bench/profile/ab.py NAME=BINARY... : A/B several builds of a runtime, interleaved, with the
harness of bench/bench.py (same bundle, own --root each, cpuacct CPU, wall, ru_maxrss).

  bench/profile/ab.py as-built=/tmp/x/as-built no-crypto=/tmp/x/no-crypto crun=/usr/bin/crun \
      crun-1.21=/var/cache/sharness-bench/crun-trixie

A value that is a directory is one bench/crun-trixie.sh filled (run through its own loader).

Measures per binary: `run` of /bin/true, and `state` of an id that does not exist (the cost of
starting the binary and failing: exec, dynamic loading, static initialisers, argument parsing).
With AB_POLICY=FILE, also `run` under `--policy FILE` (binaries not named crun or runc).
Prints a markdown table. Environment: AB_ROUNDS (default 30); AB_SETTLE=1: a `run`'s CPU is read
only once nothing it left behind is alive in the CLI cgroup (a forked denials reader drains 300 ms
after the container's init exits, the watchdog dies with it), so what it does after `run`
returns counts for that run, not for whichever command is measured next. Run as root; it enters
its own private mount namespace like bench/run.sh.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import bench  # noqa: E402

bench.enter_private_mount_ns(__file__)

ROUNDS = int(os.environ.get("AB_ROUNDS", "30"))
POLICY = os.environ.get("AB_POLICY")
SETTLE = os.environ.get("AB_SETTLE") == "1"


def cgroup_cpu_ns(d):
    """CPU of everything in cgroup d and below: v1 cpuacct.usage, else v2 cpu.stat usage_usec."""
    try:
        return int(open(os.path.join(d, "cpuacct.usage")).read())
    except FileNotFoundError:
        for line in open(os.path.join(d, "cpu.stat")):
            k, v = line.split()
            if k == "usage_usec":
                return int(v) * 1000
    raise RuntimeError(f"no CPU accounting in {d}")


def settle(d, secs=3.0):
    """Until no process is left in cgroup d (at most secs)."""
    end = time.monotonic() + secs
    while open(os.path.join(d, "cgroup.procs")).read().strip():
        if time.monotonic() > end:
            raise RuntimeError(f"processes still in {d} after {secs} s")
        time.sleep(0.005)


def run_and_record(b, rt, op, cid, bd, r, policy=None):
    """b.run_and_record, with AB_SETTLE the CPU counted until the run's leftovers are gone."""
    if not SETTLE or not b.acct:  # no cgroup to count in: measure's own rusage, as without it
        return b.run_and_record(rt, op, cid, bd, r, policy=policy)
    settle(b.join)
    before = cgroup_cpu_ns(b.acct)
    m = b.run_and_record(rt, op, cid, bd, -1, policy=policy)
    settle(b.join)
    m["cpu_ms"] = (cgroup_cpu_ns(b.acct) - before) / 1e6
    if m["rc"] == 0 and r >= 0:
        b.record(op, rt, m)
    return m


def main():
    pairs = [a.split("=", 1) for a in sys.argv[1:]]
    if not pairs or any(len(p) != 2 for p in pairs):
        sys.exit(__doc__)
    rts = [bench.runtime_arg(i, a) for i, a in enumerate(sys.argv[1:])]
    with bench.session(rts) as b:
        print(f"probe: {b.probe()}", file=sys.stderr)
        for r in range(-2, ROUNDS):
            for rt in b.rotate(r):
                cid = b.newid(rt, "run")
                bd = b.bundle(cid, ["/bin/true"])
                run_and_record(b, rt, "run /bin/true", cid, bd, r)
                if POLICY and not rt.name.startswith(("crun", "runc")):
                    cid = b.newid(rt, "pol")
                    bd = b.bundle(cid, ["/bin/true"])
                    run_and_record(b, rt, "run under policy", cid, bd, r, policy=POLICY)
                m = b.measure(rt.cmd("state", "no-such-container"))
                if r >= 0:
                    b.record("state (unknown id)", rt, m)
                bench.reap()
    rep = bench.Report(b)
    first = b.rts[0].name
    pol = " run under policy CPU (ms) | policy/plain CPU |" if POLICY else ""
    print(f"| binary | run CPU (ms) | run wall (ms) | run peak RSS (MiB) | start-and-fail CPU (ms) "
          f"| start-and-fail wall (ms) | run CPU vs {first} |{pol}")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: |" if POLICY else ""))
    base = rep.get("run /bin/true", first, "cpu_ms")
    for rt in b.rts:
        g = lambda op, k: rep.get(op, rt.name, k)  # noqa: E731
        rss = g("run /bin/true", "rss_kb")
        print(f"| {rt.name} | {bench.fmt_ms(g('run /bin/true', 'cpu_ms'))} | "
              f"{bench.fmt_ms(g('run /bin/true', 'wall_ms'))} | "
              f"{rss['median'] / 1024:.2f} | " if rss else f"| {rt.name} | n/a | n/a | n/a | ", end="")
        print(f"{bench.fmt_ms(g('state (unknown id)', 'cpu_ms'))} | "
              f"{bench.fmt_ms(g('state (unknown id)', 'wall_ms'))} | "
              f"{bench.ratio(g('run /bin/true', 'cpu_ms'), base)} |", end="")
        if POLICY:
            p = g("run under policy", "cpu_ms")
            print(f" {bench.fmt_ms(p) if p else 'n/a'} | {bench.ratio(p, g('run /bin/true', 'cpu_ms'))} |", end="")
        print()


if __name__ == "__main__":
    main()
