#!/usr/bin/env python3
"""audit_ctl.py: read and set the kernel's audit switches over netlink (no auditd needed).

  audit_ctl.py get                 prints "enabled=N lost=N rate_limit=N backlog_limit=N"
  audit_ctl.py set enabled|rate_limit|backlog_limit N

The denials suite enables audit for its Landlock cases (Landlock logs nothing while it is off)
and restores what it found on exit."""
import socket
import struct
import sys

NETLINK_AUDIT, AUDIT_GET, AUDIT_SET = 9, 1000, 1001
NLM_F_REQUEST, NLM_F_ACK = 1, 4
MASK = {"enabled": 0x1, "rate_limit": 0x8, "backlog_limit": 0x10}
# struct audit_status: mask enabled failure pid rate_limit backlog_limit lost backlog ...
FIELDS = ("mask", "enabled", "failure", "pid", "rate_limit", "backlog_limit", "lost", "backlog")


def talk(kind, body=b""):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_AUDIT)
    s.bind((0, 0))
    s.send(struct.pack("=IHHII", 16 + len(body), kind, NLM_F_REQUEST | NLM_F_ACK, 1, 0) + body)
    while True:
        d = s.recv(65536)
        _, t, _, _, _ = struct.unpack("=IHHII", d[:16])
        if t == 2:  # NLMSG_ERROR: the ack, or a failure
            err = struct.unpack("=i", d[16:20])[0]
            if err:
                sys.exit(f"audit_ctl: netlink error {-err}")
            if kind == AUDIT_SET:
                return None
        elif t == AUDIT_GET:
            return dict(zip(FIELDS, struct.unpack("=8I", d[16:48])))


def main():
    if sys.argv[1:] == ["get"]:
        st = talk(AUDIT_GET)
        print(" ".join(f"{k}={st[k]}" for k in ("enabled", "lost", "rate_limit", "backlog_limit")))
    elif len(sys.argv) == 4 and sys.argv[1] == "set" and sys.argv[2] in MASK:
        vals = dict.fromkeys(FIELDS, 0)
        vals["mask"] = MASK[sys.argv[2]]
        vals[sys.argv[2]] = int(sys.argv[3])
        talk(AUDIT_SET, struct.pack("=8I", *(vals[f] for f in FIELDS)) + b"\0" * 12)
    else:
        sys.exit(__doc__)


main()
