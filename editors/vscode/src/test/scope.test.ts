// Unit tests of the workspace scope, the panel paths and what a notification offers.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import type { Wait } from "../api";
import { embedPath, inScope, inside, needsReason, notifyButtons, oldest, overviewPath, statusText, toNotify } from "../scope";

function wait(over: Partial<Wait>): Wait {
  return { id: "w", kind: "plan", title: "Ship it", detail: "1. a\n2. b", fits: true, sessionId: "s", agent: "claude", agentName: "Claude Code",
    since: "2026-01-01T00:00:00Z", answerable: true, url: "/approvals/w", actions: [{ id: "approve", label: "Approve" }, { id: "reject", label: "Reject" }], ...over };
}

test("inside: the folder itself and what is under it, not a sibling with the same prefix", () => {
  assert.ok(inside("/work/shop", ["/work/shop"]));
  assert.ok(inside("/work/shop/api/", ["/work/shop/"]));
  assert.ok(!inside("/work/shopping", ["/work/shop"]));
  assert.ok(!inside("", ["/work/shop"]));
  assert.ok(!inside(undefined, ["/"]) );
  assert.ok(inside("/anything", ["/"]));
  assert.ok(inside("C:\\Work\\Shop\\api", ["c:\\work\\shop"]));
});

test("inScope keeps this workspace's waits unless all are asked for", () => {
  const ws = [wait({ id: "a", cwd: "/w/a" }), wait({ id: "b", cwd: "/elsewhere" }), wait({ id: "c" })];
  assert.deepEqual(inScope(ws, ["/w"], false).map((w) => w.id), ["a"]);
  assert.deepEqual(inScope(ws, ["/w"], true).map((w) => w.id), ["a", "b", "c"]);
});

test("oldest is the earliest since", () => {
  const ws = [wait({ id: "new", since: "2026-01-02T00:00:00Z" }), wait({ id: "old", since: "2026-01-01T00:00:00Z" })];
  assert.equal(oldest(ws)?.id, "old");
  assert.equal(oldest([]), undefined);
});

test("embedPath maps dashboard pages to their panel views", () => {
  assert.equal(embedPath("/approvals/ab-1"), "/embed/approvals/ab-1");
  assert.equal(embedPath("/approvals#acp-s-1"), "/embed/approvals#acp-s-1");
  assert.equal(embedPath("/sessions/s%201"), "/embed/sessions/s%201");
  assert.equal(embedPath("/approvals/audit"), "/embed");
  assert.equal(embedPath("https://evil.example/x"), "/embed");
  assert.equal(overviewPath("/w/a b"), "/embed?dir=%2Fw%2Fa%20b");
  assert.equal(statusText(2), "plandash: 2 waiting");
});

test("one-tap actions only when the whole thing fits and plandash can answer it", () => {
  assert.deepEqual(notifyButtons(wait({})), ["Approve", "Reject", "Open"]);
  assert.deepEqual(notifyButtons(wait({ fits: false })), ["Open"]);
  assert.deepEqual(notifyButtons(wait({ answerable: false })), ["Open"]);
  const q = wait({ kind: "question", actions: [{ id: "opt-0", label: "Postgres" }, { id: "opt-1", label: "SQLite" }] });
  assert.deepEqual(notifyButtons(q), ["Postgres", "SQLite", "Open"]);
});

test("a plan's rejection asks for a reason; approving and a question's options do not", () => {
  assert.equal(needsReason(wait({}), "reject"), true);
  assert.equal(needsReason(wait({}), "approve"), false);
  assert.equal(needsReason(wait({ kind: "question" }), "opt-0"), false);
});

test("notifications: this workspace's or all waits, never with off, and a wait for the next prompt only when asked for", () => {
  const ws = [wait({ id: "plan", cwd: "/w" }), wait({ id: "idle", kind: "input", cwd: "/w/a" }), wait({ id: "away", kind: "question", cwd: "/srv" })];
  const ids = (mode: string, input: boolean) => toNotify(ws, ["/w"], { mode, input }).map((w) => w.id);
  assert.deepEqual(ids("workspace", false), ["plan"]);
  assert.deepEqual(ids("workspace", true), ["plan", "idle"]);
  assert.deepEqual(ids("all", false), ["plan", "away"]);
  assert.deepEqual(ids("all", true), ["plan", "idle", "away"]);
  assert.deepEqual(ids("off", true), []);
});
