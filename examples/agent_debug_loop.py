# Run: cargo build && pip install mcp==2.3.0 && python3 examples/agent_debug_loop.py [--ndb target/debug/ndb] [--allow-run]
"""A scripted coding agent (no LLM) that localises a bug by stepping through
the neural debugger over MCP, the way an agent would with `ndb mcp`.

The function under test, `total_price` in examples/buggy_total_price.py, has
an intent the agent knows from its docstring: every item priced at or above
`discount_from` gets 10% off. The agent

1. lists the file's functions and takes the entry call from the doctest;
2. starts a session and steps over the loop, reading only the variables that
   changed (the concise form), and keeps the model's confidence in view;
3. at each `total += price` stop, compares `price` with what the intent says
   the item should cost by then, and at the first mismatch names the line
   that should have changed it (the discount's condition);
4. with `--allow-run`, checks its evidence against the real tracer
   (`check_prediction`), because predictions are predictions.

Nothing in the program is run unless `--allow-run` is given (the entry
call's literal arguments are bound without running the file).
"""

import argparse
import ast
import asyncio
import os
import shutil
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "buggy_total_price.py")
MAX_STEPS = 40


def default_ndb():
    built = os.path.join(HERE, "..", "target", "debug", "ndb")
    return built if os.path.exists(built) else (shutil.which("ndb") or "ndb")


def line_of(source, text):
    """The 1-based line whose stripped text starts with `text`."""
    for number, line in enumerate(source.splitlines(), start=1):
        if line.strip().startswith(text):
            return number
    raise SystemExit(f"no line starting with {text!r}")


def intended_price(price, discount_from):
    """The function's intent for one item, from its docstring."""
    return price * 0.9 if price >= discount_from else price


def literal(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


class ToolFailed(Exception):
    pass


async def call(client, name, arguments):
    result = await client.call_tool(name, arguments)
    text = "\n".join(block.text for block in result.content if block.type == "text")
    if result.is_error:
        raise ToolFailed(f"{name} failed: {text}")
    return result.structured_content, text


async def main(ndb, allow_run, extra):
    args = ["mcp", *(["--allow-run"] if allow_run else []), *extra]
    async with Client(StdioServerParameters(command=ndb, args=args), read_timeout_seconds=600) as client:
        source = open(PROGRAM).read()
        listed, _ = await call(client, "list_functions", {"path": PROGRAM})
        function = next(f for f in listed["functions"] if f["name"] == "total_price")
        entry_call = function["entry_calls"][0]["call"]
        print(f"agent: debugging {function['signature']} with {entry_call}")

        if_line = line_of(source, "if price > discount_from")
        add_line = line_of(source, "total += price")
        started, text = await call(client, "start_session", {"path": PROGRAM, "entry_call": entry_call})
        session = started["session_id"]
        print(text)
        arguments = started["state"]["locals"]
        discount_from = literal(arguments["discount_from"])

        item = None  # the item being priced, read at the `if` line
        verdict = None
        for _ in range(MAX_STEPS):
            try:
                stepped, text = await call(client, "step", {"session_id": session, "action": "step_over"})
            except ToolFailed as error:
                # An answer the model could not give is reported, not guessed.
                print(f"agent: the debugger could not answer this step ({str(error)[:300]}); stopping here")
                break
            state = stepped["state"]
            print(text)
            if stepped["exited"]:
                break
            confidence = state.get("confidence")
            if confidence is not None and confidence < 0.5:
                print(f"agent: low confidence ({confidence}); asking for every variable here")
                _, text = await call(client, "get_state", {"session_id": session})
                print(text)
            if state["line"] == if_line:
                # Read the item in full (the concise form shows only changes).
                full, _ = await call(client, "get_state", {"session_id": session, "names": ["price"]})
                item = literal(full["state"]["locals"].get("price", "None"))
            elif state["line"] == add_line and item is not None:
                full, _ = await call(client, "get_state", {"session_id": session, "names": ["price", "total"]})
                price = literal(full["state"]["locals"].get("price", "None"))
                wanted = intended_price(item, discount_from)
                if price is not None and abs(price - wanted) > 1e-9:
                    verdict = (
                        f"line {if_line} `{source.splitlines()[if_line - 1].strip()}`: the item priced "
                        f"{item} should cost {wanted} (10% off at or above {discount_from}) but costs "
                        f"{price} when it is added; the condition should be `price >= discount_from`"
                    )
                    break
                item = None

        if verdict:
            print(f"\nagent: bug found at {verdict}")
        else:
            print("\nagent: the predicted run matches the intent; no bug found along this path")
        if allow_run:
            checked, text = await call(client, "check_prediction", {"session_id": session})
            print(f"agent: checking the predicted states against a real run: {text}")
        await call(client, "end_session", {"session_id": session})
        return 0 if verdict else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ndb", default=default_ndb(), help="the ndb binary (default: target/debug/ndb)")
    parser.add_argument("--allow-run", action="store_true", help="let the agent check predictions by running the code")
    parser.add_argument("extra", nargs="*", help="more arguments for `ndb mcp`, after --")
    options = parser.parse_args()
    sys.exit(asyncio.run(main(options.ndb, options.allow_run, options.extra)))
