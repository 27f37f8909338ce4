#!/usr/bin/python3
"""cri-status.py SOCKET: print the configuration a running containerd's CRI plugin loaded.

What `crictl info` shows (crictl is not packaged in Debian 12): the CRI call
runtime.v1.RuntimeService/Status with verbose=true answers with a map whose "config" entry is
the CRI plugin's live configuration as JSON. Used by conformance/clients/containerd.sh to check
that containerd loaded our runtime handler. Needs python3-grpcio only: the two messages involved
are tiny, so they are encoded and decoded here by hand rather than generated from the .proto.
Exits non-zero if the call fails or the answer has no "config" entry.
"""
import sys

import grpc


def varint(buf, i):
    value = shift = 0
    while True:
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def fields(buf):
    """Yield (field number, value) of a protobuf message: varints and length-delimited only."""
    i = 0
    while i < len(buf):
        tag, i = varint(buf, i)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            value = buf[i:i + n]
            i += n
        else:
            raise SystemExit(f"cri-status: unexpected protobuf wire type {wire}")
        yield number, value


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: cri-status.py CONTAINERD_SOCKET")
    channel = grpc.insecure_channel("unix://" + sys.argv[1])
    status = channel.unary_unary("/runtime.v1.RuntimeService/Status")
    # StatusRequest{verbose (1) = true}
    answer = status(b"\x08\x01", timeout=20)
    # StatusResponse{status (1), info (2): map<string, string>, one entry message per pair}
    for number, value in fields(answer):
        if number == 2:
            entry = dict(fields(value))
            if entry.get(1) == b"config":
                print(entry.get(2, b"").decode())
                return
    raise SystemExit("cri-status: the Status answer has no \"config\" entry")


if __name__ == "__main__":
    main()
