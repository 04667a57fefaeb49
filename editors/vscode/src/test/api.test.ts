// Unit tests of the API client over real HTTP: the list, answers, and how failures are told apart.
import { strict as assert } from "node:assert";
import * as net from "node:net";
import { after, before, test } from "node:test";
import { answer, ApiError, framingAllowed, getWaits } from "../api";
import { makeWait, WaitsServer } from "./server";

const srv = new WaitsServer();
let base = "";
before(async () => (base = await srv.listen()));
after(() => srv.close());

const target = () => ({ server: base, token: srv.token, source: "test" });

test("the list, and a long poll that answers when it changes", async () => {
  srv.add(makeWait("a"));
  const first = await getWaits(target());
  assert.deepEqual(first.waits.map((w) => w.id), ["a"]);
  const poll = getWaits(target(), first.seq);
  srv.add(makeWait("b"));
  const next = await poll;
  assert.ok(next.seq > first.seq);
  assert.deepEqual(next.waits.map((w) => w.id), ["a", "b"]);
});

test("a wait answered in the agent's terminal is left out: it waits on nobody", async () => {
  srv.add({ ...makeWait("t"), answerable: false, actions: [], answered: "answered in the terminal — outcome not known yet" });
  const l = await getWaits(target());
  assert.ok(!l.waits.some((w) => w.id === "t"), "the answered wait is listed");
});

test("an answer is taken once; the second is told what already happened", async () => {
  srv.add(makeWait("c"));
  const first = await answer(target(), "c", "approve");
  assert.equal(first.taken, true);
  assert.equal(first.outcome, "approved");
  const second = await answer(target(), "c", "approve");
  assert.deepEqual(second, { taken: false, outcome: "approved by you" });
  assert.deepEqual(srv.answers.filter((a) => a.id === "c"), [{ id: "c", action: "approve" }]);
});

test("a wrong token is told apart from a server that is not running", async () => {
  await assert.rejects(getWaits({ ...target(), token: "wrong" }), (e: ApiError) => e.kind === "unauthorized" && /refused the token/.test(e.message));
  const port = await freePort();
  await assert.rejects(getWaits({ server: `http://127.0.0.1:${port}`, token: "x", source: "test" }),
    (e: ApiError) => e.kind === "down" && /not running/.test(e.message));
});

test("framing: plandash's frame-ancestors against the webview's origin", () => {
  const csp = (a: string) => `default-src 'self'; frame-ancestors ${a}; object-src 'none'`;
  assert.equal(framingAllowed(csp("'self'"), "vscode-webview://abc"), false);
  assert.equal(framingAllowed(csp("'self' vscode-webview:"), "vscode-webview://abc"), true);
  assert.equal(framingAllowed(csp("'self' http://127.0.0.1:*"), "http://127.0.0.1:8080"), true);
  assert.equal(framingAllowed(csp("http://127.0.0.1:8080"), "http://127.0.0.1:8081"), false);
  assert.equal(framingAllowed(csp("http://localhost:*"), "http://127.0.0.1:8080"), false);
  assert.equal(framingAllowed("default-src 'self'", "vscode-webview://abc"), true);
  assert.equal(framingAllowed(null, "vscode-webview://abc"), true);
});

/** freePort is a port nothing listens on (it was free a moment ago). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}
