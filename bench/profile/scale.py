#!/usr/bin/python3
"""bench/profile/scale.py RUNTIME_NAME BINARY N: `create` CPU and wall (median of 15) with no
container running and with N of this runtime's own `sleep` containers running, with the bench's
harness (private mount namespace, cpuacct CPU). Separates what a runtime's create does per
container already running from what the kernel and the other runtimes' containers add in
latest.md's scaling table. Prints two lines; deletes everything it made.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import bench  # noqa: E402

bench.enter_private_mount_ns(__file__)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    name, binary, n = sys.argv[1], os.path.abspath(sys.argv[2]), int(sys.argv[3])
    rt = bench.Runtime(name, binary, "x")
    with bench.session([rt]) as b:

        def probe(level):
            cpu, wall = [], []
            for i in range(-2, 15):
                cid = b.newid(rt, "p")
                m = b.measure(rt.cmd("create", "--bundle", b.bundle(cid, ["/bin/true"]), cid))
                bench.call(rt.cmd("delete", "--force", cid))
                bench.reap()
                if i >= 0 and m["rc"] == 0:
                    cpu.append(m["cpu_ms"])
                    wall.append(m["wall_ms"])
            c, w = bench.stats(cpu), bench.stats(wall)
            print(f"{name}, {level} running: create CPU {bench.fmt_ms(c)} ms, wall {bench.fmt_ms(w)} ms",
                  flush=True)

        probe(0)
        t0 = time.monotonic()
        why = b.start_sleepers(rt, n, [])
        if why:
            sys.exit(why)
        print(f"({n} containers up in {time.monotonic() - t0:.1f} s)", flush=True)
        probe(n)


if __name__ == "__main__":
    main()
