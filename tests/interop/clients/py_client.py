"""Python `mcp` 2.x: `mcp.Client` (which drives a `ClientSession`) over the stdio transport.

argv[1] is the connect mode: "auto" (the SDK default: probe `server/discover`, fall back to
`initialize`) or "legacy" (`initialize` only). Prints one JSON line per step for the
harness, like the TypeScript clients.
"""

import json
import logging
import os
import re
import sys
import time

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

STEP_TIMEOUT_S = 20
NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def report(step: str, ok: bool, ms: float, detail: str = "") -> None:
    print(json.dumps({"step": step, "ok": ok, "ms": round(ms), "detail": detail}), flush=True)


class Problems(Exception):
    pass


class ErrorLog(logging.Handler):
    """Collects the SDK's own error reports (it logs, rather than raises, stream problems)."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


def describe(exc: BaseException) -> str:
    """The innermost errors of an exception (task groups wrap them in groups)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


def result_text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def check_result(result, expect: dict) -> list[str]:
    problems = []
    want_error = expect.get("isError", False)
    if bool(result.is_error) != want_error:
        problems.append(f"isError={bool(result.is_error)}, expected {want_error}; text: {result_text(result)[:300]}")
    if not result.content:
        problems.append("content is empty")
    if "structuredContent" in expect and result.structured_content != expect["structuredContent"]:
        problems.append(
            f"structuredContent {json.dumps(result.structured_content, ensure_ascii=False)}"
            f" != expected {json.dumps(expect['structuredContent'], ensure_ascii=False)}"
        )
    if "textJson" in expect:
        try:
            parsed = json.loads(result.content[0].text)
        except (ValueError, AttributeError, IndexError):
            parsed = None
        if parsed != expect["textJson"]:
            problems.append(f"text block {result.content[0].text!r} does not parse to {expect['textJson']!r}")
    for needle in expect.get("textIncludes", []):
        if needle not in result_text(result):
            problems.append(f"text lacks {needle!r}: {result_text(result)[:300]!r}")
    return problems


async def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "auto"
    with open(os.environ["INTEROP_CONFIG"], encoding="utf-8") as f:
        cfg = json.load(f)
    sc = cfg["scenario"]
    errors = ErrorLog()
    logging.getLogger("mcp").addHandler(errors)

    async def step(name: str, fn, bounded: bool = True) -> bool:
        # connect and close enter and leave the client's task groups, which must not be
        # nested in a cancel scope of their own; the harness's timeout bounds those.
        t0 = time.perf_counter()
        try:
            if bounded:
                with anyio.fail_after(STEP_TIMEOUT_S):
                    detail = await fn()
            else:
                detail = await fn()
            report(name, True, (time.perf_counter() - t0) * 1000, str(detail or ""))
            return True
        except TimeoutError:
            report(name, False, (time.perf_counter() - t0) * 1000, f"no answer within {STEP_TIMEOUT_S} s")
        except Exception as exc:  # every failure becomes a reported step
            report(name, False, (time.perf_counter() - t0) * 1000, describe(exc))
        return False

    params = StdioServerParameters(command=cfg["command"], args=cfg["args"], env=cfg["env"])
    # Bounds every request, the handshake included, so a silent server fails a step
    # instead of hanging until the harness kills the client.
    client = Client(params, mode=mode, read_timeout_seconds=STEP_TIMEOUT_S)

    async def connect():
        await client.__aenter__()
        return f"{'modern' if client.session.discover_result else 'legacy'} {client.protocol_version}"

    if not await step("connect", connect, bounded=False):
        return

    async def list_tools():
        tools = (await client.list_tools()).tools
        names = [t.name for t in tools]
        problems = [f"missing tool {w}" for w in sc["tools"]["expected"] if w not in names]
        if sc["tools"].get("exact") and len(names) != len(sc["tools"]["expected"]):
            problems.append(f"got {len(names)} tools: {', '.join(names)}")
        if len(set(names)) != len(names):
            problems.append("duplicate tool names")
        for t in tools:
            if not NAME_RE.match(t.name):
                problems.append(f"bad tool name {t.name!r}")
            if t.input_schema.get("type") != "object":
                problems.append(f"{t.name}: inputSchema root type is {t.input_schema.get('type')!r}")
            if not t.description:
                problems.append(f"{t.name}: no description")
        if problems:
            raise Problems("; ".join(problems))
        return f"{len(names)} tools"

    await step("tools/list", list_tools)

    for call in sc.get("calls", []):

        async def do_call(call=call):
            result = await client.call_tool(call["tool"], call["arguments"])
            problems = check_result(result, call.get("expect", {}))
            if problems:
                raise Problems("; ".join(problems))
            return result_text(result)[:80]

        await step(f"call:{call['label']}", do_call)

    if "progress" in sc:

        async def progress():
            p = sc["progress"]
            seen: list[tuple[float, float | None]] = []
            state = {"done": False, "late": 0}

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                if state["done"]:
                    state["late"] += 1
                seen.append((progress, total))

            result = await client.call_tool(p["tool"], p["arguments"], progress_callback=on_progress)
            state["done"] = True
            await anyio.sleep(0.15)
            problems = check_result(result, p.get("expect", {}))
            want = p.get("minNotifications", 1)
            if len(seen) < want:
                problems.append(f"{len(seen)} progress notifications, expected >= {want}")
            values = [v for v, _ in seen]
            if any(b <= a for a, b in zip(values, values[1:])):
                problems.append(f"progress not increasing: {values}")
            if any(t is not None and t < v for v, t in seen):
                problems.append("progress above total")
            if state["late"]:
                problems.append(f"{state['late']} progress notification(s) after the result")
            if problems:
                raise Problems("; ".join(problems))
            return f"{len(seen)} notifications: {','.join(str(v) for v in values)}"

        await step("progress", progress)

    if "badArguments" in sc:

        async def bad_args():
            b = sc["badArguments"]
            result = await client.call_tool(b["tool"], b["arguments"])
            text = result_text(result)
            problems = [] if result.is_error is True else [f"isError is {result.is_error!r}"]
            problems += [f"error text does not name {m!r}: {text!r}" for m in b.get("errorMentions", []) if m not in text]
            if problems:
                raise Problems("; ".join(problems))
            return text[:120]

        await step("bad-args", bad_args)

        async def alive():
            first = (sc.get("calls") or [None])[0]
            if first:
                result = await client.call_tool(first["tool"], first["arguments"])
                problems = check_result(result, first.get("expect", {}))
                if problems:
                    raise Problems("; ".join(problems))
                return f"{first['tool']} answered"
            tools = (await client.list_tools(cache_mode="refresh")).tools
            return f"{len(tools)} tools"

        await step("alive", alive)

    if "resources" in sc:

        async def list_resources():
            resources = (await client.list_resources()).resources
            uris = [str(r.uri) for r in resources]
            problems = [f"missing resource {u}" for u in sc["resources"]["expected"] if u not in uris]
            problems += [f"{r.uri}: no name" for r in resources if not r.name]
            if problems:
                raise Problems("; ".join(problems))
            return f"{len(uris)} resources"

        async def read_resource():
            uri = sc["resources"]["read"]
            contents = (await client.read_resource(uri)).contents
            problems = []
            if not contents:
                problems.append("no contents")
            else:
                first = contents[0]
                if str(first.uri) != uri:
                    problems.append(f"contents[0].uri {first.uri!r} != {uri}")
                if not first.mime_type:
                    problems.append("no mimeType")
                text = getattr(first, "text", "") or ""
                problems += [f"text lacks {n!r}" for n in sc["resources"].get("readTextIncludes", []) if n not in text]
                if problems:
                    raise Problems("; ".join(problems))
                return f"{len(text)} chars"
            raise Problems("; ".join(problems))

        await step("resources/list", list_resources)
        await step("resources/read", read_resource)

    async def close():
        await client.__aexit__(None, None, None)

    await step("close", close, bounded=False)

    async def client_errors():
        if errors.messages:
            raise Problems(" | ".join(errors.messages))
        return "none"

    await step("client-errors", client_errors)


if __name__ == "__main__":
    anyio.run(main)
