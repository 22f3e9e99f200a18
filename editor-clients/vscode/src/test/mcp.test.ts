import * as assert from "node:assert/strict";
import { test } from "node:test";

import { MCP_PROVIDER_ID, MCP_SETTINGS, mcpArgs, mcpDefinition } from "../mcp";
import { packageJson } from "./repository";

const settings = (values: Record<string, unknown>) => (key: string) => values[key];

test("the MCP server is ndb mcp with the editor's model settings and never runs code unasked", () => {
  assert.deepEqual(mcpArgs(settings({})), ["mcp"]);
  assert.deepEqual(
    mcpArgs(settings({ modelPath: " /m/default ", python: "/usr/bin/python3", samples: 4, allowRunningCode: true })),
    ["mcp", "--model", "/m/default", "--python", "/usr/bin/python3", "--samples", "4"],
  );
  assert.deepEqual(mcpArgs(settings({ "mcp.allowRunningCode": true, "mcp.args": ["--max-sessions", "4", 7] })), [
    "mcp",
    "--allow-run",
    "--max-sessions",
    "4",
  ]);
  assert.deepEqual(mcpArgs(settings({ samples: 0, modelPath: "" })), ["mcp"]);
  // A team's served model wins over a local one, as in the language server.
  assert.deepEqual(mcpArgs(settings({ modelServer: "http://gpu:8080", modelPath: "/m" })), [
    "mcp",
    "--server",
    "http://gpu:8080",
  ]);
});

test("no server is registered when it is switched off or ndb is missing", () => {
  assert.deepEqual(mcpDefinition("/bin/ndb", settings({ "mcp.enable": false }), "0.1.0"), []);
  assert.deepEqual(mcpDefinition(undefined, settings({}), "0.1.0"), []);
  const [definition] = mcpDefinition("/bin/ndb", settings({}), "0.1.0");
  assert.equal(definition.command, "/bin/ndb");
  assert.deepEqual(definition.args, ["mcp"]);
  // A change of arguments is a new version: VS Code offers to refresh the tools.
  const [other] = mcpDefinition("/bin/ndb", settings({ "mcp.allowRunningCode": true }), "0.1.0");
  assert.notEqual(definition.version, other.version);
});

test("the manifest contributes the provider id and every MCP setting", () => {
  const manifest = packageJson();
  const providers = manifest.contributes.mcpServerDefinitionProviders.map((provider: { id: string }) => provider.id);
  assert.deepEqual(providers, [MCP_PROVIDER_ID]);
  for (const key of MCP_SETTINGS) {
    assert.ok(`neuralDebugger.${key}` in manifest.contributes.configuration.properties, key);
  }
});
