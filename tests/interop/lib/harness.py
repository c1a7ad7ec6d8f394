"""Runs every client scenario against zcp and prints a PASS/FAIL table.

Usage: python harness.py ZCP_BIN SCENARIO_FILE

Each scenario is one real MCP client (and mode) driving zcp through lib/launcher.py, which
records the wire traffic and how each server process ended. The client scripts report their
own steps as JSON lines; this harness adds the checks only the records can answer: did
every server exit by itself within the scenario's limit after the client closed stdin, was
every stdout line well-formed JSON-RPC with progress before its response, and did the
client use the protocol era its mode implies. Standard library only.

Environment: INTEROP_ONLY (comma-separated scenario names to run), INTEROP_KEEP=1 (keep the
record directories even when everything passed), INTEROP_TIMEOUT (seconds per scenario),
INTEROP_VERBOSE=1 (print every step's detail, not only failures).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PY = sys.executable
NODE = shutil.which("node") or "node"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"

# name, client command, the era the client should end up using with zcp.
SCENARIOS = [
    ("python-auto", [PY, str(HERE / "clients/py_client.py"), "auto"], "modern"),
    ("python-legacy", [PY, str(HERE / "clients/py_client.py"), "legacy"], "legacy"),
    ("ts-sdk1", [NODE, str(HERE / "clients/ts-sdk1.mjs")], "legacy"),
    ("ts-client2-legacy", [NODE, str(HERE / "clients/ts-client2.mjs"), "legacy"], "legacy"),
    ("ts-client2-auto", [NODE, str(HERE / "clients/ts-client2.mjs"), "auto"], "modern"),
    ("inspector-legacy", [NODE, str(HERE / "clients/inspector.mjs"), "legacy"], "legacy"),
    ("inspector-auto", [NODE, str(HERE / "clients/inspector.mjs"), "auto"], "modern"),
]

# (scenario, step) -> reason. Only for failures proven to be the client's own bug.
EXPECTED_FAILURES: dict[tuple[str, str], str] = {}

COLUMNS = [
    "connect", "tools/list", "call:*", "progress", "bad-args", "alive",
    "resources/list", "resources/read", "close", "client-errors", "exit", "wire", "era",
]


def main() -> int:
    zcp_bin = os.path.abspath(sys.argv[1])
    scenario_path = os.path.abspath(sys.argv[2])
    with open(scenario_path, encoding="utf-8") as f:
        scenario = json.load(f)
    only = {s for s in os.environ.get("INTEROP_ONLY", "").split(",") if s}
    timeout = float(os.environ.get("INTEROP_TIMEOUT", "60"))
    run_root = Path(tempfile.mkdtemp(prefix="zcp-interop-"))
    print(f"zcp: {zcp_bin}\nscenario: {scenario_path} ({scenario.get('name', '')})\nrecords: {run_root}\n", flush=True)

    started = time.monotonic()
    results = []
    for name, command, era in SCENARIOS:
        if only and name not in only:
            continue
        t0 = time.monotonic()
        steps = run_scenario(name, command, era, zcp_bin, scenario, run_root / name, timeout)
        results.append((name, steps, time.monotonic() - t0))
        bad = [s for s in steps if not s["ok"] and (name, s["step"]) not in EXPECTED_FAILURES]
        print(f"{'PASS' if not bad else 'FAIL'}  {name}  ({time.monotonic() - t0:.1f} s)", flush=True)

    failed = print_table(results)
    passed = sum(1 for _, steps, _ in results for s in steps if s["ok"])
    print(f"\nwhole suite: {time.monotonic() - started:.1f} s")
    if failed or os.environ.get("INTEROP_KEEP") == "1":
        print(f"wire captures and process records kept in {run_root}")
    else:
        shutil.rmtree(run_root, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def run_scenario(name, command, era, zcp_bin, scenario, record_dir: Path, timeout):
    record_dir.mkdir(parents=True)
    config = {
        "scenario": scenario,
        "command": PY,
        "args": ["-I", "-S", str(HERE / "lib/launcher.py"), str(record_dir), zcp_bin, *scenario["server"].get("args", [])],
        "env": scenario["server"].get("env", {}),
        "recordDir": str(record_dir),
    }
    config_path = record_dir / "config.json"
    config_path.write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")
    env = dict(os.environ, INTEROP_CONFIG=str(config_path), PYTHONUNBUFFERED="1")
    steps = []
    with open(record_dir / "client-stderr.log", "wb") as errlog:
        proc = subprocess.Popen(
            command, cwd=HERE, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=errlog, start_new_session=True,
        )
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            steps.append({"step": "client", "ok": False, "ms": timeout * 1000, "detail": f"client did not finish within {timeout:.0f} s"})
    for line in out.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "step" in entry:
            steps.append(entry)
    if proc.returncode not in (0, None) and not any(not s["ok"] for s in steps):
        tail = (record_dir / "client-stderr.log").read_text("utf-8", "replace")[-800:]
        steps.append({"step": "client", "ok": False, "ms": 0, "detail": f"client exited {proc.returncode}: {tail}"})
    if not steps:
        tail = (record_dir / "client-stderr.log").read_text("utf-8", "replace")[-800:]
        steps.append({"step": "client", "ok": False, "ms": 0, "detail": f"client reported nothing: {tail}"})
    steps += record_checks(record_dir, scenario, era)
    return steps


def load_processes(record_dir: Path, wait_s: float):
    """Reads every process record, waiting up to wait_s for live ones to finish."""
    deadline = time.monotonic() + wait_s
    while True:
        procs = []
        for path in sorted(record_dir.glob("proc-*.json")):
            try:
                procs.append(json.loads(path.read_text("utf-8")))
            except ValueError:
                procs.append(None)  # being rewritten; read again
        if all(p is not None and p["exited_at"] is not None for p in procs) or time.monotonic() > deadline:
            return [p for p in procs if p is not None]
        time.sleep(0.05)


def wire_entries(record_dir: Path, launcher_pid: int):
    path = record_dir / f"wire-{launcher_pid}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def parse(line: str):
    try:
        return json.loads(line)
    except ValueError:
        return None


def requests_of(entries):
    return [m for e in entries if e["dir"] == ">" and isinstance(m := parse(e["line"]), dict) and "method" in m and "id" in m]


def is_probe(entries) -> bool:
    """A throw-away copy that was only asked `server/discover` (TypeScript 2.x auto mode)."""
    reqs = requests_of(entries)
    return bool(reqs) and all(r["method"] == "server/discover" for r in reqs)


def record_checks(record_dir: Path, scenario, era):
    limit_s = scenario.get("exitWithinMs", 2000) / 1000
    procs = load_processes(record_dir, wait_s=limit_s + 3)
    exit_problems, wire_problems, eras, notes = [], [], [], []
    if not procs:
        exit_problems.append("no server process was started")
    for p in procs:
        pid = p["zcp_pid"]
        entries = wire_entries(record_dir, p["launcher_pid"])
        probe = is_probe(entries)
        label = f"zcp pid {pid}{' (discover probe copy)' if probe else ''}"
        if p["exited_at"] is None:
            if kill_leftover(p, record_dir):
                exit_problems.append(f"{label} still running after the client finished (orphan); killed")
            elif probe:
                # TypeScript 2.x reaps its probe copy with SIGTERM and, one second later,
                # SIGKILL. On a loaded machine the SIGKILL can hit our Python launcher
                # before it writes the exit down; zcp itself is gone, which is what matters.
                notes.append(f"{label}: gone (its launcher was killed by the client's probe teardown)")
            else:
                exit_problems.append(f"{label} gone, but its launcher was killed before recording the exit")
            continue
        how = f"exit code {p['exit_code']}" if p["exit_signal"] is None else f"killed by {p['exit_signal']}"
        eof = p["stdin_eof_at"]
        signals_before_exit = [s for s in p["signals"] if s["at"] <= p["exited_at"]]
        if probe:
            notes.append(f"{label}: {how}, signals {[s['signal'] for s in signals_before_exit]}")
        elif eof is None:
            exit_problems.append(f"{label}: {how} without the client closing stdin; signals {[s['signal'] for s in signals_before_exit]}")
        else:
            after = p["exited_at"] - eof
            sig_before = [s for s in signals_before_exit]
            if sig_before:
                exit_problems.append(
                    f"{label}: still running {sig_before[0]['at'] - eof:.2f} s after stdin EOF, when the client sent {sig_before[0]['signal']}; {how}"
                )
            elif p["exit_code"] != 0:
                exit_problems.append(f"{label}: {how} {after:.2f} s after stdin EOF")
            elif after > limit_s:
                exit_problems.append(f"{label}: exited {after:.2f} s after stdin EOF (limit {limit_s:.1f} s)")
            else:
                notes.append(f"{label}: exit 0, {after * 1000:.0f} ms after EOF")
        wire_problems += [f"{label}: {w}" for w in check_wire(entries)]
        if not probe:
            eras.append(era_of(entries))
    steps = [
        {"step": "exit", "ok": not exit_problems, "ms": 0, "detail": "; ".join(exit_problems or notes)},
        {"step": "wire", "ok": not wire_problems, "ms": 0, "detail": "; ".join(wire_problems[:5]) or f"{sum(len(wire_entries(record_dir, p['launcher_pid'])) for p in procs)} lines clean"},
    ]
    era_ok = bool(eras) and all(e == era for e in eras)
    steps.append({"step": "era", "ok": era_ok, "ms": 0, "detail": f"expected {era}, saw {', '.join(eras) or 'nothing'}"})
    return steps


def kill_leftover(p, record_dir: Path) -> bool:
    """Kills a server (and its launcher) left running, after checking it is this run's.

    Returns whether the server itself was still running."""
    mark = f"ZCP_INTEROP_MARK={record_dir.resolve()}".encode()
    alive = False
    for pid, proof_file, proof in (
        (p["zcp_pid"], "environ", mark),
        (p["launcher_pid"], "cmdline", str(record_dir.resolve()).encode()),
    ):
        try:
            if proof not in Path(f"/proc/{pid}/{proof_file}").read_bytes():
                continue
            os.kill(pid, signal.SIGKILL)
            alive = alive or pid == p["zcp_pid"]
        except OSError:
            pass
    return alive


def era_of(entries) -> str:
    """modern: every request carried the envelope; legacy: none did (a discover probe aside)."""
    reqs = [r for r in requests_of(entries) if r["method"] != "server/discover"]
    if not reqs:
        return "no requests after discover"
    enveloped = [r for r in reqs if r["method"] != "initialize" and VERSION_KEY in ((r.get("params") or {}).get("_meta") or {})]
    if len(enveloped) == len(reqs):
        return "modern"
    if not enveloped:
        return "legacy"
    return "mixed"


def check_wire(entries):
    """Server output: one JSON-RPC object per line, no requests, progress only in flight."""
    problems = []
    token_of = {}  # request id (as JSON text) -> progress token (as JSON text)
    closed = set()
    last_progress = {}
    for e in entries:
        msg = parse(e["line"])
        if e["dir"] == ">":
            if isinstance(msg, dict) and "id" in msg and "method" in msg:
                token = ((msg.get("params") or {}).get("_meta") or {}).get("progressToken")
                if token is not None:
                    token_of[json.dumps(msg["id"])] = json.dumps(token)
            continue
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            problems.append(f"stdout line is not a JSON-RPC object: {e['line'][:200]!r}")
            continue
        if "method" in msg and "id" in msg:
            problems.append(f"server sent a request: {e['line'][:200]}")
        if msg.get("method") == "notifications/progress":
            params = msg.get("params") or {}
            token = json.dumps(params.get("progressToken"))
            if token in closed:
                problems.append(f"progress for token {token} after its response")
            if token in last_progress and not params.get("progress", 0) > last_progress[token]:
                problems.append(f"progress for token {token} not increasing: {last_progress[token]} then {params.get('progress')}")
            last_progress[token] = params.get("progress", 0)
        if "id" in msg and ("result" in msg or "error" in msg):
            token = token_of.get(json.dumps(msg["id"]))
            if token is not None:
                closed.add(token)
    return problems


def print_table(results) -> int:
    """Prints the table and failure details; returns the number of unexpected failures."""
    width = max(len(n) for n, _, _ in results) if results else 10
    heads = [c.replace("resources/", "res/") for c in COLUMNS]
    print("\n" + "scenario".ljust(width) + "  " + "  ".join(heads) + "  time")
    failed = 0
    details = []
    for name, steps, secs in results:
        cells = []
        for col in COLUMNS:
            group = [s for s in steps if s["step"] == col or (col == "call:*" and s["step"].startswith("call:"))]
            if not group:
                cell = "-"
            elif all(s["ok"] for s in group):
                cell = "ok"
            elif all(s["ok"] or (name, s["step"]) in EXPECTED_FAILURES for s in group):
                cell = "xfail"
            else:
                cell = "FAIL"
            cells.append(cell.ljust(len(heads[COLUMNS.index(col)])))
        extra = [s for s in steps if s["step"] not in COLUMNS and not s["step"].startswith("call:")]
        for s in steps:
            if not s["ok"]:
                if (name, s["step"]) in EXPECTED_FAILURES:
                    details.append(f"  xfail {name} / {s['step']}: {s['detail']} [{EXPECTED_FAILURES[(name, s['step'])]}]")
                else:
                    failed += 1
                    details.append(f"  FAIL {name} / {s['step']}: {s['detail']}")
        flag = "  +" + ",".join(s["step"] for s in extra) if extra else ""
        print(name.ljust(width) + "  " + "  ".join(cells) + f"  {secs:.1f}s{flag}")
    if os.environ.get("INTEROP_VERBOSE") == "1":
        print("\nsteps:")
        for name, steps, _ in results:
            for s in steps:
                print(f"  {'ok  ' if s['ok'] else 'FAIL'} {name} / {s['step']} ({s['ms']} ms): {s['detail']}")
    if details:
        print("\nfailures:")
        print("\n".join(details))
    return failed


if __name__ == "__main__":
    sys.exit(main())
