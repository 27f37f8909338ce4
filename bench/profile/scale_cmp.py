#!/usr/bin/python3
"""bench/profile/scale_cmp.py N NAME=BINARY... : `create` CPU and wall of several runtimes,
interleaved round by round, with nothing running, then with N `sleep` containers of the FIRST
runtime running, then with nothing running again (pooled with the first level 0). Every runtime
meets the same load at the same time, so "does ours grow more than crun under 500 containers"
is answered in one run, which latest.md's scaling table (each runtime alone, in turn) cannot.

  bench/profile/scale_cmp.py 500 ours=build/sharness-runtime crun=/usr/bin/crun crun-1.21=DIR

A value that is a directory is a bench/crun-trixie.sh directory (run through its own loader).
Environment: SCALE_ROUNDS (default 15). Prints a markdown table; deletes everything it made.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import bench  # noqa: E402

bench.enter_private_mount_ns(__file__)

ROUNDS = int(os.environ.get("SCALE_ROUNDS", "15"))


def main():
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    n = int(sys.argv[1])
    rts = [bench.runtime_arg(i, a) for i, a in enumerate(sys.argv[2:])]
    with bench.session(rts) as b:
        print(f"probe: {b.probe()}", file=sys.stderr)

        def probe(level, warm=2):
            for r in range(-warm, ROUNDS):
                for rt in b.rotate(r):
                    cid = b.newid(rt, "p")
                    m = b.measure(rt.cmd("create", "--bundle", b.bundle(cid, ["/bin/true"]), cid))
                    bench.call(rt.cmd("delete", "--force", cid))
                    bench.reap()
                    if r >= 0 and m["rc"] == 0:
                        b.record("create", rt, m, level)

        probe(0)
        bg, first = [], b.rts[0]
        t0 = time.monotonic()
        try:
            why = b.start_sleepers(first, n, bg)
            if why:
                sys.exit(why)
            print(f"({n} {first.name} containers up in {time.monotonic() - t0:.1f} s)", file=sys.stderr)
            probe(n)
        finally:
            b.teardown(first, bg)
        probe(0, warm=0)
        rep = bench.Report(b)
        print(f"| runtime | create CPU at 0 (ms) | at {n} (ms) | growth CPU | create wall at 0 | at {n} | growth wall |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for rt in b.rts:
            g = lambda k, lv: rep.get("create", rt.name, k, lv)  # noqa: E731
            c0, cn, w0, wn = g("cpu_ms", 0), g("cpu_ms", n), g("wall_ms", 0), g("wall_ms", n)
            d = lambda a, z: f"{z['median'] - a['median']:+.2f} ms ({bench.ratio(z, a)})" if a and z else "n/a"  # noqa: E731
            print(f"| {rt.name} | {bench.fmt_ms(c0)} | {bench.fmt_ms(cn)} | {d(c0, cn)} | "
                  f"{bench.fmt_ms(w0)} | {bench.fmt_ms(wn)} | {d(w0, wn)} |")


if __name__ == "__main__":
    main()
