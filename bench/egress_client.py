#!/usr/bin/python3
"""egress_client.py door|direct N URL CAFILE PORT|ADDR: N HTTPS GETs of URL, each on a new
connection (a new TLS handshake, as a fresh client makes): `door` through the proxy on
127.0.0.1:PORT (CONNECT, then TLS to the door), `direct` to ADDR:443; prints one line per request:
wall microseconds. TCP_NODELAY, as browsers and curl set it: without it a small write waits
for the peer's delayed ACK (40 ms). Used by bench/egress.sh, which runs it
in the container's network namespace (through the door) or in the bench's own (direct)."""
import socket, ssl, sys, time, urllib.parse

mode, n, url, cafile = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
u = urllib.parse.urlsplit(url)
ctx = ssl.create_default_context(cafile=cafile)
ctx.options |= ssl.OP_NO_TICKET  # no resumption: every request pays its handshake, as a new client does
req = ("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (u.path or "/", u.hostname)).encode()
for _ in range(n):
    t0 = time.perf_counter_ns()
    if mode == "door":
        s = socket.create_connection(("127.0.0.1", int(sys.argv[5])))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(("CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n" % (u.hostname, u.hostname)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
        if b" 200" not in head.split(b"\r\n")[0]:
            sys.exit("CONNECT refused: %r" % head[:80])
    else:
        s = socket.create_connection((sys.argv[5], 443))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    t = ctx.wrap_socket(s, server_hostname=u.hostname)
    t.sendall(req)
    body = b""
    while True:
        c = t.recv(65536)
        if not c:
            break
        body += c
    t.close()
    if b" 200 " not in body.split(b"\r\n")[0]:
        sys.exit("not 200: %r" % body[:80])
    print((time.perf_counter_ns() - t0) // 1000)
