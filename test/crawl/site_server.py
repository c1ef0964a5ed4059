#!/usr/bin/env python3
"""Test-only static web server for the crawl tests: serves ROOT on 127.0.0.1 (port 0 =
any free port, printed as the first line of stdout), answers the paths listed in
ROOT/redirects.txt ("PATH TARGET" lines) with 301 to TARGET, everything else as files
(404 when missing). Usage: site_server.py ROOT"""
import http.server
import os
import sys

root = sys.argv[1]
redirects = {}
with open(os.path.join(root, "redirects.txt")) as f:
    for line in f:
        if line.strip():
            path, target = line.split()
            redirects[path] = target


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=root, **kwargs)

    def do_GET(self):
        if self.path in redirects:
            self.send_response(301)
            self.send_header("Location", redirects[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
