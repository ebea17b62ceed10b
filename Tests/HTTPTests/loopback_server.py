#!/usr/bin/env python3
"""Loopback HTTP(S) server for the HTTP module's tests (Python 3 standard library only).

Usage: loopback_server.py [--tls CERT KEY]

Listens on 127.0.0.1 on a free port and prints two lines, then serves until its stdin is closed
(so it never outlives the test process that started it):
    PORT <listening port>
    CLOSED <a port that was free a moment ago and has nothing listening>

Routes (any method; a request body is always read by its Content-Length):
    /echo...              200, JSON {"method", "path", "headers": [[name, value], ...], "body_b64"}
    /status/<code>?header=Name:Value&...&body=text
                          that status with those headers (in order) and body
    /sleep/<ms>           sleeps, then 200 "slept <ms>"
    /drop                 closes the connection without responding
    /partial              announces Content-Length 100, sends 10 bytes, closes
    /continue             an unsolicited "100 Continue" (with a header), then 200 with padded and repeated headers
    /stats                200, JSON {"connections": accepted TCP connections, "max_active": most requests
                          handled at the same time}
"""

import base64
import json
import os
import socket
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
connections = 0
active = 0
max_active = 0


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # the default backlog of 5 drops simultaneous connects (1 s SYN retry)

    def get_request(self):
        request = super().get_request()
        global connections
        with lock:
            connections += 1
        return request

    def handle_error(self, request, client_address):
        pass  # clients that time out or drop connections are part of the tests


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.route()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    def reply(self, status, headers, body):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def route(self):
        global active, max_active
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length > 0 else b""
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        with lock:
            active += 1
            max_active = max(max_active, active)
        try:
            self.dispatch(url.path, query, body)
        finally:
            with lock:
                active -= 1

    def dispatch(self, path, query, body):
        if path.startswith("/echo"):
            payload = {
                "method": self.command,
                "path": self.path,
                "headers": [[name, value] for name, value in self.headers.items()],
                "body_b64": base64.b64encode(body).decode("ascii"),
            }
            self.reply(200, [("Content-Type", "application/json")], json.dumps(payload).encode())
        elif path.startswith("/status/"):
            status = int(path[len("/status/"):])
            headers = [tuple(h.split(":", 1)) for h in query.get("header", [])]
            text = query.get("body", [""])[0].encode()
            self.reply(status, headers, text)
        elif path.startswith("/sleep/"):
            ms = int(path[len("/sleep/"):])
            time.sleep(ms / 1000)
            self.reply(200, [("Content-Type", "text/plain")], b"slept %d" % ms)
        elif path == "/drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif path == "/partial":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif path == "/continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n")
            self.reply(200, [("X-Final", "yes"), ("X-Pad", " \t padded value \t "), ("X-Twice", "one"),
                             ("X-Twice", "two")], b"final")
        elif path == "/stats":
            with lock:
                payload = {"connections": connections, "max_active": max_active}
            self.reply(200, [("Content-Type", "application/json")], json.dumps(payload).encode())
        else:
            self.reply(404, [("Content-Type", "text/plain")], b"no route " + path.encode())


# A port that refuses connections for as long as this server runs: bound but never listening. Binding and
# closing at once (as this once did) let a test running in parallel take the port, and the "refused" request
# then reached that test's server.
HELD_CLOSED = []


def closed_port():
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.bind(("127.0.0.1", 0))
    HELD_CLOSED.append(probe)
    return probe.getsockname()[1]


def exit_when_stdin_closes():
    try:
        while sys.stdin.buffer.read(1024):
            pass
    finally:
        os._exit(0)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    elif len(sys.argv) != 1:
        sys.exit("usage: loopback_server.py [--tls CERT KEY]")
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    print("PORT %d" % server.server_address[1])
    print("CLOSED %d" % closed_port(), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
