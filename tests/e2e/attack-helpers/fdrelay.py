#!/usr/bin/env python3
"""Raw attacks on Fabric Broker's fd-passing relay wire (src/transport/socket/FastRelayWire.h),
for tests/e2e/launcher-attacks.test.mjs. Speaks to the per-user socket (or pretends to be it)
with sendmsg/recvmsg and SCM_RIGHTS, which Node cannot do. Every subcommand prints one JSON
object on stdout (what it saw) and exits 0 unless it could not run at all.

  fdrelay.py hello SOCK MODE [WAIT_S]     one malformed/odd hand-over, then report what came back
  fdrelay.py idle SOCK N HOLD_S           N connections that send nothing, held HOLD_S seconds
  fdrelay.py storm SOCK N                 N connect-and-close (half of them close mid-hello)
  fdrelay.py selfsock SOCK N PADDING      N hand-overs passing the connection's own socket, exit
  fdrelay.py served SOCK MODE WAIT PADDING [ARG...]  a hand-over of odd descriptors, as a launcher
  fdrelay.py sleepas SOCK SECONDS PADDING [ARG...]   sleep, looking like a launcher in /proc
  fdrelay.py execve PATH ARG0 [ARG...] -- [ENV...]   execve with exactly this envp (duplicates
                                          ok; an entry "hex:..." is raw bytes, e.g. not UTF-8)
  fdrelay.py impostor SOCK MODE [UID]     listen on SOCK (as UID), accept one relay, count bytes
                                          and fds, then answer with hostile control lines (MODE)
  fdrelay.py swap SOCK PADDING [ARG...] -- PATH ARG0 [ARG...]   hand over our stdio as a
                                          launcher, then execve PATH with SWAP_SET in the env
Needs: python3 (stdlib only), Linux.
"""
import ctypes
import json
import os
import select
import socket
import sys
import time

HELLO = b"\0fabric-broker fd-relay 1\n"


def masquerade(sock_path, extra):
    """Rewrites this process's argument area in memory (what setproctitle does; any process may
    do it to itself) so that /proc/<pid>/cmdline reads as `fabric-broker --stdio EXTRA...
    --socket=SOCK`: the app then takes this raw client for a launcher. The socket path is padded
    with extra slashes (the app cleans them) to fill the area exactly."""
    f = open("/proc/self/stat").read()
    fields = f[f.rindex(")") + 2:].split()
    arg_start, arg_end = int(fields[45]), int(fields[46])
    size = arg_end - arg_start
    d, b = os.path.dirname(sock_path), os.path.basename(sock_path)
    head = b"fabric-broker\0--stdio\0" + b"".join(a.encode() + b"\0" for a in extra) + b"--socket=" + d.encode()
    tail = b"/" + b.encode() + b"\0"
    pad = size - len(head) - len(tail)
    if pad < 0:
        raise SystemExit("argument area too small: pass a longer padding argument")
    data = head + b"/" * pad + tail
    ctypes.memmove(arg_start, data, len(data))


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def drain(s, wait):
    """Everything the peer sends within wait seconds, and whether it closed."""
    s.setblocking(False)
    data = b""
    closed = False
    deadline = time.time() + wait
    while time.time() < deadline:
        r, _, _ = select.select([s], [], [], max(0.0, deadline - time.time()))
        if not r:
            break
        try:
            chunk = s.recv(65536)
        except BlockingIOError:
            continue
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        data += chunk
    return data, closed


def send_fds(s, data, fds):
    if fds:
        return socket.send_fds(s, [data], fds)
    return s.send(data)


def cmd_hello(path, mode, wait):
    s = connect(path)
    keep = []  # descriptors we made, closed at the end
    r_pipe, w_pipe = os.pipe()
    keep += [r_pipe, w_pipe]
    if mode == "nofd":
        send_fds(s, HELLO, [])
    elif mode == "onefd":
        send_fds(s, HELLO, [r_pipe])
    elif mode == "threefd":
        send_fds(s, HELLO, [r_pipe, w_pipe, r_pipe])
    elif mode == "manyfd":
        send_fds(s, HELLO, [r_pipe] * 8)
    elif mode == "dir":
        d = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
        keep.append(d)
        send_fds(s, HELLO, [d, w_pipe])
    elif mode == "eventfd":
        e = os.eventfd(0)
        keep.append(e)
        send_fds(s, HELLO, [e, e])
    elif mode == "epoll":
        import select as sel
        ep = sel.epoll()
        send_fds(s, HELLO, [ep.fileno(), w_pipe])
    elif mode == "badmarker":
        send_fds(s, b"\0fabric-broker fd-relay 2\n", [r_pipe, w_pipe])
    elif mode == "split":
        send_fds(s, HELLO[:10], [r_pipe, w_pipe])
        time.sleep(0.2)
        try:
            s.send(HELLO[10:])
        except OSError:
            pass  # already closed by the app
    elif mode == "split-fds-later":
        s.send(HELLO[:10])
        time.sleep(0.2)
        try:
            send_fds(s, HELLO[10:], [r_pipe, w_pipe])
        except OSError:
            pass
    elif mode == "plus-mcp":
        send_fds(s, HELLO + b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n', [r_pipe, w_pipe])
    elif mode == "twice":
        send_fds(s, HELLO + b"", [r_pipe, w_pipe])
        try:
            send_fds(s, HELLO, [r_pipe, w_pipe])
        except OSError:
            pass  # the app already answered and closed
    else:
        raise SystemExit("unknown mode " + mode)
    data, closed = drain(s, wait)
    s.close()
    for f in keep:
        try:
            os.close(f)
        except OSError:
            pass
    out({"mode": mode, "received": data.decode("utf-8", "replace"), "closed": closed})


def cmd_idle(path, n, hold):
    socks = []
    refused = 0
    for _ in range(n):
        try:
            socks.append(connect(path))
        except OSError:
            refused += 1
    time.sleep(hold)
    closed_by_app = 0
    for s in socks:
        _, closed = drain(s, 0.01)
        closed_by_app += 1 if closed else 0
        s.close()
    out({"connected": len(socks), "refused": refused, "closedByApp": closed_by_app})


def cmd_storm(path, n):
    errors = 0
    for i in range(n):
        try:
            s = connect(path)
            if i % 2:
                s.send(HELLO[:5])
            s.close()
        except OSError:
            errors += 1
    out({"storm": n, "errors": errors})


def cmd_selfsock(path, n):
    """Hands over the connection's own client end as stdin and stdout, then lets go of it: only
    the app holds it then, so only the app can ever end that session. Masquerades as a launcher
    first, so that the app serves these sessions (see masquerade)."""
    masquerade(path, [])
    answers = []
    for _ in range(n):
        s = connect(path)
        socket.send_fds(s, [HELLO], [s.fileno(), s.fileno()])
        data, _ = drain(s, 0.05)
        answers.append(data.decode("utf-8", "replace")[:200])
        s.close()
    out({"selfsock": n, "answers": answers})


def cmd_served(path, mode, wait, extra):
    """Masquerades as a launcher (see masquerade) and hands over odd but well-typed descriptors:
    the app accepts the hello and serves (or refuses) a session on them. Reports the control
    lines it got back; the descriptors are closed on our side before we exit."""
    masquerade(path, extra)
    s = connect(path)
    keep = []
    if mode == "pipes":
        r, w = os.pipe()
        keep += [r, w]
        fds = [r, w]
    elif mode == "selfsock":
        fds = [s.fileno(), s.fileno()]
    elif mode == "devzero":
        z = os.open("/dev/zero", os.O_RDONLY)
        n = os.open("/dev/null", os.O_WRONLY)
        keep += [z, n]
        fds = [z, n]
    elif mode == "opath":
        a = os.open("/etc/hostname", os.O_PATH)
        keep += [a]
        fds = [a, a]
    elif mode == "opath-fifo":
        r, w = os.pipe()
        a = os.open("/proc/self/fd/%d" % r, os.O_PATH)
        b = os.open("/proc/self/fd/%d" % w, os.O_PATH)
        keep += [r, w, a, b]
        fds = [a, b]
    elif mode == "looppipe":
        # the session's output is its own input: whatever it answers, it reads back
        r, w = os.pipe()
        os.write(w, b'x\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","method":"nope","id":2}\n')
        keep += [r, w]
        fds = [r, w]
    elif mode == "memfd":
        m = os.memfd_create("in")
        os.write(m, b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        os.lseek(m, 0, 0)
        o = os.memfd_create("out")
        keep += [m, o]
        fds = [m, o]
    else:
        raise SystemExit("unknown mode " + mode)
    socket.send_fds(s, [HELLO], fds)
    data, closed = drain(s, wait)
    for f in keep:
        os.close(f)
    s.close()
    out({"mode": mode, "received": data.decode("utf-8", "replace"), "closed": closed})


def cmd_execve(args):
    sep = args.index("--")
    path, argv, envp = args[0], args[1:sep], args[sep + 1:]
    libc = ctypes.CDLL(None, use_errno=True)
    arr_t = ctypes.c_char_p * (len(argv) + 1)
    env_t = ctypes.c_char_p * (len(envp) + 1)
    c_argv = arr_t(*[a.encode("utf-8", "surrogateescape") for a in argv], None)
    # "hex:..." entries are raw bytes (e.g. not UTF-8)
    raw = [bytes.fromhex(e[4:]) if e.startswith("hex:") else e.encode("utf-8", "surrogateescape") for e in envp]
    c_envp = env_t(*raw, None)
    libc.execve(path.encode(), c_argv, c_envp)
    raise SystemExit("execve failed: " + os.strerror(ctypes.get_errno()))


def cmd_swap(path, rest):
    """Looks like `fabric-broker --stdio EXTRA...` (masquerade), hands our own stdin/stdout to the
    app, then at once execve()s PROG with SWAP_SET=NAME=VALUE added to the environment (the
    connection stays open across the exec). The app decides from /proc/<pid>, before or after
    the exec: whatever it reads there must never widen what the instance serves."""
    sep = rest.index("--")
    extra, prog, argv = rest[1:sep], rest[sep + 1], rest[sep + 1:]
    masquerade(path, extra)
    s = connect(path)
    os.set_inheritable(s.fileno(), True)
    env = dict(os.environ)
    name, _, value = os.environ.get("SWAP_SET", "EQUINIX_MCP_TOOLSETS=read,mutate").partition("=")
    env[name] = value
    socket.send_fds(s, [HELLO], [0, 1])
    os.execve(prog, argv, env)


def cmd_impostor(path, mode, uid):
    """A listener at the relay's socket path. It reports, on stdout, what one connection sent:
    bytes and descriptors. Then, depending on MODE, it answers with hostile control lines."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if uid is not None:
        os.setgid(uid)
        os.setuid(uid)
    srv.bind(path)
    srv.listen(4)
    out({"listening": path, "uid": os.getuid()})
    srv.settimeout(float(os.environ.get("ACCEPT_S", "20")))
    try:
        c, _ = srv.accept()
    except socket.timeout:
        out({"accepted": False})
        return
    total = b""
    fds = []
    c.settimeout(1.0)
    try:
        while True:
            msg, got, _flags, _addr = socket.recv_fds(c, 4096, 8)
            fds += got
            if not msg:
                break
            total += msg
            if total.endswith(b"\n") and total.startswith(b"\0"):
                break
    except socket.timeout:
        pass
    kinds = []
    for f in fds:
        st = os.fstat(f)
        import stat as st_mod
        kinds.append("fifo" if st_mod.S_ISFIFO(st.st_mode) else "sock" if st_mod.S_ISSOCK(st.st_mode) else "chr" if st_mod.S_ISCHR(st.st_mode) else "other")
    out({"accepted": True, "bytes": len(total), "hello": total.startswith(HELLO), "fds": len(fds), "kinds": kinds})
    c.settimeout(None)
    try:
        if mode == "exit999":
            c.sendall(b"ok\nexit 999\n")
        elif mode == "exitneg":
            c.sendall(b"ok\nexit -1\n")
        elif mode == "exitjunk":
            c.sendall(b"ok\nexit 3x\n")
        elif mode == "exit42":
            c.sendall(b"ok\nexit 42\n")
        elif mode == "bigstderr":
            c.sendall(b"stderr " + b"A" * (1024 * 1024) + b"\n")
        elif mode == "nonewline":
            # a long line that never ends, until the launcher gives up (or we do, after 8 s)
            deadline = time.time() + 8
            c.settimeout(0.5)
            while time.time() < deadline:
                try:
                    c.send(b"B" * 4096)
                except (socket.timeout, BlockingIOError):
                    pass
                except OSError:
                    break
        elif mode == "execafterok":
            c.sendall(b"ok\nexec\n")
            time.sleep(1.0)
            c.sendall(b"exit 5\n")
        elif mode == "exec":
            # keeps the stdio it was given (a same-user impostor can): the launcher runs the app
            c.sendall(b"exec\n")
        elif mode == "garbage":
            c.sendall(b"hello there\n")
        elif mode == "silent":
            time.sleep(3)
        # wait until the launcher hangs up (bounded)
        c.settimeout(5)
        try:
            while c.recv(4096):
                pass
        except OSError:
            pass
        out({"done": mode})
    except OSError as e:
        out({"done": mode, "error": str(e)})
    for f in fds:
        os.close(f)


def main():
    a = sys.argv[1:]
    if not a:
        raise SystemExit(__doc__)
    cmd = a[0]
    if cmd == "hello":
        cmd_hello(a[1], a[2], float(a[3]) if len(a) > 3 else 1.0)
    elif cmd == "idle":
        cmd_idle(a[1], int(a[2]), float(a[3]))
    elif cmd == "storm":
        cmd_storm(a[1], int(a[2]))
    elif cmd == "selfsock":
        cmd_selfsock(a[1], int(a[2]))
    elif cmd == "served":
        # served SOCK MODE WAIT PADDING [EXTRA-ARG...]: PADDING only makes the argument area big
        cmd_served(a[1], a[2], float(a[3]), a[5:])
    elif cmd == "sleepas":
        # sleepas SOCK SECONDS PADDING [EXTRA-ARG...]: a process whose /proc/<pid>/cmdline reads
        # as a launcher's (`fabric-broker --stdio EXTRA... --socket=SOCK`) and that only sleeps
        masquerade(a[1], a[4:])
        time.sleep(float(a[2]))
    elif cmd == "execve":
        cmd_execve(a[1:])
    elif cmd == "swap":
        cmd_swap(a[1], a[2:])
    elif cmd == "impostor":
        cmd_impostor(a[1], a[2], int(a[3]) if len(a) > 3 else None)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
