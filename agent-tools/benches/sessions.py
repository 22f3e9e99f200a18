"""Load on the real `ndb mcp` with the real model: 32 concurrent MCP
sessions (the official Python SDK), each starting a debugging session on
its own input, stepping and reading its state back, against a server that
keeps at most 16. Checks that every session answers with its own values or
says it was closed to make room (never another session's state), and prints
the latencies and the server's peak RSS. Not a test: run it by hand
(docs/fuzzing.md has the figures):

    nice -n 19 python3 agent-tools/benches/sessions.py target/debug/ndb [--clients 32]
"""

import argparse
import asyncio
import os
import time

from mcp import Client
from mcp.client.stdio import StdioServerParameters

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "..", "..", "tests", "mcp", "running_max.py")


def peak_rss_mib(pid_hint):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read().split(b"\0")
            if len(command) > 1 and command[0].endswith(b"ndb") and command[1] == b"mcp" and pid_hint in command:
                with open(f"/proc/{pid}/status") as status:
                    for line in status:
                        if line.startswith("VmHWM:"):
                            return int(line.split()[1]) / 1024
        except OSError:
            continue
    return float("nan")


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ndb")
    parser.add_argument("--clients", type=int, default=32)
    args = parser.parse_args()
    tag = f"--python=python3"
    params = StdioServerParameters(command=args.ndb, args=["mcp", "--max-sessions", "16", tag])
    latencies = {"start_session": [], "step": [], "get_state": []}
    outcome = {"own": 0, "evicted": 0, "mixed": 0, "other_error": 0}
    async with Client(params, read_timeout_seconds=900) as client:
        async def timed(name, arguments):
            started = time.monotonic()
            result = await client.call_tool(name, arguments)
            latencies[name].append(time.monotonic() - started)
            return result

        async def session(index):
            xs = [index, index + 7, 1, index + 3]
            started = await timed("start_session", {"path": PROGRAM, "entry_call": f"running_max({xs})"})
            if started.is_error:
                outcome["other_error"] += 1
                return
            session_id = started.structured_content["session_id"]
            if started.structured_content["state"]["locals"].get("xs") != repr(xs):
                outcome["mixed"] += 1
                return
            step = await timed("step", {"session_id": session_id, "action": "step_over"})
            state = await timed("get_state", {"session_id": session_id, "names": ["xs"]})
            texts = " ".join(block.text for result in (step, state) for block in result.content if hasattr(block, "text"))
            if state.is_error and ("closed" in texts or "evicted" in texts or "room" in texts):
                outcome["evicted"] += 1
            elif state.is_error:
                outcome["other_error"] += 1
            elif state.structured_content.get("session_id") not in (None, session_id):
                outcome["mixed"] += 1
            elif repr(xs) not in texts and state.structured_content["state"]["locals"].get("xs") not in (None, repr(xs)):
                outcome["mixed"] += 1
            else:
                outcome["own"] += 1

        began = time.monotonic()
        await asyncio.gather(*(session(i) for i in range(args.clients)))
        elapsed = time.monotonic() - began
        peak = peak_rss_mib(tag.encode())
    print(f"mcp load: {args.clients} concurrent sessions on one server (--max-sessions 16) in {elapsed:.1f} s")
    print(f"  {outcome['own']} answered with their own state, {outcome['evicted']} told they were closed to make room, "
          f"{outcome['mixed']} mixed up, {outcome['other_error']} other errors")
    for name, values in latencies.items():
        values.sort()
        if values:
            print(f"  {name}: {len(values)} calls, p50 {values[len(values) // 2]:.2f} s, max {values[-1]:.2f} s")
    print(f"  server peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    asyncio.run(main())
