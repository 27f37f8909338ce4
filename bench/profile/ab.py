#!/usr/bin/python3
"""bench/profile/ab.py NAME=BINARY... : A/B several builds of a runtime, interleaved, with the
harness of bench/bench.py (same bundle, own --root each, cpuacct CPU, wall, ru_maxrss).

  bench/profile/ab.py as-built=/tmp/x/as-built no-crypto=/tmp/x/no-crypto crun=/usr/bin/crun \
      crun-1.21=/var/cache/sharness-bench/crun-trixie

A value that is a directory is one bench/crun-trixie.sh filled (run through its own loader).

Measures per binary: `run` of /bin/true, and `state` of an id that does not exist (the cost of
starting the binary and failing: exec, dynamic loading, static initialisers, argument parsing).
With AB_POLICY=FILE, also `run` under `--policy FILE` (binaries not named crun or runc).
Prints a markdown table. Environment: AB_ROUNDS (default 30). A `run`'s CPU counts until nothing it
left behind is alive (bench.Bench.measure's settle). Run as root; it enters its own private mount
namespace like bench/run.sh.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import bench  # noqa: E402

bench.enter_private_mount_ns(__file__)

ROUNDS = int(os.environ.get("AB_ROUNDS", "30"))
POLICY = os.environ.get("AB_POLICY")


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
                b.run_and_record(rt, "run /bin/true", cid, bd, r)
                if POLICY and not rt.name.startswith(("crun", "runc")):
                    cid = b.newid(rt, "pol")
                    bd = b.bundle(cid, ["/bin/true"])
                    b.run_and_record(rt, "run under policy", cid, bd, r, policy=POLICY)
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
