# policy learn (conformance/suites/learn.sh): a job that binds a TCP port on loopback and connects
# to it, so the run binds and connects exactly one port (argv[1]).
import socket
import sys

port = int(sys.argv[1])
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", port))
srv.listen(1)
cli = socket.create_connection(("127.0.0.1", port))
conn, _ = srv.accept()
cli.sendall(b"ping")
print("got", conn.recv(4).decode())
