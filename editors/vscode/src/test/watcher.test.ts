// Unit tests of the live list: what began and ended across long polls, and finding a dashboard
// that starts after the editor.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { Change, State, Watcher } from "../watcher";
import { makeWait, WaitsServer } from "./server";

/** until waits for cond, checked after each report (bounded: a failure, not a timing). */
async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(cond(), "timed out waiting for " + what);
}

test("begun and ended follow the server's list; the first list begins nothing", async () => {
  const srv = new WaitsServer();
  const base = await srv.listen();
  srv.add(makeWait("old"));
  const changes: Change[] = [];
  const states: State[] = [];
  const w = new Watcher({ target: () => ({ server: base, token: srv.token, source: "t" }), onChange: (c) => changes.push(c), onState: (s) => states.push(s) });
  w.start();
  try {
    await until("the first list", () => changes.length === 1);
    assert.deepEqual(changes[0].begun, []);
    assert.deepEqual(w.waits().map((x) => x.id), ["old"]);
    srv.add(makeWait("new"));
    await until("the new wait", () => changes.length === 2);
    assert.deepEqual(changes[1].begun.map((x) => x.id), ["new"]);
    srv.end("old", "approved");
    await until("the end", () => changes.length === 3);
    assert.deepEqual(changes[2].ended.map((x) => x.id), ["old"]);
    assert.deepEqual(w.waits().map((x) => x.id), ["new"]);
    assert.deepEqual(states.map((s) => s.kind), ["connecting", "live"]);
  } finally {
    w.stop();
    await srv.close();
  }
});

test("a dashboard that is down is reported once, then found when it starts", async () => {
  const srv = new WaitsServer();
  const base = await srv.listen();
  await srv.close(); // the port is known but nothing listens there
  const states: State[] = [];
  const w = new Watcher({ target: () => ({ server: base, token: srv.token, source: "t" }), onChange: () => {}, onState: (s) => states.push(s), maxBackoffMs: 100 });
  w.start();
  try {
    await until("down", () => states.some((s) => s.kind === "down"));
    const again = new WaitsServer();
    await again.listen(Number(new URL(base).port));
    await until("live", () => states.some((s) => s.kind === "live"));
    assert.equal(states.filter((s) => s.kind === "down").length, 1, "down is said once, not on every retry");
    w.stop();
    await again.close();
  } finally {
    w.stop();
  }
});
