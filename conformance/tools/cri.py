#!/usr/bin/python3
"""cri.py: the few CRI calls conformance/clients/containerd.sh makes to containerd's CRI plugin.

crictl is not packaged in Debian 12, so this speaks the CRI gRPC API (runtime.v1) itself, with
python3-grpcio. The messages involved are small, so they are encoded and decoded here by hand
rather than generated from api.proto (field numbers as in k8s.io/cri-api runtime/v1/api.proto).

  cri.py status SOCKET
      RuntimeService/Status with verbose=true; prints the "config" entry of its info map: the
      configuration the CRI plugin loaded (what `crictl info` shows).
  cri.py runp SOCKET HANDLER NAME CGROUP_PARENT [POLICY]
      RuntimeService/RunPodSandbox of a pod NAME with runtime handler HANDLER (a RuntimeClass's
      handler), host network (no CNI needed), its cgroups under CGROUP_PARENT, and with POLICY
      the pod annotation org.sharness.policy=POLICY; prints the sandbox id.
  cri.py create SOCKET HANDLER NAME CGROUP_PARENT POD_ID IMAGE CMD...
      RuntimeService/CreateContainer of a container NAME running CMD from IMAGE in the pod POD_ID
      (made by `runp` with the same HANDLER, NAME and CGROUP_PARENT); prints the container id.
  cri.py stopp SOCKET ID / cri.py rmp SOCKET ID / cri.py start SOCKET CONTAINER_ID /
  cri.py rm SOCKET CONTAINER_ID
      StopPodSandbox / RemovePodSandbox / StartContainer (the runtime's create and start) /
      RemoveContainer.

A failed call prints the error's details on stderr and exits 1.
"""
import sys

import grpc

SERVICE = "/runtime.v1.RuntimeService/"


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
            raise SystemExit(f"cri.py: unexpected protobuf wire type {wire}")
        yield number, value


def enc_varint(n):
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def field(number, value):
    """One field: an int as a varint, str/bytes (strings, nested messages) length-delimited."""
    if isinstance(value, int):
        return enc_varint(number << 3) + enc_varint(value)
    if isinstance(value, str):
        value = value.encode()
    return enc_varint(number << 3 | 2) + enc_varint(len(value)) + value


def map_entry(number, key, value):
    return field(number, field(1, key) + field(2, value))


def call(sock, method, request):
    channel = grpc.insecure_channel("unix://" + sock)
    try:
        return channel.unary_unary(SERVICE + method)(request, timeout=120)
    except grpc.RpcError as e:
        print(f"{method}: {e.code().name}: {e.details()}", file=sys.stderr)
        sys.exit(1)


def status(sock):
    # StatusRequest{verbose (1)}; StatusResponse{status (1), info (2): map<string, string>}
    for number, value in fields(call(sock, "Status", field(1, 1))):
        if number == 2:
            entry = dict(fields(value))
            if entry.get(1) == b"config":
                print(entry.get(2, b"").decode())
                return
    raise SystemExit("cri.py: the Status answer has no \"config\" entry")


def pod_config(name, cgroup_parent, policy=None):
    # PodSandboxMetadata{name 1, uid 2, namespace 3, attempt 4}
    meta = field(1, name) + field(2, name + "-uid") + field(3, "default")
    # NamespaceOption{network 1, pid 2, ipc 3}: NODE = 2 (host network: no CNI), CONTAINER = 1
    ns = field(1, 2) + field(2, 1)
    # LinuxPodSandboxConfig{cgroup_parent 1, security_context 2 {namespace_options 1}}
    linux = field(1, cgroup_parent) + field(2, field(1, ns))
    # PodSandboxConfig{metadata 1, annotations 7, linux 8} (no hostname: it shares the host's UTS)
    config = field(1, meta) + field(8, linux)
    if policy is not None:
        config += map_entry(7, "org.sharness.policy", policy)
    return config


def runp(sock, handler, name, cgroup_parent, policy=None):
    config = pod_config(name, cgroup_parent, policy)
    # RunPodSandboxRequest{config 1, runtime_handler 2}; the response: {pod_sandbox_id 1}
    answer = dict(fields(call(sock, "RunPodSandbox", field(1, config) + field(2, handler))))
    print(answer.get(1, b"").decode())


def create(sock, handler, name, cgroup_parent, pod_id, image, *cmd):
    del handler  # the container runs with its pod's handler
    # ContainerConfig{metadata 1 {name 1}, image 2 {image 1}, command 3, log_path 11}
    config = field(1, field(1, name)) + field(2, field(1, image))
    for word in cmd:
        config += field(3, word)
    config += field(11, name + ".log")
    # CreateContainerRequest{pod_sandbox_id 1, config 2, sandbox_config 3}; answer {container_id 1}
    request = field(1, pod_id) + field(2, config) + field(3, pod_config(name, cgroup_parent))
    answer = dict(fields(call(sock, "CreateContainer", request)))
    print(answer.get(1, b"").decode())


def main():
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "status":
        status(args[1])
    elif len(args) in (5, 6) and args[0] == "runp":
        runp(*args[1:])
    elif len(args) >= 8 and args[0] == "create":
        create(*args[1:])
    elif len(args) == 3 and args[0] in ("stopp", "rmp", "start", "rm"):
        method = {"stopp": "StopPodSandbox", "rmp": "RemovePodSandbox", "start": "StartContainer",
                  "rm": "RemoveContainer"}[args[0]]
        call(args[1], method, field(1, args[2]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
