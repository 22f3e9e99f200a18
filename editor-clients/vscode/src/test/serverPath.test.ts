import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { Environment, expand, isExecutableFile, MISSING_MESSAGE, resolveServer } from "../serverPath";

function environment(executables: string[], overrides: Partial<Environment> = {}): Environment {
  return {
    path: "/usr/local/bin:/home/me/.cargo/bin",
    home: "/home/me",
    platform: "linux",
    workspaceFolder: "/work/project",
    isExecutable: (file) => executables.includes(file),
    ...overrides,
  };
}

test("the setting wins and the arguments follow `lsp`", () => {
  const resolved = resolveServer("/opt/ndb/bin/ndb", ["--samples", "4"], environment(["/opt/ndb/bin/ndb", "/usr/local/bin/ndb"]));
  assert.deepEqual(resolved, { ok: true, command: "/opt/ndb/bin/ndb", args: ["lsp", "--samples", "4"] });
});

test("without the setting, ndb is looked up on PATH in order", () => {
  const resolved = resolveServer("", undefined, environment(["/home/me/.cargo/bin/ndb"]));
  assert.deepEqual(resolved, { ok: true, command: "/home/me/.cargo/bin/ndb", args: ["lsp"] });
});

test("a missing binary gives a message that says what to do", () => {
  const resolved = resolveServer(undefined, [], environment([]));
  assert.deepEqual(resolved, { ok: false, message: MISSING_MESSAGE });
  assert.match(MISSING_MESSAGE, /neuralDebugger\.serverPath/);
});

test("a wrong setting is named, not replaced by PATH", () => {
  const resolved = resolveServer("~/bin/ndb", [], environment(["/usr/local/bin/ndb"]));
  assert.equal(resolved.ok, false);
  assert.match(!resolved.ok ? resolved.message : "", /"\/home\/me\/bin\/ndb"/);
});

test("~ and ${workspaceFolder} are expanded", () => {
  assert.equal(expand("~/bin/ndb", environment([])), "/home/me/bin/ndb");
  assert.equal(expand("${workspaceFolder}/target/debug/ndb", environment([])), "/work/project/target/debug/ndb");
});

test("Windows looks for ndb with PATHEXT", () => {
  const resolved = resolveServer("", [], environment(["C:\\tools\\ndb.EXE"], { platform: "win32", path: "C:\\other;C:\\tools", pathExt: ".COM;.EXE" }));
  assert.deepEqual(resolved, { ok: true, command: "C:\\tools\\ndb.EXE", args: ["lsp"] });
});

test("isExecutableFile checks the real file system", () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "ndb-vscode-"));
  const script = path.join(directory, "ndb");
  fs.writeFileSync(script, "#!/bin/sh\n");
  fs.chmodSync(script, 0o644);
  assert.equal(isExecutableFile(script), false);
  fs.chmodSync(script, 0o755);
  assert.equal(isExecutableFile(script), true);
  assert.equal(isExecutableFile(directory), false);
  assert.equal(isExecutableFile(path.join(directory, "missing")), false);
  fs.rmSync(directory, { recursive: true });
});
