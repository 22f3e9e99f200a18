import * as assert from "node:assert/strict";
import { test } from "node:test";

import { MODEL_LOAD_TOKEN, Status, usesTracer } from "../status";

test("the status follows the server's model loading", () => {
  const status = new Status();
  assert.match(status.view().text, /stopped/);
  status.serverState("starting");
  assert.match(status.view().text, /starting/);
  status.serverState("running");
  assert.equal(status.progress(MODEL_LOAD_TOKEN, { kind: "begin", title: "ndb: loading the neural debugger model" }), true);
  assert.match(status.view().text, /loading model/);
  status.progress(MODEL_LOAD_TOKEN, { kind: "end", message: "loaded in 3.2 s" });
  assert.match(status.view().text, /model ready/);
  assert.match(status.view().tooltip, /loaded in 3\.2 s/);
});

test("a model that failed to load says predictions are off", () => {
  const status = new Status();
  status.serverState("running");
  status.progress(MODEL_LOAD_TOKEN, { kind: "begin", title: "x" });
  status.progress(MODEL_LOAD_TOKEN, { kind: "end", message: "failed" });
  assert.match(status.view().text, /no model/);
  assert.match(status.view().tooltip, /predictions are off/);
});

test("long predictions show while they run, then the model state comes back", () => {
  const status = new Status();
  status.serverState("running");
  status.progress(MODEL_LOAD_TOKEN, { kind: "end", message: "loaded in 1.0 s" });
  status.progress("ndb-prediction-0", { kind: "begin", title: "ndb: predicting line 15 of weighted_sum([1], [2])" });
  status.progress("ndb-prediction-1", { kind: "begin", title: "ndb: suggesting inputs for countdown" });
  assert.match(status.view().text, /predicting/);
  assert.match(status.view().tooltip, /line 15[\s\S]*countdown/);
  status.progress("ndb-prediction-0", { kind: "end" });
  status.progress("ndb-prediction-1", { kind: "end" });
  assert.match(status.view().text, /model ready/);
});

test("progress of other servers or requests is not ours", () => {
  const status = new Status();
  assert.equal(status.progress("some-other-token", { kind: "begin", title: "indexing" }), false);
  assert.equal(status.progress(42, { kind: "begin", title: "indexing" }), false);
});

test("a missing binary shows its message; a stopped server forgets the model", () => {
  const status = new Status();
  status.serverState("missing", "ndb was not found");
  assert.deepEqual(status.view(), { text: "$(error) ndb: not found", tooltip: "ndb was not found" });
  status.serverState("running");
  status.progress(MODEL_LOAD_TOKEN, { kind: "end", message: "loaded in 1.0 s" });
  status.serverState("stopped");
  status.serverState("running");
  assert.equal(status.view().text, "$(debug-alt) ndb");
});

test("the tracer engine needs running code allowed", () => {
  assert.equal(usesTracer({ engine: "tracer", allowRunningCode: true }), true);
  assert.equal(usesTracer({ engine: "tracer" }), false);
  assert.equal(usesTracer({ engine: "model", allowRunningCode: true }), false);
  const status = new Status();
  status.serverState("running");
  status.usesTracer = true;
  assert.match(status.view().text, /tracer/);
});
