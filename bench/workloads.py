"""bench/workloads.py: the rows of policy learn and the workload profiles (docs/learn.md).

  - `policy learn` (a run recorded through seccomp user notification) against our plain `run`, on
    the bench's busybox bundle, /bin/true, no --from: the cost of recording, in alternating pairs;
  - Python's start (`python3 -c pass`, Debian 12's python3 from scripts/rootfs.sh workloads) under
    our runtime with the shipped python3 profile (pinned from that image) against plain crun (each
    crun the bench has), interleaved. DESIGN.md §8: at most 1.2 × (CPU).

Both use bench.py's measure (CPU charged to the run's cgroup parent, children included).
"""
import json
import os
import subprocess

PY_TARGET = 1.2
LEARN = "run in learning mode (policy learn)"
LEARN_PAIR = "run, plain (learning pair)"
PY_OP = "python3 -c pass"
PY_POLICY_OP = "python3 -c pass, under the python3 profile"
PY_PLAIN_OP = "python3 -c pass, ours without a policy"
PY_LEARN_OP = "python3 -c pass, recorded (policy learn)"


def sec_learn(b, rounds, warm):
    rt = b.ours
    if rt.broken:
        return
    out = os.path.join(b.tmp, "learned.json")
    for r in range(-warm, rounds):
        for learn in ([False, True] if r % 2 == 0 else [True, False]):
            cid = b.newid(rt, "learn")
            bundle = b.bundle(cid, ["/bin/true"])
            argv = rt.cmd("policy", "learn", "--bundle", bundle, "--out", out) if learn else rt.cmd("run", "--bundle", bundle, cid)
            b.measure_round(rt, LEARN if learn else LEARN_PAIR, argv, cid, r)


def sec_python(b, repo, rounds, warm, first_line, log):
    try:
        wl = subprocess.run([os.path.join(repo, "scripts", "rootfs.sh"), "workloads"], check=True,
                            stdout=subprocess.PIPE, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        for rt in b.rts:
            rt.na[PY_OP] = f"no python image (scripts/rootfs.sh workloads): {e}"
        return
    policy = os.path.join(b.tmp, "python3.json")
    p = subprocess.run(b.ours.loader + [b.ours.path, "policy", "pin", "--rootfs", wl,
                        os.path.join(repo, "policies", "python3.json"), "--out", policy],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        b.ours.na[PY_POLICY_OP] = first_line(p.stdout)
        log(f"python3 profile: {p.stdout}")
        return
    rts = [rt for rt in b.rts if rt is b.ours or rt.name.startswith("crun")]
    for r in range(-warm, rounds):
        for rt in b.rotate(r, rts):
            cid = b.newid(rt, "py")
            bundle = b.bundle(cid, ["python3", "-c", "pass"])
            cfg = os.path.join(bundle, "config.json")
            with open(cfg) as f:
                c = json.load(f)
            c["root"] = {"path": wl, "readonly": True}  # the image is shared: never written
            with open(cfg, "w") as f:
                json.dump(c, f)
            ours = rt is b.ours
            runs = [(PY_POLICY_OP, rt.cmd("run", "--bundle", bundle, cid, policy=policy))] if ours else \
                [(PY_OP, rt.cmd("run", "--bundle", bundle, cid))]
            if ours:  # the cost of recording a real interpreter, beside the same run unrecorded
                runs += [(PY_PLAIN_OP, rt.cmd("run", "--bundle", bundle, cid)),
                         (PY_LEARN_OP, rt.cmd("policy", "learn", "--bundle", bundle, "--out", policy + ".learned"))]
            for op, argv in runs:
                b.measure_round(rt, op, argv, cid, r)


def targets(rep):
    """Rows for the targets table: (target, measured, verdict)."""
    rows = []
    lm, pm = rep.get(LEARN, "sharness", "cpu_ms"), rep.get(LEARN_PAIR, "sharness", "cpu_ms")
    if lm and pm:
        rows.append(("`policy learn` against our plain `run` (CPU; no target: the cost of recording)",
                     f"{lm['median']:.2f} ms vs {pm['median']:.2f} ms: {lm['median'] / pm['median']:.2f}×", "measured"))
    ll, lp = rep.get(PY_LEARN_OP, "sharness", "cpu_ms"), rep.get(PY_PLAIN_OP, "sharness", "cpu_ms")
    if ll and lp:
        rows.append(("`policy learn` of `python3 -c pass` against our plain `run` of it (CPU; no target)",
                     f"{ll['median']:.2f} ms vs {lp['median']:.2f} ms: {ll['median'] / lp['median']:.2f}×", "measured"))
    o = rep.get(PY_POLICY_OP, "sharness", "cpu_ms")
    for rt in rep.b.rts:
        if not rt.name.startswith("crun"):
            continue
        c = rep.get(PY_OP, rt.name, "cpu_ms")
        if o and c:
            v = o["median"] / c["median"]
            rows.append((f"Python's start under the python3 profile ≤ {PY_TARGET} × under plain {rt.name} (CPU)",
                         f"{o['median']:.2f} ms vs {c['median']:.2f} ms: {v:.2f}×",
                         "met" if v <= PY_TARGET else f"**missed** by {o['median'] - PY_TARGET * c['median']:.2f} ms"))
        else:
            rows.append((f"Python's start under the python3 profile ≤ {PY_TARGET} × under plain {rt.name}",
                         rep.why_na(PY_POLICY_OP, "sharness") or rep.why_na(PY_OP, rt.name), "not measured"))
    return rows


def section(rep, w):
    names = [rt.name for rt in rep.b.rts if rt is rep.b.ours or rt.name.startswith("crun")]
    w("## policy learn and the python3 profile (docs/learn.md)")
    w("")
    w("| | " + " | ".join(names) + " |")
    w("| --- |" + " ---: |" * len(names))
    for op in (LEARN_PAIR, LEARN, PY_PLAIN_OP, PY_LEARN_OP, PY_POLICY_OP, PY_OP):
        cells = [rep.cell(op, n, "cpu_ms") if rep.get(op, n, "cpu_ms") else "—" for n in names]
        w(f"| {op} (CPU ms) | " + " | ".join(cells) + " |")
    w("")
    w("`policy learn` runs /bin/true recorded (every syscall a round trip to the recorder, then the pids "
      "peak, the pins hashed, the policy written) in pairs with a plain `run`, alternating which goes "
      "first. Python: `python3 -c pass` on Debian 12's python3 image (read-only root), ours under the "
      "shipped python3 profile pinned from that image, crun with no policy, interleaved.")
    w("")
