#!/usr/bin/python3
"""A tiny authoritative DNS server for conformance/suites/egress_door.sh (UDP only).

    egress_dns.py ADDR NAME=IP[,IP...]...

Answers A and AAAA queries for the names given (IPv4 addresses as A, IPv6 as AAAA), NXDOMAIN for
any other name, and prints "ready" once it listens.
"""
import ipaddress
import socket
import struct
import sys

records = {}
for spec in sys.argv[2:]:
    name, ips = spec.split("=")
    records[name.lower()] = [ipaddress.ip_address(i) for i in ips.split(",")]

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 53))
print("ready", flush=True)
while True:
    q, peer = s.recvfrom(512)
    qid, flags, qd = struct.unpack("!HHH", q[:6])
    at, labels = 12, []
    while q[at]:
        labels.append(q[at + 1:at + 1 + q[at]].decode())
        at += 1 + q[at]
    qtype = struct.unpack("!H", q[at + 1:at + 3])[0]
    question = q[12:at + 5]
    name = ".".join(labels).lower()
    want = 1 if qtype == 1 else 28 if qtype == 28 else None
    answers = [ip for ip in records.get(name, []) if want and (ip.version == 4) == (want == 1)]
    rcode = 0 if name in records else 3
    out = struct.pack("!HHHHHH", qid, 0x8400 | rcode, 1, len(answers), 0, 0) + question
    for ip in answers:
        out += struct.pack("!HHHIH", 0xC00C, want, 1, 60, len(ip.packed)) + ip.packed
    s.sendto(out, peer)
