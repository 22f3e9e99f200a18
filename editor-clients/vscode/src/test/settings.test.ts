import * as assert from "node:assert/strict";
import { test } from "node:test";

import { CLIENT_SETTINGS, initializationOptions, SECTION, SERVER_SETTINGS, serverSettings } from "../settings";
import { doc, packageJson } from "./repository";

/** The rows of the settings table in docs/lsp.md: key and default cell. */
function documentedSettings(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of doc("lsp.md").split("\n")) {
    const match = /^\| `([A-Za-z.]+)` \| (.*?) \|/.exec(line);
    if (match) {
      rows.set(match[1], match[2].trim());
    }
  }
  return rows;
}

test("every documented server setting is contributed, with the server's default", () => {
  const documented = documentedSettings();
  assert.ok(documented.size >= 10, `the settings table of docs/lsp.md was not found (${documented.size} rows)`);
  assert.deepEqual([...documented.keys()].sort(), [...SERVER_SETTINGS].sort());
  const properties = packageJson().contributes.configuration.properties;
  for (const [key, cell] of documented) {
    const property = properties[`${SECTION}.${key}`];
    assert.ok(property, `package.json does not contribute ${SECTION}.${key}`);
    const literal = /^`(.*)`$/.exec(cell);
    let expected: unknown = null;
    if (literal) {
      try {
        expected = JSON.parse(literal[1]);
      } catch {
        // `python3`: a default the server picks itself; the setting is unset.
      }
    }
    assert.deepEqual(property.default, expected, `default of ${key} (documented as ${cell})`);
  }
});

test("package.json contributes exactly the server's settings and the extension's own", () => {
  const contributed = Object.keys(packageJson().contributes.configuration.properties).sort();
  const expected = [...SERVER_SETTINGS, ...CLIENT_SETTINGS].map((key) => `${SECTION}.${key}`).sort();
  assert.deepEqual(contributed, expected);
});

test("settings are nested as the server reads them, unset ones left out", () => {
  const values: Record<string, unknown> = {
    allowRunningCode: true,
    "inlayHints.maxLength": 80,
    "inlayHints.breakpoints": false,
    samples: null,
    modelPath: "",
    python: undefined,
    serverPath: "/opt/ndb",
    "hover.waitMs": 0,
  };
  const settings = serverSettings((key) => values[key]);
  assert.deepEqual(settings, {
    allowRunningCode: true,
    inlayHints: { breakpoints: false, maxLength: 80 },
    hover: { waitMs: 0 },
  });
  assert.deepEqual(initializationOptions((key) => values[key]), { neuralDebugger: settings });
});

test("the extension's own settings never reach the server", () => {
  const settings = serverSettings(() => "x");
  for (const key of CLIENT_SETTINGS) {
    assert.equal(JSON.stringify(settings).includes(key.split(".")[0]), false, key);
  }
});
