#!/usr/bin/env python3
"""Host side of the guest -> host request channel (see Documentation/rig.md).

    host-agent.py REQUEST_DIR MONITOR_SOCKET

The guest writes REQUEST_DIR/<id>.req (through the writable 9p share); the
file holds one request per line.  We answer each by running QEMU monitor
(HMP) commands over MONITOR_SOCKET, then write REQUEST_DIR/<id>.done with
the monitor output (or "error: ...").  Known requests:

    nmi [N]      inject N (default 1) NMIs, 20 ms apart (HMP `nmi`).  QEMU
                 raises LINT1 on every vCPU, but Linux unmasks LINT1 only on
                 the boot CPU: the guest sees them on CPU 0 alone.

Runs until the monitor socket closes (QEMU exited) or it is killed.
"""
import os
import socket
import sys
import time

ALLOWED = {"nmi"}


def hmp(sock, cmd):
    sock.sendall(cmd.encode() + b"\n")
    return read_prompt(sock)


def read_prompt(sock):
    buf = b""
    while not buf.endswith(b"(qemu) "):
        chunk = sock.recv(4096)
        if not chunk:
            raise EOFError("monitor closed")
        buf += chunk
    return buf.decode(errors="replace")


def connect(path, deadline):
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            read_prompt(s)  # banner + first prompt
            return s
        except (FileNotFoundError, ConnectionRefusedError):
            if time.time() > deadline:
                raise
            time.sleep(0.1)


def handle(sock, text):
    out = []
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] not in ALLOWED:
            out.append("error: request %r not allowed" % words[0])
            continue
        n = int(words[1]) if len(words) > 1 else 1
        for i in range(max(1, min(n, 1000))):
            if i:
                time.sleep(0.02)  # NMIs sent back to back would merge
            hmp(sock, "nmi")
        out.append("ok: nmi x%d" % n)
    return "\n".join(out) + "\n"


def main():
    reqdir, sockpath = sys.argv[1], sys.argv[2]
    os.makedirs(reqdir, exist_ok=True)
    sock = connect(sockpath, time.time() + 30)
    while True:
        for name in sorted(os.listdir(reqdir)):
            if not name.endswith(".req"):
                continue
            path = os.path.join(reqdir, name)
            try:
                with open(path) as f:
                    text = f.read()
                reply = handle(sock, text)
            except EOFError:
                return
            except Exception as e:  # keep serving: the guest waits on .done
                reply = "error: %s\n" % e
            done = path[:-4] + ".done"
            with open(done + ".tmp", "w") as f:
                f.write(reply)
            os.rename(done + ".tmp", done)
            os.unlink(path)
        time.sleep(0.05)


if __name__ == "__main__":
    try:
        main()
    except (EOFError, BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
        pass
