#!/usr/bin/env python3
# A loopback OTLP/HTTP receiver for bench/run's "export on" server: answers every POST with 200
# and {} (what a collector that accepts everything says), counts what it received, and prints its
# port on the first line. Usage: otlp-sink.py COUNT_FILE. Needs python3 only.
import http.server
import sys
import threading

count_file = sys.argv[1]
received = {'requests': 0, 'bytes': 0}
lock = threading.Lock()


class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_POST(self):
        n = int(self.headers.get('content-length', 0))
        body = self.rfile.read(n)
        with lock:
            received['requests'] += 1
            received['bytes'] += len(body)
            with open(count_file, 'w') as f:
                f.write(f"{received['requests']} {received['bytes']}\n")
        self.send_response(200)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', '2')
        self.end_headers()
        self.wfile.write(b'{}')

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Sink)
print(server.server_address[1], flush=True)
server.serve_forever()
