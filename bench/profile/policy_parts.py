#!/usr/bin/python3
"""bench/profile/policy_parts.py BINARY [POLICY]: what each bound of a policy costs a `run`.

Runs `run /bin/true` with no policy, under POLICY (default policies/harsh.json), and under POLICY
with one part taken out at a time (a section, or a group of sections that make one mechanism),
interleaved round by round with the harness of bench/bench.py (own --root, cpuacct CPU). Prints a
markdown table: each variant's CPU median and what removing the part saved against the full policy.
Environment: AB_ROUNDS (default 20). Run as root; it enters its own private mount namespace.
"""
import json
import os
import sys
import shutil
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import bench  # noqa: E402

bench.enter_private_mount_ns(__file__)

ROUNDS = int(os.environ.get("AB_ROUNDS", "20"))

# A part: its name and the top-level keys it removes (or, for identity.uid, replaces).
PARTS = [
    ("landlock (files, ports, scope)", ["files", "ports", "scope"]),
    ("exec allowlist", ["exec"]),
    ("syscalls (seccomp)", ["syscalls"]),
    ("ephemeral uid", ["identity.uid"]),
    ("wall clock (watchdog)", ["wallClock"]),
    ("memory, cpu, pids", ["memory", "cpu", "pids"]),
    ("mounts", ["mounts"]),
    ("devices", ["devices"]),
    ("namespaces, network", ["namespaces", "network"]),
]


def without(policy, keys):
    p = json.loads(json.dumps(policy))
    for k in keys:
        if k == "identity.uid":
            p.get("identity", {})["uid"] = 1000
        elif k == "exec" and "files" in p:  # the pinned binary still needs Landlock's execute
            p.pop(k)
            p["files"]["/bin/busybox"] = ["execute", "read_file"]
        else:
            p.pop(k, None)
    return p


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    src = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                               "policies", "harsh.json")
    with open(src) as f:
        policy = json.load(f)
    policy.pop("$schema", None)
    tmp = tempfile.mkdtemp(prefix="sharness-parts.")
    try:
        measure(binary, policy, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure(binary, policy, tmp):
    variants = [("plain", None), ("full policy", policy), ("an empty policy", {"id": "empty", "version": 1})] + [(n, without(policy, k)) for n, k in PARTS]
    files = {}
    for i, (name, p) in enumerate(variants):
        if p is not None:
            files[name] = os.path.join(tmp, f"v{i}.json")
            with open(files[name], "w") as f:
                json.dump(p, f)
    rt = bench.Runtime("sharness", binary, "s")
    with bench.session([rt]) as b:
        for r in range(-2, ROUNDS):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for name, _ in order:
                cid = b.newid(rt, "p")
                bd = b.bundle(cid, ["/bin/true"])
                b.run_and_record(rt, name, cid, bd, r, policy=files.get(name))
                bench.reap()
    rep = bench.Report(b)
    full = rep.get("full policy", "sharness", "cpu_ms")
    print("| variant | run CPU (ms) | saved against the full policy (ms) |")
    print("| --- | ---: | ---: |")
    for name, _ in variants:
        st = rep.get(name, "sharness", "cpu_ms")
        if not st:
            print(f"| {name} | failed | |")
            continue
        fixed = ("plain", "full policy", "an empty policy")
        saved = f"{full['median'] - st['median']:.2f}" if full and name not in fixed else ""
        label = name if name in fixed else f"without {name}"
        print(f"| {label} | {bench.fmt_ms(st)} | {saved} |")


if __name__ == "__main__":
    main()
