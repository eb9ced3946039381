#!/usr/bin/env python3
"""wrong_peer.py PORT MODE SECONDS: a service on a training group's master port that is not a
Saccade rank 0. MODE: ff (64 bytes of 0xff), random (64 random bytes), silent (accepts, never
answers) or http (answers like a web server). Runs for SECONDS, then exits."""
import os
import socket
import sys
import time

port, mode, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(16)
server.settimeout(0.5)
print("listening", flush=True)
held = []  # a silent peer keeps its connections open
end = time.time() + seconds
while time.time() < end:
    try:
        conn, _ = server.accept()
    except socket.timeout:
        continue
    held.append(conn)
    if mode == "ff":
        conn.sendall(b"\xff" * 64)
    elif mode == "random":
        conn.sendall(os.urandom(64))
    elif mode == "http":
        conn.settimeout(0.5)
        try:
            conn.recv(4096)
        except OSError:
            pass
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        conn.close()
