#!/usr/bin/python3
"""egress_test_hosts: the test hosts of conformance/suites/egress.sh, run in the suite's upstream
network namespace. Each --listen ADDR PORT [CERT KEY] is one server (TLS when a certificate is
given). Every accepted connection and every request is a line in --log, so a case can show that
nothing reached a host. Paths:
  /check  200 "authorized" when Authorization is "Bearer <a --secret>", else 401 "unauthorized"
  /echo   200, the request's headers as the body (the door must scrub an injected credential)
  /big    200, 65536 bytes of "x"
  other   200 "hello from ADDR:PORT PATH"
Writes --ready once every server listens."""
import argparse, http.server, socket, socketserver, ssl, threading

ap = argparse.ArgumentParser()
ap.add_argument("--log", required=True)
ap.add_argument("--ready", required=True)
ap.add_argument("--secret", action="append", required=True)
ap.add_argument("--listen", nargs="+", action="append", required=True)
args = ap.parse_args()
lock = threading.Lock()


def record(line):
    with lock, open(args.log, "a") as f:
        f.write(line + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        where = "%s:%d" % self.server.server_address[:2]
        auth = self.headers.get("Authorization", "")
        record("req %s %s %s host=%s auth=%s" % (where, self.command, self.path, self.headers.get("Host", ""), auth))
        status, body = 200, ("hello from %s %s\n" % (where, self.path)).encode()
        if self.path == "/check":
            ok = any(auth == "Bearer " + s for s in args.secret)
            status, body = (200, b"authorized\n") if ok else (401, b"unauthorized\n")
        elif self.path == "/echo":
            body = "".join("%s: %s\n" % kv for kv in self.headers.items()).encode()
        elif self.path == "/big":
            body = b"x" * 65536
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_POST = do_HEAD = do_GET


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def server_bind(self):  # HTTPServer's would ask DNS for our name (getfqdn): there is none here
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "upstream", self.server_address[1]

    def get_request(self):
        conn, peer = self.socket.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as web servers do: no Nagle wait between head and body
        record("conn %s:%d from %s" % (self.server_address[0], self.server_address[1], peer[0]))
        return conn, peer


servers = []
for spec in args.listen:
    addr, port = spec[0], int(spec[1])
    s = Server((addr, port), Handler)
    if len(spec) == 4:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(spec[2], spec[3])
        # The handshake runs in the request's thread (not in accept), so one bad client never stalls the rest.
        s.socket = ctx.wrap_socket(s.socket, server_side=True, do_handshake_on_connect=False)
    servers.append(s)
    threading.Thread(target=s.serve_forever, daemon=True).start()
with open(args.ready, "w") as f:
    f.write("ready\n")
threading.Event().wait()
