import * as assert from "node:assert/strict";
import { test } from "node:test";

import { BreakpointMirror, groupByDocument, isPythonUri, SourceBreakpointInfo } from "../breakpoints";

const A = "file:///home/me/project/stats.py";
const B = "file:///home/me/project/other%20file.py";

function at(uri: string, line: number, enabled = true): SourceBreakpointInfo {
  return { uri, line, enabled };
}

test("breakpoints are grouped per document, sorted, without duplicates or disabled ones", () => {
  const grouped = groupByDocument([at(A, 20), at(B, 3), at(A, 12), at(A, 20), at(A, 7, false), at("file:///x/notes.md", 1)]);
  assert.deepEqual([...grouped.entries()], [
    [A, [12, 20]],
    [B, [3]],
  ]);
});

test("only Python files are mirrored", () => {
  assert.equal(isPythonUri("file:///a/b.py"), true);
  assert.equal(isPythonUri("file:///a/B.PY"), true);
  assert.equal(isPythonUri("file:///a/stubs.pyi"), true);
  assert.equal(isPythonUri("file:///a/b.py.txt"), false);
  assert.equal(isPythonUri("untitled:Untitled-1"), false);
});

test("a change sends the changed document's whole set, and nothing for the others", () => {
  const mirror = new BreakpointMirror();
  assert.deepEqual(mirror.update([at(A, 12), at(B, 3)]), [
    { uri: A, lines: [12] },
    { uri: B, lines: [3] },
  ]);
  assert.deepEqual(mirror.update([at(A, 12), at(A, 20), at(B, 3)]), [{ uri: A, lines: [12, 20] }]);
  assert.deepEqual(mirror.update([at(A, 20), at(A, 12), at(B, 3)]), [], "the same set in another order is no change");
});

test("the last breakpoint of a document going sends an empty list, once", () => {
  const mirror = new BreakpointMirror();
  mirror.update([at(A, 12), at(B, 3)]);
  assert.deepEqual(mirror.update([at(B, 3)]), [{ uri: A, lines: [] }]);
  assert.deepEqual(mirror.update([at(B, 3)]), []);
  assert.deepEqual(mirror.update([at(B, 3, false)]), [{ uri: B, lines: [] }], "disabling is removing");
});

test("after a reset (a new server) every document is sent again", () => {
  const mirror = new BreakpointMirror();
  mirror.update([at(A, 12)]);
  mirror.reset();
  assert.deepEqual(mirror.update([at(A, 12)]), [{ uri: A, lines: [12] }]);
  assert.deepEqual(mirror.linesOf(A), [12]);
});
