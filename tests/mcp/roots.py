"""Agents stay inside their project: `ndb mcp` driven by the official MCP
Python SDK (`mcp` on PyPI) with and without MCP roots.

Run by tests/mcp_roots.rs as `python3 tests/mcp/roots.py NDB`. Needs no
model: list_functions reads files, run_trace runs the real tracer. Prints
one line per check and a closing `N passed, N failed`.
"""

import asyncio
import os
import shutil
import sys
import tempfile
import warnings

from mcp import Client, types
from mcp.client.stdio import StdioServerParameters

warnings.simplefilter("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))

passed = 0
failed = 0


def check(condition, what, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok    {what}", flush=True)
    else:
        failed += 1
        print(f"FAIL  {what} {detail}", flush=True)
    return condition


def text_of(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def server(ndb, cwd, *extra):
    return StdioServerParameters(
        command=ndb, args=["mcp", "--model", "/nonexistent/ndb-model", *extra], cwd=cwd
    )


async def main(ndb):
    base = os.path.realpath(tempfile.mkdtemp(prefix="ndb-roots-"))
    project = os.path.join(base, "project")
    elsewhere = os.path.join(base, "elsewhere")
    os.makedirs(project)
    os.makedirs(elsewhere)
    program = os.path.join(project, "running_max.py")
    shutil.copy(os.path.join(HERE, "running_max.py"), program)
    secret = os.path.join(elsewhere, "secret.py")
    with open(secret, "w") as handle:
        handle.write("def leaked(token='hunter2'):\n    return token\n")
    link = os.path.join(project, "link.py")
    os.symlink(secret, link)
    try:
        roots = [project]

        async def list_roots(context):
            return types.ListRootsResult(roots=[types.Root(uri=f"file://{root}") for root in roots])

        # Roots declared: only they count, not the working directory (base).
        # Roots are a request of the server to the client, which the
        # handshake-era protocol has (the 2026-07-28 one dropped them).
        async with Client(server(ndb, base), list_roots_callback=list_roots, mode="legacy",
                          read_timeout_seconds=120) as client:
            inside = await client.call_tool("list_functions", {"path": program})
            check(not inside.is_error and "running_max" in text_of(inside), "a path inside the root is read", text_of(inside))
            outside = await client.call_tool("list_functions", {"path": secret})
            check(outside.is_error, "a path outside the roots is refused", text_of(outside))
            check("outside the directories" in text_of(outside) and project in text_of(outside),
                  "the error says which roots are allowed", text_of(outside))
            check("hunter2" not in text_of(outside) and "leaked" not in text_of(outside),
                  "nothing of the file outside is shown", text_of(outside))
            linked = await client.call_tool("list_functions", {"path": link})
            check(linked.is_error and "symbolic link" in text_of(linked), "a symbolic link out of the root is refused", text_of(linked))
            dotted = await client.call_tool("list_functions", {"path": os.path.join(project, "..", "elsewhere", "secret.py")})
            check(dotted.is_error, "`..` out of the root is refused", text_of(dotted))
            relative = await client.call_tool("list_functions", {"path": "elsewhere/secret.py"})
            check(relative.is_error, "a relative path into the working directory, outside the roots, is refused", text_of(relative))
            missing = await client.call_tool("list_functions", {"path": "/nonexistent/ndb/x.py"})
            check(missing.is_error and "outside the directories" in text_of(missing),
                  "a missing file outside the roots is refused the same way", text_of(missing))

            # The client widens its roots and says so.
            roots.append(elsewhere)
            await client.send_roots_list_changed()
            await asyncio.sleep(0.2)
            widened = await client.call_tool("list_functions", {"path": secret})
            check(not widened.is_error and "leaked" in text_of(widened), "after roots/list_changed the new root is read", text_of(widened))

        # No roots declared: the working directory.
        async with Client(server(ndb, project, "--allow-run"), read_timeout_seconds=120) as client:
            inside = await client.call_tool("list_functions", {"path": "running_max.py"})
            check(not inside.is_error, "without roots a relative path in the working directory is read", text_of(inside))
            outside = await client.call_tool("list_functions", {"path": secret})
            check(outside.is_error and project in text_of(outside), "without roots the working directory bounds paths", text_of(outside))
            traced = await client.call_tool("run_trace", {"path": program, "entry_call": "running_max([3, 1, 4])"})
            structured = traced.structured_content or {}
            check(not traced.is_error and structured.get("sandbox") == "sandboxed",
                  "run_trace says the code ran sandboxed", structured.get("sandbox", text_of(traced)))
            check("sandboxed" in text_of(traced), "the text of run_trace says so too", text_of(traced))

        # An explicit server flag widens it.
        async with Client(server(ndb, project, "--allow-path", elsewhere), read_timeout_seconds=120) as client:
            widened = await client.call_tool("list_functions", {"path": secret})
            check(not widened.is_error, "--allow-path DIR lets paths under DIR be read", text_of(widened))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
    print(f"{passed} passed, {failed} failed", flush=True)
    sys.exit(1 if failed or not passed else 0)
