"""Stands between an MCP client and the zcp binary and records what happens.

Usage: python launcher.py RECORD_DIR ZCP_BIN [ZCP_ARGS...]

The client under test spawns this script instead of zcp. It starts zcp with pipes, copies
bytes unchanged in both directions, and writes, under RECORD_DIR:

- wire-<launcher pid>.jsonl: every line that crossed the pipe, with a timestamp and a
  direction (">" client to server, "<" server to client);
- proc-<launcher pid>.json: zcp's pid, when the client closed its end of stdin, which
  signals the client sent, and when and how zcp exited;
- stderr-<launcher pid>.log: zcp's stderr.

Signals from the client are passed on to zcp, so the client sees the same behaviour it
would see with zcp as its direct child; the process record tells the harness whether zcp
left on its own after EOF or had to be signalled. Only the standard library is used.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

MARK_VAR = "ZCP_INTEROP_MARK"


def main() -> None:
    record_dir, binary, *args = sys.argv[1:]
    me = os.getpid()
    record = {
        "launcher_pid": me,
        "zcp_pid": None,
        "started_at": time.time(),
        "stdin_eof_at": None,
        "signals": [],
        "exited_at": None,
        "exit_code": None,
        "exit_signal": None,
    }
    record_path = os.path.join(record_dir, f"proc-{me}.json")
    wire = open(os.path.join(record_dir, f"wire-{me}.jsonl"), "w", encoding="utf-8")
    wire_lock = threading.Lock()
    stderr_log = open(os.path.join(record_dir, f"stderr-{me}.log"), "wb")

    def save() -> None:
        tmp = record_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(record, f)
        os.replace(tmp, record_path)

    def log_line(direction: str, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="backslashreplace")
        entry = json.dumps({"t": time.time(), "dir": direction, "line": text}, ensure_ascii=False)
        with wire_lock:
            wire.write(entry + "\n")
            wire.flush()

    env = dict(os.environ)
    # Marks the server as this run's, so the harness can tell its leftovers from anything else.
    env[MARK_VAR] = os.path.abspath(record_dir)
    child = subprocess.Popen(
        [binary, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr_log,
        env=env,
        bufsize=0,
    )
    record["zcp_pid"] = child.pid
    save()

    def forward(signum, _frame) -> None:
        record["signals"].append({"signal": signal.Signals(signum).name, "at": time.time()})
        save()
        try:
            child.send_signal(signum)
        except ProcessLookupError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)

    def pump(src_fd: int, dst, direction: str, on_eof) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(src_fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                if pending:
                    log_line(direction, pending)
                on_eof()
                return
            try:
                dst(chunk)
            except OSError:
                pass
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                log_line(direction, line)

    def client_to_server(chunk: bytes) -> None:
        child.stdin.write(chunk)

    def client_closed() -> None:
        record["stdin_eof_at"] = time.time()
        save()
        try:
            child.stdin.close()
        except OSError:
            pass

    def server_to_client(chunk: bytes) -> None:
        view = memoryview(chunk)
        while view:
            n = os.write(1, view)
            view = view[n:]

    inbound = threading.Thread(
        target=pump, args=(0, client_to_server, ">", client_closed), daemon=True
    )
    outbound = threading.Thread(
        target=pump, args=(child.stdout.fileno(), server_to_client, "<", lambda: None), daemon=True
    )
    inbound.start()
    outbound.start()

    status = child.wait()
    record["exited_at"] = time.time()
    if status < 0:
        record["exit_signal"] = signal.Signals(-status).name
    else:
        record["exit_code"] = status
    save()
    # Whatever zcp wrote before exiting still reaches the client.
    outbound.join(timeout=2)
    with wire_lock:
        wire.flush()
    if status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(me, -status)
    os._exit(status if status >= 0 else 1)


if __name__ == "__main__":
    main()
