#!/usr/bin/env python3
"""A fault-injecting HTTP proxy in front of an S3 endpoint (tests/core/tst_s3.cpp, docs/s3.md).

Forwards every request unchanged (the Host header included, so SigV4 signatures still verify at the
server) and answers 503 SlowDown, as S3 throttles, instead of forwarding the first --fail GET requests
of each object key listed by --match (substring). Prints "port N" once listening; the count of injected
503s is written to --count-file on every injection.

usage: s3-fault-proxy.py --upstream http://127.0.0.1:7481 --fail 1 --match train/ --count-file F
"""
import argparse
import http.client
import http.server
import sys
import threading
import urllib.parse

SLOWDOWN = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>'
            b'<Message>Please reduce your request rate.</Message></Error>')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--fail", type=int, default=1, help="503s per matching object before forwarding")
    ap.add_argument("--match", default="", help="inject only for paths containing this")
    ap.add_argument("--count-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()
    up = urllib.parse.urlparse(a.upstream)
    lock = threading.Lock()
    failed_per_path = {}
    injected = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def forward(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            path = self.path.split("?")[0]
            if self.command == "GET" and a.match in path:
                with lock:
                    n = failed_per_path.get(path, 0)
                    if n < a.fail:
                        failed_per_path[path] = n + 1
                        injected[0] += 1
                        with open(a.count_file, "w") as f:
                            f.write(str(injected[0]))
                        inject = True
                    else:
                        inject = False
                if inject:
                    self.send_response(503)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(SLOWDOWN)))
                    self.end_headers()
                    self.wfile.write(SLOWDOWN)
                    return
            conn = http.client.HTTPConnection(up.hostname, up.port, timeout=30)
            headers = {k: v for k, v in self.headers.items()}
            conn.request(self.command, self.path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            self.send_response(resp.status, resp.reason)
            for k, v in resp.getheaders():
                if k.lower() in ("transfer-encoding", "connection", "content-length"):
                    continue
                self.send_header(k, v)
            # HEAD answers carry the object's length, not the (empty) body's.
            length = resp.getheader("Content-Length") if self.command == "HEAD" else str(len(data))
            self.send_header("Content-Length", length or "0")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            conn.close()

        do_GET = do_PUT = do_HEAD = do_POST = do_DELETE = forward

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    print("port", srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
