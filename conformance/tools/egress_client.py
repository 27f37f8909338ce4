#!/usr/bin/python3
"""Hand-made clients of the egress door, for what curl will not send (conformance/suites/egress_door.sh).

    egress_client.py tls PROXY_PORT CONNECT_TARGET SNI HOST PATH CAFILE
        CONNECT to CONNECT_TARGET, then TLS with SNI (verifying the door's leaf for SNI against
        CAFILE), then `GET PATH` with `Host: HOST`. Prints the CONNECT answer's status line, then
        the request's status line, or "tls refused: ..." when the handshake fails.
    egress_client.py raw PROXY_PORT TEXT
        TEXT (with \\r\\n written as such) sent as it is; prints the first line of the answer.
    egress_client.py urllib PROXY_PORT URL CAFILE [HEADER=VALUE...]
        Python's urllib through the door (HTTPS_PROXY/HTTP_PROXY); prints the status and body.
"""
import os
import socket
import ssl
import sys
import urllib.request


def first_line(data):
    return data.split(b"\r\n", 1)[0].decode(errors="replace")


def read_head(s):
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            got = s.recv(65536)
        except ConnectionResetError:
            return data or b"reset"
        if not got:
            break
        data += got
    return data


mode, port = sys.argv[1], int(sys.argv[2])
if mode == "tls":
    target, sni, host, path, cafile = sys.argv[3:8]
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target.encode(), target.encode()))
    print(first_line(read_head(s)))
    ctx = ssl.create_default_context(cafile=cafile)
    try:
        t = ctx.wrap_socket(s, server_hostname=sni)
    except (ssl.SSLError, OSError) as e:
        print("tls refused: %s" % e)
        sys.exit(0)
    t.sendall(b"GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path.encode(), host.encode()))
    print(first_line(read_head(t)))
elif mode == "raw":
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(sys.argv[3].encode().replace(b"\\r\\n", b"\r\n"))
    print(first_line(read_head(s)))
elif mode == "urllib":
    url, cafile = sys.argv[3:5]
    proxy = "http://127.0.0.1:%d" % port
    opener = urllib.request.build_opener(
        urllib.request.ProxyHandler({"https": proxy, "http": proxy}),
        urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=cafile)))
    req = urllib.request.Request(url, headers=dict(h.split("=", 1) for h in sys.argv[5:]))
    try:
        r = opener.open(req, timeout=20)
        print(r.status)
        sys.stdout.write(r.read().decode(errors="replace"))
    except urllib.error.HTTPError as e:
        print(e.code)
        sys.stdout.write(e.read().decode(errors="replace"))
