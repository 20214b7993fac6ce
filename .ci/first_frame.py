"""first_frame.py MARKER COMMAND... — start COMMAND in a 120x40 pseudo-terminal, answer the
terminal queries a real terminal answers, and print how long it took until MARKER appeared on
the screen (escape sequences removed). Exit 1 if it never did within 10 s. With IDLE=SECONDS it
then leaves the program alone that long, reading what it draws, and prints its resident set
(VmRSS) at the end: the memory of a screen at rest (.ci/idle-rss.sh)."""
import os, pty, time, sys, select, fcntl, termios, struct, signal, re
ansi = re.compile(rb'\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>])')
marker = sys.argv[1].encode()
argv = sys.argv[2:]
t0 = time.perf_counter()
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
    os.environ['TERM'] = 'xterm-256color'
    os.execvp(argv[0], argv)
buf = b''
first = None
deadline = time.perf_counter() + 10
while time.perf_counter() < deadline:
    r, _, _ = select.select([fd], [], [], 5)
    if not r:
        break
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    if first is None:
        first = time.perf_counter() - t0
    buf += chunk
    # Answer what a terminal answers: the background colour and the cursor position.
    if b'\x1b]11;?' in chunk:
        os.write(fd, b'\x1b]11;rgb:1c1c/1c1c/1c1c\x1b\\')
    if b'\x1b[6n' in chunk:
        os.write(fd, b'\x1b[1;1R')
    if marker in ansi.sub(b'', buf):
        t = time.perf_counter() - t0
        print(f"{t*1000:.1f} ms to the frame (first byte {first*1000:.1f} ms, {len(buf)} bytes)")
        break
idle = float(os.environ.get('IDLE', '0'))
if idle and marker in ansi.sub(b'', buf):
    end = time.perf_counter() + idle
    while time.perf_counter() < end:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                os.read(fd, 65536)
            except OSError:
                break
    with open(f"/proc/{pid}/status") as status:
        rss = next(line.split()[1] for line in status if line.startswith('VmRSS:'))
    print(f"{int(rss)/1024:.1f} MiB resident after {idle:g} s at rest")
else:
    pass
# The frame is timed; then SIGTERM, reading what the program still draws as it ends (a terminal
# that stopped reading would block its last writes, and it would never end). One that has not
# ended 3 s later is killed, and said so.
os.kill(pid, signal.SIGTERM)
end = time.perf_counter() + 3
while os.waitpid(pid, os.WNOHANG) == (0, 0):
    if time.perf_counter() > end:
        print("did not end 3 s after SIGTERM: killed", file=sys.stderr)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        break
    if select.select([fd], [], [], 0.01)[0]:
        try:
            os.read(fd, 65536)
        except OSError:
            pass
if marker not in ansi.sub(b'', buf):
    print("marker not seen; output:", ansi.sub(b"", buf)[:3000])
    sys.exit(1)
