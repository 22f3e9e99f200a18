"""Starts the MCP server a client configuration names, as that client
would, and proves it answers: the official MCP SDK's stdio client runs
COMMAND ARGS... in CWD, lists the tools and calls `list_functions` on
tests/mcp/running_max.py. Used by tests/editors.rs (the server the VS Code
extension registers) and tests/agent_snippets.rs (each agent's snippet in
docs/agent-tools.md).

    python3 tests/mcp/start.py '{"command": ..., "args": [...], "cwd": ..., "env": {...}, "call": {"name": ..., "arguments": {...}}}'

Prints one JSON line: {"tools": [names], "functions": [names], "called": ...},
`called` the structured result of the optional `call` (tests/serve.rs asks
a prediction through a served model).
"""

import asyncio
import json
import os
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "running_max.py")


async def main(spec):
    env = dict(os.environ)
    env.update(spec.get("env") or {})
    params = StdioServerParameters(
        command=spec["command"], args=spec.get("args", []), cwd=spec.get("cwd"), env=env,
    )
    async with Client(params, read_timeout_seconds=300) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("list_functions", {"path": PROGRAM})
        functions = [function["name"] for function in (result.structured_content or {}).get("functions", [])]
        called = None
        if spec.get("call"):
            answer = await client.call_tool(spec["call"]["name"], spec["call"]["arguments"])
            called = answer.structured_content
            if answer.is_error:
                called = {"error": [getattr(part, "text", "") for part in answer.content]}
    print(json.dumps({"tools": tools, "functions": functions, "called": called}))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
