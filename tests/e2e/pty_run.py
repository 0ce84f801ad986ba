#!/usr/bin/env python3
# Runs one command on a pseudo-terminal of its own, as a person at a terminal does (for
# team-terminal.test.mjs, issue #37): the terminal is the command's controlling terminal (its
# /dev/tty), its stdin, stdout and stderr. Reads everything the command writes; types each answer
# once its prompt has shown (a person reads before typing); optionally types something at once,
# before anything was shown (type-ahead). Prints one JSON object: {"exit", "output", "timedOut"}.
#
# Usage: pty_run.py SPEC, where SPEC is JSON: {"argv": [...], "env": {...},
#   "answers": [{"after": "regex", "type": "text"}], "typeahead": "text", "timeout": seconds}
import json
import os
import pty
import re
import select
import signal
import sys
import time

spec = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    try:
        os.execvpe(spec["argv"][0], spec["argv"], spec["env"])
    finally:
        os._exit(127)

answers = list(spec.get("answers", []))
if spec.get("typeahead"):
    os.write(fd, spec["typeahead"].encode())
deadline = time.monotonic() + spec.get("timeout", 60)
out = b""
seen = 0  # where the next prompt is looked for
timed_out = False
while True:
    left = deadline - time.monotonic()
    if left <= 0:
        timed_out = True
        os.kill(pid, signal.SIGKILL)
        break
    ready, _, _ = select.select([fd], [], [], min(left, 0.5))
    if not ready:
        continue
    try:
        data = os.read(fd, 65536)
    except OSError:  # EIO: the command closed the terminal (it exited)
        break
    if not data:
        break
    out += data
    if answers:
        m = re.search(answers[0]["after"].encode(), out[seen:])
        if m:
            seen += m.end()
            os.write(fd, answers.pop(0)["type"].encode() + b"\r")
_, status = os.waitpid(pid, 0)
print(json.dumps({
    "exit": os.waitstatus_to_exitcode(status),
    "output": out.decode("utf-8", "replace"),
    "timedOut": timed_out,
}))
