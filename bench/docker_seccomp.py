"""Docker's default seccomp profile as an OCI linux.seccomp section, for the benchmarks.

The containers-common profile (/usr/share/containers/seccomp.json, Debian package
golang-github-containers-common) converted as Docker does for amd64 with Docker's default
capabilities: ~350 syscalls in ~20 rules, argument conditions, 3 architectures.
"""
import json
import os
import platform

PROFILE = "/usr/share/containers/seccomp.json"

DOCKER_CAPS = {"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
               "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
               "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"}


def kernel_at_least(v):
    have = [int(x) for x in platform.release().split("-")[0].split(".")[:2]]
    want = [int(x) for x in v.split(".")[:2]]
    return have >= want


def to_oci(profile):
    """A containers-common/Docker profile as the OCI linux.seccomp Docker would generate on amd64."""
    out = {"defaultAction": profile["defaultAction"], "architectures": [], "syscalls": []}
    if "defaultErrnoRet" in profile:
        out["defaultErrnoRet"] = profile["defaultErrnoRet"]
    for m in profile.get("archMap", []):
        if m["architecture"] == "SCMP_ARCH_X86_64":
            out["architectures"] = [m["architecture"]] + m.get("subArchitectures", [])
    for s in profile["syscalls"]:
        inc, exc = s.get("includes", {}), s.get("excludes", {})
        if inc.get("arches") and "amd64" not in inc["arches"]:
            continue
        if exc.get("arches") and "amd64" in exc["arches"]:
            continue
        if inc.get("caps") and not set(inc["caps"]) <= DOCKER_CAPS:
            continue
        if exc.get("caps") and set(exc["caps"]) & DOCKER_CAPS:
            continue
        if inc.get("minKernel") and not kernel_at_least(inc["minKernel"]):
            continue
        r = {"names": s["names"], "action": s["action"]}
        if "errnoRet" in s:
            r["errnoRet"] = s["errnoRet"]
        if s.get("args"):
            r["args"] = [{k: a[k] for k in ("index", "value", "valueTwo", "op") if k in a} for a in s["args"]]
        out["syscalls"].append(r)
    return out


def load(path=PROFILE):
    """The converted profile, or None when the file is missing."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return to_oci(json.load(f))
