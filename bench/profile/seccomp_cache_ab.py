#!/usr/bin/python3
"""bench/profile/seccomp_cache_ab.py BINARY [PROFILE]: what the compiled-seccomp cache saves a `run`.

Runs `run /bin/true` with the cache on (default) and off (a runtime config with
"seccompCache": false), for: a bundle whose config.json carries a Docker-like default profile
(PROFILE, default /usr/share/containers/seccomp.json, converted as Docker does for amd64 with
Docker's default capabilities: ~350 syscalls, argument conditions, 3 architectures), the harsh
policy (policies/harsh.json, ~120-rule allowlist), and no seccomp at all. Interleaved round by
round with the harness of bench/bench.py (own --root, cpuacct CPU). Prints a markdown table.
Environment: AB_ROUNDS (default 30). Run as root; it enters its own private mount namespace.
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import bench  # noqa: E402

bench.enter_private_mount_ns(__file__)
from docker_seccomp import to_oci  # noqa: E402

ROUNDS = int(os.environ.get("AB_ROUNDS", "30"))
class ConfigRuntime(bench.Runtime):
    """Our binary with --config FILE before every command."""

    def __init__(self, name, path, tag, config):
        super().__init__(name, path, tag)
        self.config = config

    def cmd(self, *args, policy=None):
        c = super().cmd(*args, policy=policy)
        return [c[0], "--config", self.config] + c[1:]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    src = sys.argv[2] if len(sys.argv) == 3 else "/usr/share/containers/seccomp.json"
    with open(src) as f:
        docker = to_oci(json.load(f))
    print(f"profile: {sum(len(s['names']) for s in docker['syscalls'])} names in {len(docker['syscalls'])} rules, "
          f"{len(docker['architectures'])} architectures", file=sys.stderr)
    harsh = os.path.join(os.path.dirname(os.path.dirname(HERE)), "policies", "harsh.json")
    with open(harsh) as f:
        policy = json.load(f)
    policy.pop("$schema", None)
    tmp = tempfile.mkdtemp(prefix="sharness-seccache.")
    pfile = os.path.join(tmp, "harsh.json")
    with open(pfile, "w") as f:
        json.dump(policy, f)
    confs = {}
    for name, on in (("on", True), ("off", False)):
        confs[name] = os.path.join(tmp, f"cache-{name}.json")
        with open(confs[name], "w") as f:
            json.dump({"seccompCache": on}, f)
    rts = [ConfigRuntime("cache-on", binary, "on", confs["on"]),
           ConfigRuntime("cache-off", binary, "off", confs["off"])]
    # (label, seccomp section in config.json, policy file)
    cases = [("docker default profile", docker, None), ("harsh policy", None, pfile), ("no seccomp", None, None)]
    with bench.session(rts) as b:
        for r in range(-2, ROUNDS):
            for rt in b.rotate(r):
                for label, sec, pol in cases:
                    cid = b.newid(rt, "s")
                    bd = b.bundle(cid, ["/bin/true"])
                    if sec is not None:
                        cf = os.path.join(bd, "config.json")
                        with open(cf) as f:
                            c = json.load(f)
                        c["linux"]["seccomp"] = sec
                        with open(cf, "w") as f:
                            json.dump(c, f)
                    b.run_and_record(rt, label, cid, bd, r, policy=pol)
                    bench.reap()
    rep = bench.Report(b)
    print("| run /bin/true | cache on CPU (ms) | cache off CPU (ms) | saved CPU (ms) | cache on wall (ms) | cache off wall (ms) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, _, _ in cases:
        on, off = rep.get(label, "cache-on", "cpu_ms"), rep.get(label, "cache-off", "cpu_ms")
        won, woff = rep.get(label, "cache-on", "wall_ms"), rep.get(label, "cache-off", "wall_ms")
        if not (on and off and won and woff):
            print(f"| {label} | failed | | | | |")
            continue
        print(f"| {label} | {bench.fmt_ms(on)} | {bench.fmt_ms(off)} | {off['median'] - on['median']:.2f} | "
              f"{bench.fmt_ms(won)} | {bench.fmt_ms(woff)} |")


if __name__ == "__main__":
    main()
