import * as assert from "node:assert/strict";
import { test } from "node:test";

import { CLIENT_COMMANDS, COMMANDS, commandArgument, describeResult } from "../commands";
import { doc, packageJson } from "./repository";

/** The server commands in the table of docs/lsp-protocol-extensions.md. */
function documentedCommands(): string[] {
  return doc("lsp-protocol-extensions.md")
    .split("\n")
    .map((line) => /^\| `(ndb\.[A-Za-z]+)` \|/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

test("every documented server command has a command of the extension", () => {
  const documented = documentedCommands();
  assert.ok(documented.length >= 6, `the command table was not found: ${documented}`);
  assert.deepEqual(COMMANDS.map((spec) => spec.server).sort(), [...documented].sort());
});

test("package.json contributes every command, none named like a server command", () => {
  const contributed = packageJson().contributes.commands.map((command: { command: string }) => command.command).sort();
  assert.deepEqual(contributed, [...COMMANDS.map((spec) => spec.id), ...CLIENT_COMMANDS].sort());
  for (const id of contributed) {
    assert.ok(!id.startsWith("ndb."), `${id} would clash with the server command the language client registers`);
  }
});

test("arguments carry the document, the 0-based line and what was typed", () => {
  const spec = (server: string) => COMMANDS.find((command) => command.server === server)!;
  const uri = "file:///p/stats.py";
  assert.deepEqual(commandArgument(spec("ndb.predict"), uri, 14), { uri, line: 14 });
  assert.deepEqual(commandArgument(spec("ndb.suggestInputs"), uri, 3, " [3, 2, 1] "), { uri, line: 3, output: "[3, 2, 1]" });
  assert.deepEqual(commandArgument(spec("ndb.suggestInputs"), uri, 3, ""), { uri, line: 3 });
  assert.deepEqual(commandArgument(spec("ndb.insertSuggestion"), uri, 3, "[1, 2], 3"), { uri, line: 3, input: "[1, 2], 3" });
});

test("answers become sentences", () => {
  assert.equal(describeResult("ndb.toggleBreakpoint", { lines: [11, 14] }), "ndb: neural breakpoints on lines 12, 15");
  assert.equal(describeResult("ndb.toggleBreakpoint", { lines: [] }), "ndb: no neural breakpoints in this file");
  assert.equal(
    describeResult("ndb.predict", {
      entryCall: "weighted_sum([1, 2, 3], [3, 2, 1])",
      value: "10",
      raised: false,
      confidence: { value: 0.82, verdict: "likely", votes: 1, samples: 1 },
      predicted: true,
    }),
    "ndb: weighted_sum([1, 2, 3], [3, 2, 1]) ≈ returns 10, confidence 82% (likely), nothing was run",
  );
  assert.equal(
    describeResult("ndb.predict", {
      entryCall: "f(2)",
      value: "4",
      raised: false,
      confidence: { value: 0.304, verdict: "guess", votes: 1, samples: 1 },
      predicted: true,
    }),
    "ndb: f(2) ≈ returns 4, confidence 30% (a guess), nothing was run",
  );
  assert.equal(
    describeResult("ndb.predict", { entryCall: "f(0)", value: "ZeroDivisionError", raised: true, confidence: null, predicted: false }),
    "ndb: f(0) (ran) raises ZeroDivisionError, the code was run",
  );
  assert.equal(describeResult("ndb.predict", { entryCall: "f(0)", error: "no model: missing" }), "ndb: no prediction for f(0): no model: missing");
  assert.equal(describeResult("ndb.chooseEntryCall", { function: "f", entryCall: null, candidates: [] }), undefined);
  assert.equal(describeResult("ndb.suggestInputs", { function: "countdown", suggestions: [], inserted: null }), "ndb: the model proposed no inputs for countdown");
  assert.equal(describeResult("ndb.insertSuggestion", { applied: true, entryCall: "countdown(3)", style: "doctest" }), "ndb: inserted countdown(3) as a doctest");
  assert.equal(describeResult("ndb.checkByRunning", { right: true }), undefined);
});
