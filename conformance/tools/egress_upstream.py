#!/usr/bin/python3
"""Test upstream servers for conformance/suites/egress_door.sh (run inside the test hosts' netns).

    egress_upstream.py SECRET LISTENER...      LISTENER = ADDR,PORT,CONNLOG[,CERT,KEY]

One thread per listener (HTTPS when CERT and KEY are given), each appending a line to CONNLOG for
every TCP connection it accepts, before any TLS: "the server saw no connection" is an empty file.
Paths:
  /ok..., /echo...  200, the request line and headers echoed in the body (Content-Length)
  /secret...        200 and the same echo when `Authorization: Bearer SECRET` came, else 401
  /split...         like /secret, but chunked, the secret cut across many small chunks
  /big?n=N          N bytes of 'x'
  ...?gzip          the echo (and the secret when authorised), Content-Encoding: gzip
  POST anything     200, "got N bytes: BODY"
"""
import gzip
import http.server
import socket
import ssl
import sys
import threading

SECRET = sys.argv[1]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def echo(self):
        return ("%s %s\n%s" % (self.command, self.path, str(self.headers))).encode()

    def send(self, code, body, extra=()):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def authorised(self):
        return self.headers.get("Authorization") == "Bearer " + SECRET

    def do_GET(self):
        p = self.path
        if p.endswith("?gzip"):
            gz = self.echo() + (b"secret=" + SECRET.encode() + b"\n" if self.authorised() else b"")
            self.send(200, gzip.compress(gz), [("Content-Encoding", "gzip")])
        elif p.startswith("/secret"):
            self.send(200 if self.authorised() else 401, self.echo() + b"secret=" + SECRET.encode() + b"\n")
        elif p.startswith("/split"):
            if not self.authorised():
                return self.send(401, b"no\n")
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            body = b"head " + SECRET.encode() + b" middle " + SECRET.encode() + b" tail\n"
            for i in range(0, len(body), 3):  # three bytes a chunk: every secret is cut
                piece = body[i:i + 3]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        elif p.startswith("/big"):
            n = int(p.split("n=")[1]) if "n=" in p else 100000
            self.send(200, b"x" * n)
        else:
            self.send(200, self.echo())

    do_HEAD = do_GET
    do_DELETE = do_GET

    def do_POST(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
        else:
            data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send(200, b"got %d bytes: %s\n" % (len(data), data))


def serve(addr, port, connlog, cert=None, key=None):
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    # One context per listener: its session tickets resume on the next connection (CONNLOG.tls
    # says, per TLS connection, whether it resumed), as a real server's do.
    ctx = None
    if cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)

    class Server(http.server.ThreadingHTTPServer):
        address_family = family
        daemon_threads = True

        def get_request(self):
            conn, peer = self.socket.accept()
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with open(connlog, "a") as f:
                f.write("connection from %s\n" % (peer[0],))
            if ctx:
                conn.settimeout(10)
                conn = ctx.wrap_socket(conn, server_side=True)
                with open(connlog + ".tls", "a") as f:
                    f.write("resumed\n" if conn.session_reused else "full\n")
            return conn, peer

    Server((addr, int(port)), Handler).serve_forever()


for spec in sys.argv[2:]:
    threading.Thread(target=serve, args=spec.split(","), daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
