"""A byte tap for stdio: `tee_pipe.py IN_LOG OUT_LOG -- CMD ARGS...`.

Runs CMD with piped stdin and stdout and copies bytes unchanged both ways: our stdin to CMD's
stdin, CMD's stdout to our stdout (stderr is inherited). Every byte read from our stdin is
appended to IN_LOG and every byte read from CMD's stdout to OUT_LOG, as it passes, so a test can
compare what one side wrote with what the other side read. SIGTERM, SIGINT and SIGHUP are
passed to CMD and the tap keeps draining CMD's stdout until it closes, so nothing in flight is
lost at shutdown. Exits with CMD's status (128 + N for signal N).

Used by tests/it/record_interop.rs on both sides of `provscope record`.
"""

import os
import signal
import subprocess
import sys
import threading


def main() -> int:
    argv = sys.argv[1:]
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: tee_pipe.py IN_LOG OUT_LOG -- CMD ARGS...\n")
        return 2
    in_log = open(argv[0], "ab", buffering=0)
    out_log = open(argv[1], "ab", buffering=0)
    child = subprocess.Popen(argv[3:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def forward(signum, _frame):
        try:
            child.send_signal(signum)
        except OSError:
            pass

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, forward)

    def to_child():
        fd = child.stdin.fileno()
        while True:
            try:
                b = os.read(0, 65536)
            except InterruptedError:
                continue
            except OSError:
                break
            if not b:
                break
            in_log.write(b)
            try:
                view = memoryview(b)
                while view:
                    n = os.write(fd, view)
                    view = view[n:]
            except OSError:
                break
        try:
            child.stdin.close()
        except OSError:
            pass

    threading.Thread(target=to_child, daemon=True).start()
    out_fd = child.stdout.fileno()
    stdout_ok = True
    while True:
        try:
            b = os.read(out_fd, 65536)
        except InterruptedError:
            continue
        if not b:
            break
        out_log.write(b)
        if stdout_ok:
            try:
                view = memoryview(b)
                while view:
                    n = os.write(1, view)
                    view = view[n:]
            except OSError:
                stdout_ok = False
    rc = child.wait()
    return 128 - rc if rc < 0 else rc


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)
