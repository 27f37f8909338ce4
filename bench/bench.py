#!/usr/bin/python3
"""bench/bench.py: sharness-runtime against crun and runc, interleaved, in one run.

Started by bench/run.sh inside a private mount namespace (`unshare -m --propagation private`); do
not run it directly. It measures, for every runtime on the same busybox bundle with its own --root:

  run of /bin/true (with and without a network namespace), create, start, delete, exec,
  peak RSS, our run under policies/harsh.json against our plain run, create/state/list latency
  with 0/100/500 containers already running, 10 and 50 lifecycles in parallel,

and writes bench/results/latest.md, latest.json (every sample) and latest-scaling.png.

Every measured command goes through bench/measure.c (compiled into the temp dir): wall time
around fork..wait4, the rusage of wait4, and the CPU charged to this run's cgroup parent
(cpuacct, hierarchical), which includes work the runtime does not wait for (a created
container's init). Rounds are interleaved: round r runs the runtimes in a rotated order, so
drift and noise hit every runtime alike.

Clean-up (also on failure or Ctrl-C): every container is deleted by id through its runtime, any
process left in this run's cgroups is killed by pid, the cgroup dirs are removed, nothing under
the temp dir stays mounted, the temp dir goes. /run/runc, /run/crun and /run/sharness are never
touched (every call passes --root).

Environment (all optional):
  BENCH_ROUNDS=15         measured rounds per single-operation figure (after 2 warm-up rounds)
  BENCH_LEVELS="0 100 500" containers already running, per runtime, for the scaling figures
  BENCH_SCALE_ROUNDS=8    rounds per level
  BENCH_PARALLEL="10 50"  parallel lifecycles
  BENCH_PAR_ROUNDS=3      rounds per parallel figure
  BENCH_QUICK=1           a smoke run: 3 rounds, levels 0 10, parallel 5 (figures not meaningful)
  BENCH_OUT=DIR           where to write the results (default bench/results)
  BENCH_KEEP=1            keep the temp dir (containers, cgroups and mounts are still removed)
  BENCH_STATE_ON_DISK=1   keep the --root dirs on the temp dir's file system instead of a tmpfs
  BENCH_SECTIONS="a,b"    run only the sections whose names start with these (a partial run)
"""

import argparse
import contextlib
import copy
import ctypes
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import docker_seccomp
import workloads

RO_OP = "run /bin/true, binaries on a read-only mount"
# DESIGN.md §8's targets.
CPU_TARGET = 0.75   # CPU per run, against each crun
HARSH_TARGET = 1.2  # harsh run against our plain run

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WARM = 2
T_START = time.monotonic()
LOAD_START = open("/proc/loadavg").read().split()[:3]


def env_int(name, default):
    v = os.environ.get(name)
    return int(v) if v else default


def env_list(name, default):
    v = os.environ.get(name)
    return [int(x) for x in v.split()] if v else default


QUICK = os.environ.get("BENCH_QUICK") == "1"
ROUNDS = env_int("BENCH_ROUNDS", 3 if QUICK else 15)
LEVELS = env_list("BENCH_LEVELS", [0, 10] if QUICK else [0, 100, 500])
SCALE_ROUNDS = env_int("BENCH_SCALE_ROUNDS", 3 if QUICK else 8)
PARALLEL = env_list("BENCH_PARALLEL", [5] if QUICK else [10, 50])
PAR_ROUNDS = env_int("BENCH_PAR_ROUNDS", 2 if QUICK else 3)


def env_list_str(name):
    v = os.environ.get(name, "").strip()
    return [x.strip() for x in v.split(",") if x.strip()] if v else []


def log(msg):
    print(f"[bench {time.monotonic() - T_START:6.1f}s] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Runtimes


class Runtime:
    """One runtime under test. `path` is its binary; `loader` (a list) is what runs it when it is
    not run directly: Debian 13's crun goes through its own directory's dynamic loader
    (bench/crun-trixie.sh)."""
    def __init__(self, name, path, prefix, loader=None):
        self.name, self.path, self.prefix = name, path, prefix
        self.loader = loader or []
        self.origin = path      # where it is installed (the bench runs a copy: Bench.copy_runtimes)
        self.tree = None        # crun_trixie(): the extracted tree it runs from
        self.root = None        # --root, set once the temp dir exists
        self.broken = None      # why it cannot run at all (probe failed)
        self.na = {}            # op -> why it is n/a for this runtime
        self.ids = set()        # every id this run may have created, for clean-up
        self.version = ""

    def cmd(self, *args, policy=None):
        pre = self.loader + [self.path]
        if policy:
            pre += ["--policy", policy]
        return pre + ["--root", self.root] + list(args)


def crun_trixie(name, crun_new, prefix):
    """Debian 13's crun in the directory bench/crun-trixie.sh filled, run through its own loader."""
    lib = os.path.join(crun_new, "root", "usr", "lib", "x86_64-linux-gnu")
    rt = Runtime(name, os.path.join(crun_new, "root", "usr", "bin", "crun"), prefix,
                 loader=[os.path.join(lib, "ld-linux-x86-64.so.2"), "--library-path", lib])
    rt.tree = crun_new
    return rt


def runtime_arg(i, arg):
    """NAME=PATH of the profile tools: a binary, or a bench/crun-trixie.sh directory."""
    name, path = arg.split("=", 1)
    path = os.path.abspath(path)
    return crun_trixie(name, path, f"v{i}") if os.path.isdir(path) else Runtime(name, path, f"v{i}")


class Bench:
    def __init__(self, ours, crun_new=None):
        self.rts = [Runtime("sharness", ours, "s"), Runtime("crun", "/usr/bin/crun", "c"),
                    Runtime("runc", "/usr/sbin/runc", "r")]
        if crun_new:
            self.rts.insert(2, crun_trixie("crun-1.21", crun_new, "n"))
        self.ours = self.rts[0]
        self.samples = []       # dicts: op, rt, level, wall_ms, cpu_ms, ...
        self.extra = {}         # hyperfine, perf stat, /usr/bin/time -v, ramp times, ...
        self.sections = []      # (name, seconds)
        self.counter = 0
        self.cg = f"sharness-bench-{os.getpid()}"
        self.cgroup_method = ""
        self.tmp = None

    # -- temp dir, cgroups -------------------------------------------------------------------

    def setup(self):
        self.tmp = tempfile.mkdtemp(prefix="sharness-bench.", dir=os.environ.get("TMPDIR", "/tmp"))
        os.chmod(self.tmp, 0o755)
        # The --root dirs live on a tmpfs (private to the bench's mount namespace), as the
        # runtimes' defaults (/run/runc, /run/crun, /run/sharness) do on any real host: on the
        # temp dir's own file system (ext4 here) every state-file write would cost an inode.
        state = os.path.join(self.tmp, "state")
        os.makedirs(state)
        if os.environ.get("BENCH_STATE_ON_DISK") != "1":
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m,mode=700", "sharness-bench-state",
                            state], check=True)
        for rt in self.rts:
            rt.root = os.path.join(state, rt.name)
            os.makedirs(rt.root)
        self.copy_runtimes()
        self.measure_bin = os.path.join(self.tmp, "measure")
        subprocess.run(["cc", "-O2", "-o", self.measure_bin, os.path.join(HERE, "measure.c")],
                       check=True)
        # The base bundle: a busybox rootfs shared (read-only in practice) by every container;
        # each container gets its own bundle dir holding only config.json (own cgroupsPath).
        base = os.path.join(self.tmp, "base")
        subprocess.run([os.path.join(REPO, "scripts", "make-bundle.sh"), base, "/bin/true"],
                       check=True, stdout=subprocess.DEVNULL)
        self.rootfs = os.path.join(base, "rootfs")
        with open(os.path.join(base, "config.json")) as f:
            self.template = json.load(f)
        os.makedirs(os.path.join(self.tmp, "b"))
        os.makedirs(os.path.join(self.tmp, "log"))

    def copy_runtimes(self):
        """Every runtime runs from a copy made here, written in one go as an install writes it.
        How a file was last written decides its page cache here (kernel 6.18): the linker's output,
        written piecemeal, ran `run` 0.26 ms slower than a byte-identical copy of it, and crun
        1.21's extracted directory 0.6 ms slower than a copy of the directory (bench/profile/ab.py,
        40 rounds, quiet machine). The copies put every runtime in the same state; the report names
        where each is installed."""
        d = os.path.join(self.tmp, "bin")
        for rt in self.rts:
            dst = os.path.join(d, rt.name)
            if rt.tree:  # crun_trixie(): the whole extracted tree, its loader and libraries too
                shutil.copytree(rt.tree, dst, symlinks=True)
                copy = crun_trixie(rt.name, dst, rt.prefix)
                rt.path, rt.loader, rt.tree = copy.path, copy.loader, copy.tree
                continue
            # Alone: nothing here asks ours for a helper installed next to it (sharness-kms, ...).
            os.makedirs(dst)
            rt.path = shutil.copy2(rt.path, os.path.join(dst, os.path.basename(rt.path)))

    def cgroup_mounts(self):
        """(mount point, fstype, super options) of every cgroup hierarchy this namespace sees:
        a mount that a later mount covers (the hide-unified tmpfs) is not seen."""
        lines = []
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields = line.split()
                dash = fields.index("-")
                mp = fields[4].encode().decode("unicode_escape")
                lines.append((mp, fields[dash + 1], fields[dash + 3].split(",")))
        def covered(i):
            mp = lines[i][0]
            return any(q != "/" and (mp == q or mp.startswith(q + "/")) for q, _, _ in lines[i + 1:])
        return [l for i, l in enumerate(lines) if l[1] in ("cgroup", "cgroup2") and not covered(i)]

    def hide_unified(self, method):
        """crun 1.8.1 refuses a hybrid host whose cgroup2 holds a controller (here hugetlb).
        In this private mount namespace only: 'tmpfs' mounts an empty tmpfs over
        /sys/fs/cgroup/unified (conformance/lib.sh's SHARNESS_HIDE_UNIFIED); 'replace' unmounts
        the cgroup2 mount there and then mounts the empty tmpfs, so mountinfo shows no cgroup2
        at all. Either way every runtime here sees the same pure-v1 layout and the host is
        unchanged. The tmpfs matters: crun creates its cgroup path in every directory of
        /sys/fs/cgroup, and without it those directories would land in the host's
        /sys/fs/cgroup tmpfs, under the host's cgroup2 mount."""
        u = "/sys/fs/cgroup/unified"
        if method == "replace":
            while any(mp == u for mp, _, _ in self.cgroup_mounts()) or os.path.ismount(u):
                if subprocess.run(["umount", u], stderr=subprocess.DEVNULL).returncode != 0:
                    raise RuntimeError(f"cannot unmount {u} in the bench's mount namespace")
        elif not any(mp == u and t == "cgroup2" for mp, t, _ in self.cgroup_mounts()):
            return False
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m,mode=755",
                        "sharness-bench-hide-unified", u], check=True)
        return True

    def setup_cgroups(self):
        mounts = self.cgroup_mounts()
        self.acct = self.join = None
        for mp, fstype, opts in mounts:
            if fstype == "cgroup" and "cpuacct" in opts:
                self.acct = os.path.join(mp, self.cg)
        if not self.acct:
            for mp, fstype, _ in mounts:
                if fstype == "cgroup2":
                    self.acct = os.path.join(mp, self.cg)
        if self.acct:
            self.join = os.path.join(self.acct, "cli")
            os.makedirs(self.join, exist_ok=True)
        log(f"CPU accounting in {self.acct} (runtime CLIs run in {self.join})")

    def cg_dirs(self):
        return [os.path.join(mp, self.cg) for mp, _, _ in self.cgroup_mounts()
                if os.path.isdir(os.path.join(mp, self.cg))]

    def kill_cg_procs(self):
        for d in self.cg_dirs():
            for dirpath, _, files in os.walk(d):
                if "cgroup.procs" not in files:
                    continue
                try:
                    pids = open(os.path.join(dirpath, "cgroup.procs")).read().split()
                except OSError:
                    continue
                for pid in pids:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (ProcessLookupError, ValueError):
                        pass

    def rmdir_cgroups(self):
        for _ in range(20):
            for d in self.cg_dirs():
                for dirpath, _, _ in sorted(os.walk(d), key=lambda w: -w[0].count("/")):
                    try:
                        os.rmdir(dirpath)
                    except OSError:
                        pass
            if not self.cg_dirs():
                return
            self.kill_cg_procs()
            reap()
            time.sleep(0.1)
        log(f"warning: cgroup dirs left: {self.cg_dirs()}")

    def cleanup(self):
        log("cleaning up: deleting every container, cgroup and mount of this run")
        for rt in self.rts:
            if not rt.root:
                continue
            ids = set(rt.ids)
            r = call(rt.cmd("list", "-q"))
            if r[0] == 0:
                ids |= set(r[1].split())
            for cid in sorted(ids):
                if os.path.isdir(os.path.join(rt.root, cid)) or cid in r[1].split():
                    call(rt.cmd("delete", "--force", cid))
            reap()
        self.kill_cg_procs()
        reap()
        self.rmdir_cgroups()
        if self.tmp:
            with open("/proc/self/mountinfo") as f:
                mps = [l.split()[4] for l in f if l.split()[4].startswith(self.tmp + "/")]
            for mp in sorted(mps, reverse=True):
                subprocess.run(["umount", "-l", mp], stderr=subprocess.DEVNULL)

    def remove_tmp(self):
        if self.tmp:
            if os.environ.get("BENCH_KEEP") == "1":
                log(f"kept {self.tmp}")
            else:
                shutil.rmtree(self.tmp, ignore_errors=True)

    # -- bundles and calls -------------------------------------------------------------------

    def newid(self, rt, what):
        self.counter += 1
        cid = f"{rt.prefix}-{what}-{self.counter}"
        rt.ids.add(cid)
        return cid

    def bundle(self, cid, args, netns=True, seccomp=None):
        c = copy.deepcopy(self.template)
        c["process"]["args"] = args
        if seccomp:
            c["linux"]["seccomp"] = seccomp
        c["root"]["path"] = self.rootfs
        c["linux"]["cgroupsPath"] = f"/{self.cg}/{cid}"
        if not netns:
            c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "network"]
        d = os.path.join(self.tmp, "b", cid)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(c, f)
        return d

    def start_sleepers(self, rt, n, ids):
        """For the profile tools: create and start `sleep` containers of rt until ids (a list, which
        gets each id) holds n. Returns None, or why the next one failed."""
        while len(ids) < n:
            cid = self.newid(rt, "bg")
            rc, _, err = call(rt.cmd("create", "--bundle", self.bundle(cid, ["sleep", "1200"]), cid))
            if rc == 0:
                rc, _, err = call(rt.cmd("start", cid))
            if rc != 0:
                return f"background container {len(ids)}: {first_line(err)}"
            ids.append(cid)
            if len(ids) % 100 == 0:
                reap()
        return None

    def settle(self, secs=3.0):
        """Until no process is left in the CLI cgroup (at most secs): what a command left behind
        (our wall-clock watchdog dies with the container's init; a denials reader forked at the end
        of `run --keep` drains 300 ms) has exited."""
        end = time.monotonic() + secs
        while open(os.path.join(self.join, "cgroup.procs")).read().strip():
            if time.monotonic() > end:
                raise RuntimeError(f"processes still in {self.join} after {secs} s")
            time.sleep(0.002)

    def cgroup_cpu_ns(self):
        """CPU of everything in the accounting cgroup: v1 cpuacct.usage, else v2 cpu.stat."""
        try:
            return int(open(os.path.join(self.acct, "cpuacct.usage")).read())
        except FileNotFoundError:
            for line in open(os.path.join(self.acct, "cpu.stat")):
                k, v = line.split()
                if k == "usage_usec":
                    return int(v) * 1000
        raise RuntimeError(f"no CPU accounting in {self.acct}")

    def measure(self, argv, jobs=None, settle=False):
        """One command, measured. settle (a `run`): its CPU is counted from a quiet CLI cgroup until
        the cgroup is quiet again, so that what it leaves running for a moment after it returns is
        charged to it and not to whatever is measured next (CPU split into user and system stays
        the command's own window)."""
        if settle and self.acct:
            self.settle()
            before = self.cgroup_cpu_ns()
            m = self.measure(argv, jobs)
            self.settle()
            m["cpu_ms"] = (self.cgroup_cpu_ns() - before) / 1e6
            return m
        err = os.path.join(self.tmp, "log", "measure.err")
        if os.path.exists(err):
            os.unlink(err)
        m = [self.measure_bin, "--err", err]
        if self.acct:
            m += ["--acct", self.acct, "--join", self.join]
        m += ["--jobs", jobs] if jobs else ["--"] + argv
        p = subprocess.run(m, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"measure failed: {p.stderr}")
        f = p.stdout.split()
        rc, wall, user, sys_, rss, cg, cgu, cgs, failed = (int(x) for x in f)
        try:
            errtext = open(err, errors="replace").read().strip()
        except OSError:
            errtext = ""
        ru_cpu = (user + sys_) / 1000.0
        return dict(rc=rc, wall_ms=wall / 1e6, ru_cpu_ms=ru_cpu, ru_user_ms=user / 1000.0,
                    ru_sys_ms=sys_ / 1000.0, rss_kb=rss,
                    cpu_ms=cg / 1e6 if cg >= 0 else ru_cpu,
                    cpu_user_ms=cgu / 1e6 if cgu >= 0 else user / 1000.0,
                    cpu_sys_ms=cgs / 1e6 if cgs >= 0 else sys_ / 1000.0,
                    failed=failed, err=errtext)

    def run_and_record(self, rt, op, cid, bundle, r, policy=None):
        """For the profile tools: `run` the bundle as cid and record it under op in a measured
        round (r >= 0); a failed run is reported and deleted. Returns the measurement."""
        m = self.measure(rt.cmd("run", "--bundle", bundle, cid, policy=policy), settle=True)
        if m["rc"] != 0:
            log(f"{op} {rt.name}: run failed (rc {m['rc']}): {first_line(m['err'])}")
            call(rt.cmd("delete", "--force", cid))
        elif r >= 0:
            self.record(op, rt, m)
        return m

    def record(self, op, rt, m, level=None):
        s = {k: v for k, v in m.items() if k != "err"}
        s.update(op=op, rt=rt.name, level=level)
        self.samples.append(s)

    def rotate(self, r, rts=None):
        rts = [x for x in (rts or self.rts) if not x.broken]
        if not rts:
            return []
        k = r % len(rts)
        return rts[k:] + rts[:k]

    def wait_stopped(self, rt, cid, secs=10):
        for _ in range(secs * 50):
            reap()
            rc, out, _ = call(rt.cmd("state", cid))
            if rc == 0 and re.search(r'"status"\s*:\s*"stopped"', out):
                return True
            time.sleep(0.02)
        return False

    def section(self, name, fn):
        only = env_list_str("BENCH_SECTIONS")
        if only and not any(name.startswith(o) for o in only):
            return
        t0 = time.monotonic()
        log(f"== {name}")
        try:
            fn()
        finally:
            self.sections.append((name, time.monotonic() - t0))
            reap()

    # -- probes --------------------------------------------------------------------------------

    def probe(self):
        for rt in self.rts:
            cid = self.newid(rt, "probe")
            b = self.bundle(cid, ["/bin/true"])
            m = self.measure(rt.cmd("run", "--bundle", b, cid))
            call(rt.cmd("delete", "--force", cid))
            rt.broken = None if m["rc"] == 0 else (first_line(m["err"]) or f"exit {m['rc']}")
            reap()
        return {rt.name: rt.broken for rt in self.rts}

    def versions(self):
        for rt in self.rts:
            try:
                p = subprocess.run(rt.loader + [rt.path, "--version"], capture_output=True, text=True, timeout=10)
                rt.version = p.stdout.strip()
            except OSError as e:
                rt.version = f"not runnable: {e}"

    # -- sections ------------------------------------------------------------------------------

    def sec_run(self, netns, seccomp=None, op=None):
        op = op or ("run /bin/true" if netns else "run /bin/true, no netns")
        if seccomp:
            op = "run /bin/true, Docker's seccomp profile"
        for r in range(-WARM, ROUNDS):
            for rt in self.rotate(r):
                cid = self.newid(rt, "run")
                b = self.bundle(cid, ["/bin/true"], netns=netns, seccomp=seccomp)
                self.measure_round(rt, op, rt.cmd("run", "--bundle", b, cid), cid, r, settle=True)

    def measure_round(self, rt, op, argv, cid, r, settle=False):
        """One measured command of round r: recorded under op (r >= 0), or the reason op is n/a
        for rt when it fails (and the container cid deleted)."""
        m = self.measure(argv, settle=settle)
        if m["rc"] != 0:
            rt.na.setdefault(op, first_line(m["err"]) or f"exit {m['rc']}")
            call(rt.cmd("delete", "--force", cid))
        elif r >= 0:
            self.record(op, rt, m)
        reap()

    def sec_run_ro_binaries(self):
        """`run` with every runtime's binary copied onto a read-only bind mount (in the bench's own
        mount namespace), as on a host whose /usr is read-only: ours then needs no sealed copy of
        itself (CVE-2019-5736: nothing can write a binary on a read-only mount); crun and runc make
        theirs regardless."""
        d = os.path.join(self.tmp, "ro-bin")
        os.makedirs(d)
        saved = {rt.name: rt.path for rt in self.rts}
        for rt in self.rts:
            shutil.copy2(rt.path, os.path.join(d, rt.name))
        subprocess.run(["mount", "--bind", d, d], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", d], check=True)
            for rt in self.rts:
                rt.path = os.path.join(d, rt.name)
            self.sec_run(True, op=RO_OP)
        finally:
            for rt in self.rts:
                rt.path = saved[rt.name]
            subprocess.run(["umount", d], check=False)

    def sec_lifecycle(self):
        """create, start, delete (of the stopped container), each measured, in one lifecycle."""
        for r in range(-WARM, ROUNDS):
            for rt in self.rotate(r):
                cid = self.newid(rt, "life")
                b = self.bundle(cid, ["/bin/true"])
                m = self.measure(rt.cmd("create", "--bundle", b, cid))
                if m["rc"] != 0:
                    rt.na.setdefault("create", first_line(m["err"]) or f"exit {m['rc']}")
                    call(rt.cmd("delete", "--force", cid))
                    continue
                if r >= 0:
                    self.record("create", rt, m)
                m = self.measure(rt.cmd("start", cid))
                if m["rc"] != 0:
                    rt.na.setdefault("start", first_line(m["err"]) or f"exit {m['rc']}")
                    call(rt.cmd("delete", "--force", cid))
                    continue
                if r >= 0:
                    self.record("start", rt, m)
                if not self.wait_stopped(rt, cid):
                    rt.na.setdefault("delete", "container did not stop within 10 s")
                    call(rt.cmd("delete", "--force", cid))
                    continue
                m = self.measure(rt.cmd("delete", cid))
                if m["rc"] != 0:
                    rt.na.setdefault("delete", first_line(m["err"]) or f"exit {m['rc']}")
                    call(rt.cmd("delete", "--force", cid))
                elif r >= 0:
                    self.record("delete", rt, m)
                reap()

    def sec_exec(self):
        targets = {}
        for rt in self.rotate(0):
            cid = self.newid(rt, "exectarget")
            b = self.bundle(cid, ["sleep", "3600"])
            rc, _, err = call(rt.cmd("create", "--bundle", b, cid))
            if rc == 0:
                rc, _, err = call(rt.cmd("start", cid))
            if rc != 0:
                rt.na["exec"] = "could not start the target container: " + first_line(err)
                continue
            targets[rt.name] = cid
        try:
            for r in range(-WARM, ROUNDS):
                for rt in self.rotate(r):
                    if rt.name not in targets or "exec" in rt.na:
                        continue
                    m = self.measure(rt.cmd("exec", targets[rt.name], "/bin/true"))
                    if m["rc"] != 0:
                        rt.na["exec"] = "not supported: " + (first_line(m["err"]) or f"exit {m['rc']}")
                    elif r >= 0:
                        self.record("exec /bin/true", rt, m)
                    reap()
        finally:
            for rt in self.rts:
                if rt.name in targets:
                    call(rt.cmd("delete", "--force", targets[rt.name]))
            reap()

    def sec_policy(self):
        harsh = os.path.join(REPO, "policies", "harsh.json")
        rt = self.ours
        if rt.broken:
            return
        cid = self.newid(rt, "harshprobe")
        b = self.bundle(cid, ["/bin/true"])
        m = self.measure(rt.cmd("run", "--bundle", b, cid, policy=harsh))
        call(rt.cmd("delete", "--force", cid))
        if m["rc"] != 0:
            rt.na["run under harsh"] = first_line(m["err"]) or f"exit {m['rc']}"
            log(f"harsh policy run fails: {rt.na['run under harsh']}")
            return
        for r in range(-WARM, ROUNDS):
            for pol in ([None, harsh] if r % 2 == 0 else [harsh, None]):
                cid = self.newid(rt, "pol")
                b = self.bundle(cid, ["/bin/true"])
                m = self.measure(rt.cmd("run", "--bundle", b, cid, policy=pol), settle=True)
                if m["rc"] != 0:
                    call(rt.cmd("delete", "--force", cid))
                    if pol:
                        rt.na["run under harsh"] = first_line(m["err"]) or f"exit {m['rc']}"
                    continue
                if r >= 0:
                    self.record("run under harsh" if pol else "run, plain (policy pair)", rt, m)
                reap()

    def sec_scaling(self):
        """Each runtime in turn, alone: bring N of its own `sleep` containers up (N = each level),
        measure create/state/list/delete --force at that level, then delete them all and measure
        level 0 once more. Alone, so that "with 500 running" means 500 (not 500 of ours plus 1 000
        of the others'); level 0 is measured before and after (pooled), so that a drift in the
        machine's load during the block does not pass for growth."""
        ramp = self.extra.setdefault("ramp", {})
        td = self.extra.setdefault("teardown", {})
        for rt in self.rotate(0):
            bg = []
            try:
                for level in LEVELS:
                    t0 = time.monotonic()
                    while len(bg) < level and "scaling" not in rt.na:
                        cid = self.newid(rt, "bg")
                        b = self.bundle(cid, ["sleep", "1200"])
                        rc, _, err = call(rt.cmd("create", "--bundle", b, cid))
                        if rc == 0:
                            rc, _, err = call(rt.cmd("start", cid))
                        if rc != 0:
                            rt.na["scaling"] = f"background container {len(bg) + 1}: " + first_line(err)
                            call(rt.cmd("delete", "--force", cid))
                            break
                        bg.append(cid)
                        if len(bg) % 100 == 0:
                            reap()
                    ramp.setdefault(str(level), {})[rt.name] = time.monotonic() - t0
                    if "scaling" in rt.na:
                        break
                    log(f"{rt.name}: {len(bg)} running (+{ramp[str(level)][rt.name]:.1f}s)")
                    self.scale_rounds(rt, level)
            finally:
                td[rt.name] = self.teardown(rt, bg)
                log(f"{rt.name}: deleted {len(bg)} in {td[rt.name]:.1f}s")
            if "scaling" not in rt.na and 0 in LEVELS and max(LEVELS) > 0:
                self.scale_rounds(rt, 0, warm=0)

    def scale_rounds(self, rt, level, warm=1):
        for r in range(-warm, SCALE_ROUNDS):
            cid = self.newid(rt, "probe")
            b = self.bundle(cid, ["/bin/true"])
            m = self.measure(rt.cmd("create", "--bundle", b, cid))
            if m["rc"] != 0:
                rt.na["scaling"] = first_line(m["err"])
                call(rt.cmd("delete", "--force", cid))
                return
            if r >= 0:
                self.record("create", rt, m, level)
            for op, argv in (("state", ["state", cid]), ("list", ["list", "--format", "json"])):
                m = self.measure(rt.cmd(*argv))
                if r >= 0 and m["rc"] == 0:
                    self.record(op, rt, m, level)
            m = self.measure(rt.cmd("delete", "--force", cid))
            if r >= 0 and m["rc"] == 0:
                self.record("delete --force (created)", rt, m, level)
            reap()

    def teardown(self, rt, ids):
        """Delete ids with 4 workers (not a figure the targets ask for; sequential deletes of
        500 containers take a while). Returns the wall seconds."""
        if not ids:
            return 0.0
        jobs = os.path.join(self.tmp, "teardown-jobs")
        base = " ".join(rt.cmd())
        with open(jobs, "w") as f:
            for w in range(4):
                mine = ids[w::4]
                if mine:
                    f.write(" ;; ".join(f"{base} delete --force {cid}" for cid in mine) + "\n")
        secs = self.measure(None, jobs=jobs)["wall_ms"] / 1000.0
        for cid in ids:  # whatever a worker could not delete
            if os.path.isdir(os.path.join(rt.root, cid)):
                call(rt.cmd("delete", "--force", cid))
        reap()
        return secs

    def sec_parallel(self):
        for n in PARALLEL:
            for r in range(PAR_ROUNDS):
                for rt in self.rotate(r):
                    ids = [self.newid(rt, f"par{n}") for _ in range(n)]
                    jobs = os.path.join(self.tmp, "jobs")
                    base = " ".join(rt.cmd())
                    with open(jobs, "w") as f:
                        for cid in ids:
                            b = self.bundle(cid, ["sleep", "60"])
                            f.write(f"{base} create --bundle {b} {cid} ;; {base} start {cid} ;; "
                                    f"{base} delete --force {cid}\n")
                    m = self.measure(None, jobs=jobs)
                    m["n"] = n
                    if m["failed"]:
                        rt.na.setdefault(f"{n} lifecycles in parallel",
                                         f"{m['failed']} of {n} lifecycles failed: " + first_line(m["err"]))
                    self.record(f"{n} lifecycles in parallel", rt, m)
                    for cid in ids:  # nothing should be left; make sure
                        if os.path.isdir(os.path.join(rt.root, cid)):
                            call(rt.cmd("delete", "--force", cid))
                    reap()

    # -- cross-checks with public tools ----------------------------------------------------------

    def sec_tools(self):
        hf = self.extra.setdefault("hyperfine", {})
        ps = self.extra.setdefault("perf_stat", {})
        tv = self.extra.setdefault("time_v", {})
        have_perf = shutil.which("perf") and subprocess.run(
            ["perf", "stat", "-e", "task-clock", "true"], capture_output=True).returncode == 0
        self.extra["perf_hw"] = bool(shutil.which("perf")) and "<not supported>" not in subprocess.run(
            ["perf", "stat", "-e", "instructions", "true"], capture_output=True, text=True).stderr
        n = max(5, ROUNDS)
        for rt in self.rotate(0):
            cid = self.newid(rt, "tool")
            b = self.bundle(cid, ["/bin/true"])
            argv = rt.cmd("run", "--bundle", b, cid)
            if shutil.which("hyperfine"):
                out = os.path.join(self.tmp, f"hf-{rt.name}.json")
                p = subprocess.run(["hyperfine", "-N", "--warmup", "2", "--runs", str(n),
                                    "--export-json", out, " ".join(argv)],
                                   capture_output=True, text=True)
                if p.returncode == 0:
                    res = json.load(open(out))["results"][0]
                    hf[rt.name] = {k: res[k] for k in ("mean", "stddev", "median", "min", "max",
                                                       "user", "system")}
                else:
                    hf[rt.name] = {"error": first_line(p.stderr)}
                call(rt.cmd("delete", "--force", cid))
            if have_perf:
                p = subprocess.run(["perf", "stat", "-x", ",", "-r", str(n), "-e",
                                    "task-clock,context-switches,cpu-migrations,page-faults"] + argv,
                                   capture_output=True, text=True)
                d = {}
                for line in p.stderr.splitlines():
                    f = line.split(",")
                    if len(f) >= 3 and f[2]:
                        try:
                            d[f[2]] = float(f[0])
                        except ValueError:
                            d[f[2]] = f[0]
                ps[rt.name] = d
                call(rt.cmd("delete", "--force", cid))
            if os.path.exists("/usr/bin/time"):
                p = subprocess.run(["/usr/bin/time", "-v"] + argv, capture_output=True, text=True)
                d = {}
                for line in p.stderr.splitlines():
                    if ":" in line:
                        k, _, v = line.strip().rpartition(": ")
                        d[k.strip()] = v.strip()
                tv[rt.name] = {k: d.get(k) for k in (
                    "User time (seconds)", "System time (seconds)", "Maximum resident set size (kbytes)",
                    "Minor (reclaiming a frame) page faults", "Voluntary context switches",
                    "Involuntary context switches", "Elapsed (wall clock) time (h:mm:ss or m:ss)")}
                call(rt.cmd("delete", "--force", cid))
            reap()


# ---------------------------------------------------------------------------------------------
# Helpers


def call(argv, timeout=60):
    """An unmeasured runtime call: (rc, stdout, stderr). stdin is /dev/null; stdout and stderr go
    to files, never pipes: a created container's init inherits them and would hold a pipe open."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        try:
            rc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = 124
            err.seek(0, 2)
            err.write(f"\n{os.path.basename(argv[0])} {' '.join(argv[3:5])}: timed out after {timeout}s")
        out.seek(0)
        err.seek(0)
        return rc, out.read(), err.read()


def reap():
    """We are a child subreaper (as conmon and the containerd shim are): created containers'
    inits are re-parented to us. Reap whatever has exited. Only called between subprocess calls
    (no subprocess child of ours is outstanding then)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def first_line(s):
    for line in (s or "").splitlines():
        line = line.strip()
        if line:
            m = re.search(r'msg="((?:[^"\\]|\\.)*)"', line)
            return (m.group(1) if m else line)[:200]
    return ""


def set_subreaper():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        log("warning: cannot become a child subreaper")


def enter_private_mount_ns(script):
    """For the bench/profile tools: run `script` again (same argv) in a private mount namespace,
    once, as bench/run.sh runs bench.py; nothing they mount is seen outside."""
    if os.environ.get("SHARNESS_BENCH_IN_NS") != "1":
        os.environ["SHARNESS_BENCH_IN_NS"] = "1"
        os.execvp("unshare", ["unshare", "-m", "--propagation", "private", "/usr/bin/python3",
                              os.path.abspath(script)] + sys.argv[1:])


@contextlib.contextmanager
def session(rts):
    """A Bench over the Runtime objects `rts` (the first is "ours"), set up as bench.py's main does
    (subreaper, temp dir, bundle, the hybrid host's cgroup2 hidden, a cgroup parent), and cleaned
    up whatever happens. The samples stay in it for a Report."""
    set_subreaper()
    b = Bench(rts[0].path)
    b.rts = list(rts)
    b.ours = b.rts[0]
    try:
        b.setup()
        if any(mp == "/sys/fs/cgroup/unified" and t == "cgroup2" for mp, t, _ in b.cgroup_mounts()):
            b.hide_unified("replace")
        b.setup_cgroups()
        yield b
    finally:
        b.cleanup()
        b.remove_tmp()


# ---------------------------------------------------------------------------------------------
# Statistics and the report


def stats(vals):
    if not vals:
        return None
    return dict(n=len(vals), median=statistics.median(vals), min=min(vals), max=max(vals))


def fmt_ms(st, digits=2):
    if not st:
        return "n/a"
    return f"{st['median']:.{digits}f} ({st['min']:.{digits}f}–{st['max']:.{digits}f})"


def ratio(a, b):
    if not a or not b or not b["median"]:
        return "n/a"
    return f"{a['median'] / b['median']:.2f}×"


class Report:
    def __init__(self, bench):
        self.b = bench

    def get(self, op, rt, key, level=None):
        v = [s[key] for s in self.b.samples
             if s["op"] == op and s["rt"] == rt and s["level"] == level]
        return stats(v)

    def why_na(self, op, rt):
        r = next(x for x in self.b.rts if x.name == rt)
        if r.broken:
            return f"n/a: {r.broken}"
        for k, v in r.na.items():
            if k == op or (op.startswith(k)):
                return f"n/a: {v}"
        return "n/a"

    def cell(self, op, rt, key, level=None, digits=2):
        st = self.get(op, rt, key, level)
        return fmt_ms(st, digits) if st else self.why_na(op, rt)

    def table(self, ops, key, digits=2, level=None, unit="ms"):
        names = [r.name for r in self.b.rts]
        lines = [f"| operation | {' | '.join(f'{n} ({unit})' for n in names)} | {self.ratio_heads()} |",
                 "| --- |" + " ---: |" * (2 * len(names) - 1)]
        for op in ops:
            cells = [self.cell(op, n, key, level, digits) for n in names]
            sts = [self.get(op, n, key, level) for n in names]
            lines.append(f"| {op} | {' | '.join(cells)} | {self.ratios(sts)} |")
        return "\n".join(lines)

    def ratio_heads(self):
        """One column per other runtime: ours/crun, ours/crun-1.21, ours/runc."""
        return " | ".join(f"ours/{r.name}" for r in self.b.rts[1:])

    def ratios(self, sts):
        return " | ".join(ratio(sts[0], s) for s in sts[1:])

    def machine(self):
        mem = "?"
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = f"{int(line.split()[1]) / 1048576:.1f} GiB"
        cpu = "?"
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        debian = open("/etc/debian_version").read().strip() if os.path.exists("/etc/debian_version") else "?"
        return dict(nproc=os.cpu_count(), mem=mem, cpu=cpu, kernel=platform.release(), debian=debian)

    def git(self):
        try:
            head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                                  capture_output=True, text=True).stdout.strip()
            dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True).stdout.strip()
            return head + (" (with uncommitted changes in the tree)" if dirty else "")
        except OSError:
            return "?"

    def targets(self):
        rows = []
        o_cpu = self.get("run /bin/true", "sharness", "cpu_ms")
        # DESIGN.md §8: CPU per run <= 0.75 x crun, for Debian 12's crun and the newest runnable here.
        for cname in [r.name for r in self.b.rts if r.name.startswith("crun")]:
            c_cpu = self.get("run /bin/true", cname, "cpu_ms")
            if o_cpu and c_cpu:
                lim = CPU_TARGET * c_cpu["median"]
                v = o_cpu["median"]
                rows.append((f"CPU time per `run` of /bin/true ≤ {CPU_TARGET} × {cname}'s",
                             f"{v:.2f} ms vs {cname} {c_cpu['median']:.2f} ms: {v / c_cpu['median']:.2f}× "
                             f"(limit {lim:.2f} ms)",
                             "met" if v <= lim else f"**missed** by {v - lim:.2f} ms ({(v / lim - 1) * 100:.0f}% over the limit)"))
            else:
                rows.append((f"CPU time per `run` ≤ {CPU_TARGET} × {cname}'s", "n/a", "not measured"))
        # The same where the binaries sit on a read-only mount (no sealed copy needed by ours).
        o_ro, c_ro = self.get(RO_OP, "sharness", "cpu_ms"), self.get(RO_OP, "crun", "cpu_ms")
        if o_ro and c_ro:
            v, c = o_ro["median"], c_ro["median"]
            rows.append(("(the same, binaries on a read-only mount, as with a read-only /usr)",
                         f"{v:.2f} ms vs crun {c:.2f} ms: {v / c:.2f}×",
                         "met" if v <= CPU_TARGET * c else f"**missed** by {v - CPU_TARGET * c:.2f} ms"))
        # DESIGN.md §8: peak RSS <= crun's, for each crun as the CPU target.
        o_rss = self.get("run /bin/true", "sharness", "rss_kb")
        for cname in [r.name for r in self.b.rts if r.name.startswith("crun")]:
            c_rss = self.get("run /bin/true", cname, "rss_kb")
            if o_rss and c_rss:
                v, c = o_rss["median"], c_rss["median"]
                rows.append((f"peak RSS ≤ {cname}'s", f"{v / 1024:.1f} MiB vs {cname} {c / 1024:.1f} MiB ({v / c:.2f}×)",
                             "met" if v <= c else f"**missed** by {(v - c) / 1024:.1f} MiB ({(v / c - 1) * 100:.0f}% over)"))
            else:
                rows.append((f"peak RSS ≤ {cname}'s", "n/a", "not measured"))
        h = self.get("run under harsh", "sharness", "cpu_ms")
        p = self.get("run, plain (policy pair)", "sharness", "cpu_ms")
        hw = self.get("run under harsh", "sharness", "wall_ms")
        pw = self.get("run, plain (policy pair)", "sharness", "wall_ms")
        if h and p:
            lim = HARSH_TARGET * p["median"]
            rows.append((f"`run` under harsh ≤ {HARSH_TARGET} × our plain `run` (CPU)",
                         f"{h['median']:.2f} ms vs {p['median']:.2f} ms: {h['median'] / p['median']:.2f}× "
                         f"(wall {hw['median']:.2f} vs {pw['median']:.2f} ms: {hw['median'] / pw['median']:.2f}×)",
                         "met" if h["median"] <= lim else
                         f"**missed** by {h['median'] - lim:.2f} ms ({(h['median'] / lim - 1) * 100:.0f}% over the limit)"))
        else:
            rows.append((f"`run` under harsh ≤ {HARSH_TARGET} × our plain `run`",
                         self.why_na("run under harsh", "sharness"), "not measurable yet"))
        top = max(LEVELS)
        c0 = self.get("create", "sharness", "wall_ms", 0)
        cn = self.get("create", "sharness", "wall_ms", top)
        c0c = self.get("create", "sharness", "cpu_ms", 0)
        cnc = self.get("create", "sharness", "cpu_ms", top)
        if c0 and cn:
            lim = 1.2 * c0["median"]
            extra = f"; CPU {cnc['median']:.2f} vs {c0c['median']:.2f} ms ({cnc['median'] / c0c['median']:.2f}×)" if c0c and cnc else ""
            rows.append((f"`create` latency with {top} running ≤ 1.2 × with none",
                         f"{cn['median']:.2f} ms vs {c0['median']:.2f} ms: {cn['median'] / c0['median']:.2f}×{extra}",
                         "met" if cn["median"] <= lim else
                         f"**missed** by {cn['median'] - lim:.2f} ms ({(cn['median'] / lim - 1) * 100:.0f}% over the limit)"))
        else:
            rows.append((f"`create` latency with {top} running ≤ 1.2 × with none", "n/a", "not measured"))
        return rows

    def scaling_table(self, op, key="wall_ms"):
        names = [r.name for r in self.b.rts]
        lines = [f"| already running | {' | '.join(names)} | {self.ratio_heads()} |",
                 "| ---: |" + " ---: |" * (2 * len(names) - 1)]
        for level in LEVELS:
            sts = [self.get(op, n, key, level) for n in names]
            cells = [fmt_ms(s) if s else self.why_na("scaling", n) for s, n in zip(sts, names)]
            lines.append(f"| {level} | {' | '.join(cells)} | {self.ratios(sts)} |")
        return "\n".join(lines)

    def plot(self, png):
        if not shutil.which("gnuplot"):
            return "gnuplot not installed: no plot"
        names = [r.name for r in self.b.rts]
        dat = os.path.join(self.b.tmp, "scaling.dat")
        ops = ["create", "state", "list"]
        with open(dat, "w") as f:
            for op in ops:
                f.write(f"# {op}\n")
                for level in LEVELS:
                    row = [str(level)]
                    for n in names:
                        s = self.get(op, n, "wall_ms", level)
                        row += [f"{s['median']:.3f} {s['min']:.3f} {s['max']:.3f}" if s else "NaN NaN NaN"]
                    f.write(" ".join(row) + "\n")
                f.write("\n\n")
        term = "pngcairo size 1500,500 font ',10'"
        if subprocess.run(["gnuplot", "-e", "set terminal pngcairo"], capture_output=True).returncode != 0:
            term = "png size 1500,500"
        gp = [f"set terminal {term}", f"set output '{png}'",
              "set multiplot layout 1,3 title 'latency against containers already running "
              "(median, min–max bars; each runtime alone with N of its own)'",
              "set key top left", "set grid", "set xlabel 'containers already running (per runtime)'",
              "set ylabel 'ms (wall)'", f"set xrange [-20:{max(LEVELS) * 1.05 + 20:.0f}]", "set yrange [0:*]"]
        for i, op in enumerate(ops):
            title = {"create": "create", "state": "state <id>", "list": "list --format json"}[op]
            gp.append(f"set title '{title}'")
            plots = []
            for j, n in enumerate(names):
                c = 2 + 3 * j
                plots.append(f"'{dat}' index {i} using 1:{c}:{c + 1}:{c + 2} with yerrorlines "
                             f"lw 2 pt 7 title '{n}'")
            gp.append("plot " + ", ".join(plots))
        gp.append("unset multiplot")
        p = subprocess.run(["gnuplot"], input="\n".join(gp), capture_output=True, text=True)
        return None if p.returncode == 0 else "gnuplot failed: " + first_line(p.stderr)

    def write(self, out):
        b = self.b
        os.makedirs(out, exist_ok=True)
        png_name = "latest-scaling.png"
        plot_err = self.plot(os.path.join(out, png_name))
        m = self.machine()
        total = time.monotonic() - T_START
        L = []
        w = L.append
        w("# sharness-runtime vs crun (Debian 12 and 13) vs runc: latest benchmark")
        w("")
        w(f"Written by `make bench` (bench/run.sh, bench/bench.py, bench/measure.c) on "
          f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}, tree at "
          f"{self.git()}; the bench took {total / 60:.1f} min. Benchmarks are not tests: nothing here "
          f"is asserted by `make test`.")
        w("")
        w("## Machine and runtimes")
        w("")
        w(f"- {m['nproc']} CPUs ({m['cpu']}), {m['mem']} memory, kernel {m['kernel']}, Debian {m['debian']}")
        for rt in b.rts:
            v = rt.version.replace("\n", "; ")
            w(f"- **{rt.name}** `{rt.origin}`: {v}")
        w(f"- load average (1/5/15 min) at the start {' '.join(LOAD_START)}, at the end "
          f"{' '.join(open('/proc/loadavg').read().split()[:3])}: other work on this machine inflates "
          f"wall times (2 CPUs); CPU time is much less sensitive to it")
        w(f"- cgroups: {b.cgroup_method}")
        w(f"- every runtime has its own `--root` in a temp dir"
          + ("" if os.environ.get("BENCH_STATE_ON_DISK") == "1" else
             ", on a tmpfs private to the bench (as /run is on a real host)")
          + "; containers live in "
          f"`/sharness-bench-<pid>/<id>` cgroups; the bench is a child subreaper (as conmon and the "
          f"containerd shim are) and reaps the created containers' inits.")
        w("- every runtime runs from a copy the bench makes at its start (crun 1.21 with its loader and "
          "libraries): how a binary's file was last written decides its page cache and so what each start "
          "costs, and a copy puts them all in the state an install leaves (`Bench.copy_runtimes`).")
        w(f"- rounds: {ROUNDS} measured (+{WARM} warm-up) per single-operation figure, interleaved "
          f"(round r runs the runtimes in a rotated order); scaling {SCALE_ROUNDS} rounds per level; "
          f"parallel {PAR_ROUNDS} rounds.")
        w("")
        w("**CPU time** (the stable figure) is the CPU charged to this run's cgroup parent "
          "(cpuacct, hierarchical) while the command runs: the runtime, every process it forks, and "
          "the container's init up to the point the command returns, also when the runtime does not "
          "wait for it (`create`). **Wall** is fork-to-wait4 of the runtime binary (its exec and dynamic "
          "loading included). **Peak RSS** is `ru_maxrss` of wait4: the largest RSS of the runtime or "
          "of a process it waited for. Figures are `median (min–max)`.")
        w("")
        w("## Targets")
        w("")
        w("| target | measured (medians) | verdict |")
        w("| --- | --- | --- |")
        for t, v, verdict in self.targets() + workloads.targets(self):
            w(f"| {t} | {v} | {verdict} |")
        w("")
        w("Why a missed target is missed, with the profile behind it: [profile.md](profile.md).")
        w("")
        single = ["run /bin/true", "run /bin/true, no netns", "run /bin/true, Docker's seccomp profile",
                  RO_OP, "create", "start", "delete", "exec /bin/true"]
        w("## CPU time per operation (ms, user + sys of the runtime and its children)")
        w("")
        w(self.table(single, "cpu_ms"))
        w("")
        w("## Wall latency per operation (ms)")
        w("")
        w(self.table(single, "wall_ms"))
        w("")
        w("`create`, `start` and `delete` are measured in one lifecycle per round: create a /bin/true "
          "container, start it, wait (unmeasured, polling `state`) until it has stopped, delete it. "
          "`exec` runs /bin/true in a running `sleep` container. \"Docker's seccomp profile\": the "
          "same `run` with the linux.seccomp section Docker generates on amd64 from "
          f"{docker_seccomp.PROFILE} (~350 syscalls, argument conditions, 3 architectures); every "
          "runtime compiles it per container, except that ours keeps compiled filters under its "
          "--root (docs/seccomp-cache.md), warm after the warm-up rounds as on a busy host. "
          f"\"{RO_OP.split(', ', 1)[1]}\": the same `run` with each binary copied onto a read-only bind mount "
          "in the bench's mount namespace, as on a host whose /usr is read-only; ours then skips the "
          "sealed re-exec (the binary already cannot be written), crun and runc copy themselves anyway.")
        w("")
        w("## Peak RSS (MiB, ru_maxrss)")
        w("")
        names = [r.name for r in b.rts]
        w(f"| operation | {' | '.join(names)} | {self.ratio_heads()} |")
        w("| --- |" + " ---: |" * (2 * len(names) - 1))
        for op in ["run /bin/true", "create", "start", "delete", "exec /bin/true"]:
            sts = [self.get(op, n, "rss_kb") for n in names]
            sts = [dict((k, (v / 1024 if k != "n" else v)) for k, v in s.items()) if s else None for s in sts]
            cells = [fmt_ms(s, 1) if s else self.why_na(op, n) for s, n in zip(sts, names)]
            w(f"| {op} | {' | '.join(cells)} | {self.ratios(sts)} |")
        w("")
        workloads.section(self, w)
        w("## Our `run` under policies/harsh.json against our plain `run`")
        w("")
        h = self.get("run under harsh", "sharness", "cpu_ms")
        if h:
            w("| | CPU (ms) | wall (ms) | peak RSS (MiB) |")
            w("| --- | ---: | ---: | ---: |")
            for op in ["run, plain (policy pair)", "run under harsh"]:
                rs = self.get(op, "sharness", "rss_kb")
                w(f"| {op} | {self.cell(op, 'sharness', 'cpu_ms')} | {self.cell(op, 'sharness', 'wall_ms')} "
                  f"| {rs['median'] / 1024:.1f} |")
            w("")
            w("Measured in pairs, alternating which goes first, on the same bundle.")
        else:
            w(f"{self.why_na('run under harsh', 'sharness')} (the global flag `--policy PATH` is being "
              f"wired; re-run `make bench` once it is).")
        w("")
        w(f"## Cost against the work: containers already running (plot: [{png_name}]({png_name}))")
        w("")
        w("Each runtime in turn, alone on the machine: N `sleep` containers of its own are created and "
          "started, each in its own cgroup (the other runtimes have none at that time); then per "
          "round: `create` a container (measured), `state` it, `list --format json`, `delete --force` "
          "it; then the next level; then all its containers are deleted and level 0 is measured "
          "again (pooled with the first level-0 rounds, so that load drift during the block does not "
          "pass for growth). Unlike the tables above, the runtimes take turns here rather than "
          "alternate: compare each runtime's growth with its own level 0 first.")
        w("")
        if plot_err:
            w(f"({plot_err})")
            w("")
        for op, title in (("create", "`create` wall (ms)"), ("state", "`state` wall (ms)"),
                          ("list", "`list --format json` wall (ms)"),
                          ("delete --force (created)", "`delete --force` of a created container, wall (ms)")):
            w(f"### {title}")
            w("")
            w(self.scaling_table(op))
            w("")
        w("### `create` CPU (ms)")
        w("")
        w(self.scaling_table("create", "cpu_ms"))
        w("")
        ramp, td = b.extra.get("ramp", {}), b.extra.get("teardown", {})
        if ramp:
            w("Time to bring the containers up (create + start each, seconds), and to delete them all:")
            w("")
            w(f"| | {' | '.join(names)} |")
            w("| --- |" + " ---: |" * len(names))
            prev = 0
            for level in LEVELS:
                if level == 0:
                    continue
                t = ramp.get(str(level), {})
                w(f"| {prev} → {level} running | {' | '.join(f'{t[n]:.1f}' if n in t else 'n/a' for n in names)} |")
                prev = level
            w(f"| delete --force all {max(LEVELS)} (4 in parallel) | {' | '.join(f'{td.get(n, 0):.1f}' for n in names)} |")
            w("")
        w("## Lifecycles in parallel")
        w("")
        w("N workers at once, each `create`, `start`, `delete --force` of its own `sleep` container. "
          "Wall is from the first fork to the last exit; CPU is the whole batch.")
        w("")
        w(f"| batch | {' | '.join(f'{n} wall (ms)' for n in names)} | {' | '.join(f'{n} CPU (ms)' for n in names)} | {' | '.join(f'ours/{n} wall' for n in names[1:])} |")
        w("| --- |" + " ---: |" * (3 * len(names) - 1))
        for n in PARALLEL:
            op = f"{n} lifecycles in parallel"
            ws = [self.get(op, x, "wall_ms") for x in names]
            cs = [self.get(op, x, "cpu_ms") for x in names]
            na = [next(r for r in b.rts if r.name == x).na.get(op) for x in names]
            wc = [(fmt_ms(s, 0) + (" (failures)" if f else "")) if s else "n/a" for s, f in zip(ws, na)]
            cc = [fmt_ms(s, 0) if s else "n/a" for s in cs]
            w(f"| {n} | {' | '.join(wc)} | {' | '.join(cc)} | {self.ratios(ws)} |")
        w("")
        notes = [(r.name, k, v) for r in b.rts for k, v in r.na.items()]
        if any(r.broken for r in b.rts) or notes:
            w("## What was not measurable")
            w("")
            for r in b.rts:
                if r.broken:
                    w(f"- {r.name}: cannot run a container at all: {r.broken}")
            for n, k, v in notes:
                w(f"- {n}, {k}: {v}")
            w("")
        w("## Cross-checks with public tools (`run` of /bin/true, not interleaved)")
        w("")
        hf = b.extra.get("hyperfine", {})
        if hf:
            w("hyperfine (`-N`, 2 warm-up runs; one runtime after the other):")
            w("")
            w("| runtime | mean ± σ (ms) | median (ms) | min–max (ms) | user (ms) | system (ms) |")
            w("| --- | ---: | ---: | ---: | ---: | ---: |")
            for n, d in hf.items():
                if "error" in d:
                    w(f"| {n} | n/a: {d['error']} | | | | |")
                else:
                    w(f"| {n} | {d['mean'] * 1e3:.2f} ± {d['stddev'] * 1e3:.2f} | {d['median'] * 1e3:.2f} | "
                      f"{d['min'] * 1e3:.2f}–{d['max'] * 1e3:.2f} | {d['user'] * 1e3:.2f} | {d['system'] * 1e3:.2f} |")
            w("")
        ps = b.extra.get("perf_stat", {})
        if ps:
            w("perf stat (software events, mean over the runs; this VM exposes no hardware counters"
              + ("" if not b.extra.get("perf_hw") else ", hardware counters available") + "):")
            w("")
            w("| runtime | task-clock (ms) | context switches | CPU migrations | page faults |")
            w("| --- | ---: | ---: | ---: | ---: |")
            for n, d in ps.items():
                def g(k):
                    v = d.get(k)
                    return f"{v:.2f}" if isinstance(v, float) else (v or "n/a")
                w(f"| {n} | {g('task-clock')} | {g('context-switches')} | {g('cpu-migrations')} | {g('page-faults')} |")
            w("")
        tv = b.extra.get("time_v", {})
        if tv:
            w("`/usr/bin/time -v` (one run each):")
            w("")
            keys = ["User time (seconds)", "System time (seconds)", "Maximum resident set size (kbytes)",
                    "Minor (reclaiming a frame) page faults", "Voluntary context switches"]
            w(f"| runtime | {' | '.join(keys)} |")
            w("| --- |" + " ---: |" * len(keys))
            for n, d in tv.items():
                w(f"| {n} | {' | '.join(str(d.get(k)) for k in keys)} |")
            w("")
        w("## Sections and their duration")
        w("")
        w("| section | seconds |")
        w("| --- | ---: |")
        for name, secs in b.sections:
            w(f"| {name} | {secs:.1f} |")
        w(f"| **total** (incl. set-up and clean-up) | {total:.1f} |")
        w("")
        w("## Reproduce")
        w("")
        w("```sh")
        w("make bench                 # builds, installs what is missing, runs, writes bench/results/")
        w("bench/run.sh PATH/TO/sharness-runtime   # the same against any build")
        w("BENCH_QUICK=1 bench/run.sh build/sharness-runtime   # a 1-minute smoke run")
        w("```")
        w("")
        with open(os.path.join(out, "latest.md"), "w") as f:
            f.write("\n".join(L))
        meta = dict(extra=b.extra, sections=b.sections, na={r.name: r.na for r in b.rts},
                    broken={r.name: r.broken for r in b.rts},
                    versions={r.name: r.version for r in b.rts}, machine=m, cgroups=b.cgroup_method)
        with open(os.path.join(out, "latest.json"), "w") as f:  # one sample per line
            f.write('{"samples": [\n')
            f.write(",\n".join(json.dumps(x, separators=(",", ":")) for x in b.samples))
            f.write('\n],\n"meta": ' + json.dumps(meta, indent=1) + "}\n")
        log(f"wrote {out}/latest.md, latest.json" + ("" if plot_err else f", {png_name}"))


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--out", default=os.environ.get("BENCH_OUT", os.path.join(HERE, "results")))
    ap.add_argument("--crun-new", help="a directory bench/crun-trixie.sh filled (Debian 13's crun)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: must run as root")
    if os.environ.get("SHARNESS_BENCH_IN_NS") != "1":
        sys.exit("bench: run bench/run.sh (it enters a private mount namespace first)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    set_subreaper()
    b = Bench(os.path.abspath(a.ours), a.crun_new)
    ok = False
    try:
        b.setup()
        b.versions()
        # The cgroup layout all three see: crun 1.8.1 refuses this hybrid host as it is.
        hybrid = any(mp == "/sys/fs/cgroup/unified" and t == "cgroup2" for mp, t, _ in b.cgroup_mounts())
        if hybrid:
            b.hide_unified("tmpfs")
            b.cgroup_method = ("hybrid host (cgroup2 at /sys/fs/cgroup/unified holds hugetlb, which "
                               "crun 1.8.1 refuses): an empty tmpfs over /sys/fs/cgroup/unified in "
                               "the bench's private mount namespace (as conformance/lib.sh's "
                               "SHARNESS_HIDE_UNIFIED), so every runtime sees the same pure v1 "
                               "layout; the host is not changed")
        b.setup_cgroups()
        res = b.probe()
        log(f"probe: {res}")
        if hybrid and b.ours.broken and "cgroup2" in b.ours.broken:
            # Our layout detection takes the cgroup2 line of mountinfo even when a later mount
            # covers it: unmount the cover and the cgroup2 mount itself (namespace only).
            first = b.ours.broken
            b.hide_unified("replace")
            res = b.probe()
            log(f"probe after unmounting /sys/fs/cgroup/unified in the namespace: {res}")
            b.cgroup_method = ("hybrid host (cgroup2 at /sys/fs/cgroup/unified holds hugetlb, which "
                               "crun 1.8.1 refuses): /sys/fs/cgroup/unified is unmounted in the "
                               "bench's private mount namespace only and an empty tmpfs is mounted in "
                               "its place, so every runtime sees the same pure v1 layout; the "
                               "host is not changed. (The tmpfs-over trick "
                               "of conformance/lib.sh is not enough for ours: it fails with "
                               f"\"{first}\", because its layout detection does not skip a cgroup2 "
                               "mount that a later mount covers; see profile.md.)")
        elif not hybrid:
            b.cgroup_method = "not hybrid: the host's layout as it is"
        if b.ours.broken:
            log(f"our runtime cannot run a container: {b.ours.broken}")
        b.section("run /bin/true", lambda: b.sec_run(True))
        b.section("run /bin/true, no netns", lambda: b.sec_run(False))
        docker = docker_seccomp.load()
        if docker:
            b.section("run /bin/true, Docker's seccomp profile", lambda: b.sec_run(True, docker))
        else:
            log(f"no {docker_seccomp.PROFILE} (package golang-github-containers-common): "
                "the Docker seccomp profile row is skipped")
        b.section(RO_OP, b.sec_run_ro_binaries)
        b.section("create/start/delete", b.sec_lifecycle)
        b.section("exec", b.sec_exec)
        b.section("policy harsh", b.sec_policy)
        b.section("policy learn", lambda: workloads.sec_learn(b, ROUNDS, WARM))
        b.section("python3 profile", lambda: workloads.sec_python(b, REPO, ROUNDS, WARM, first_line, log))
        b.section("scaling " + "/".join(map(str, LEVELS)), b.sec_scaling)
        b.section("parallel " + "/".join(map(str, PARALLEL)), b.sec_parallel)
        b.section("hyperfine, perf stat, time -v", b.sec_tools)
        ok = True
    finally:
        b.cleanup()
        if not ok:
            b.remove_tmp()
    try:
        Report(b).write(a.out)
    finally:
        b.remove_tmp()


if __name__ == "__main__":
    main()
