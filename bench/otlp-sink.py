#!/usr/bin/env python3
# A loopback OTLP/HTTP receiver for bench/run's "export on" server: answers every POST with 200
# and {} (what a collector that accepts everything says), counts what it received, and prints its
# port on the first line. Usage: otlp-sink.py COUNT_FILE. Needs python3 only.
#
# It shares the benchmark's two cores with the client and the broker, so it does as little as a
# receiver can: one thread, non-blocking sockets, a body read into one buffer and thrown away, the
# count file rewritten in place. (http.server's thread per connection, header parsing and
# buffered reads cost more CPU per export than the broker's own serialization of the batch, and
# that time was taken from the calls being measured.)
import os
import selectors
import socket
import sys

count_file = sys.argv[1]
requests = 0
received = 0
count_fd = os.open(count_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)


def record(nbytes):
    global requests, received
    requests += 1
    received += nbytes
    line = f'{requests} {received}\n'.encode()
    os.pwrite(count_fd, line, 0)
    os.ftruncate(count_fd, len(line))


RESPONSE = (b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n'
            b'content-length: 2\r\n\r\n{}')
MAX_HEADER = 64 * 1024


class Connection:
    def __init__(self, sock):
        self.sock = sock
        self.buffer = bytearray()
        self.body_left = -1  # bytes of the current body still to come; -1 = reading a header
        self.body_size = 0

    def readable(self):
        try:
            chunk = self.sock.recv(1 << 20)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not chunk:
            return False
        self.buffer += chunk
        while True:
            if self.body_left < 0:
                end = self.buffer.find(b'\r\n\r\n')
                if end < 0:
                    return len(self.buffer) <= MAX_HEADER
                length = 0
                for line in bytes(self.buffer[:end]).split(b'\r\n')[1:]:
                    name, _, value = line.partition(b':')
                    if name.strip().lower() == b'content-length':
                        length = int(value.strip())
                del self.buffer[:end + 4]
                self.body_left = self.body_size = length
            take = min(self.body_left, len(self.buffer))
            del self.buffer[:take]
            self.body_left -= take
            if self.body_left > 0:
                return True
            record(self.body_size)
            self.body_left = -1
            try:
                self.sock.sendall(RESPONSE)
            except OSError:
                return False
            if not self.buffer:
                return True


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(('127.0.0.1', 0))
listener.listen(64)
listener.setblocking(False)
print(listener.getsockname()[1], flush=True)
os.pwrite(count_fd, b'0 0\n', 0)
selector = selectors.DefaultSelector()
selector.register(listener, selectors.EVENT_READ, None)
while True:
    for key, _ in selector.select():
        if key.data is None:
            try:
                sock, _ = listener.accept()
            except BlockingIOError:
                continue
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, Connection(sock))
        elif not key.data.readable():
            selector.unregister(key.fileobj)
            key.fileobj.close()
