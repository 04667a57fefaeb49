// Unit tests of how the extension finds the dashboard: the same order as `plandash url`.
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { test } from "node:test";
import { dataDir, DEFAULT_SERVER, Env, mixedContent, readAddr, resolveTarget, viewServer } from "../target";

function env(vars: Record<string, string>, files: Record<string, string> = {}): Env {
  return { getenv: (n) => vars[n], readFile: (f) => files[f] };
}

const home = "/home/dev";
const data = path.join(home, ".local", "share", "plandash");

test("the data directory follows XDG_DATA_HOME, then HOME, unless configured", () => {
  assert.equal(dataDir(env({ HOME: home }), ""), data);
  assert.equal(dataDir(env({ HOME: home, XDG_DATA_HOME: "/xdg" }), ""), "/xdg/plandash");
  assert.equal(dataDir(env({ HOME: home }), "/srv/pd"), "/srv/pd");
});

test("the local dashboard: env, then the recorded address, then the default", () => {
  const files = { [path.join(data, "addr")]: "http://127.0.0.1:7421\n", [path.join(data, "token")]: "file-token\n" };
  const byFile = resolveTarget(env({ HOME: home }, files), { server: "", dataDir: "" });
  assert.deepEqual([byFile.server, byFile.token], ["http://127.0.0.1:7421", "file-token"]);

  const byEnv = resolveTarget(env({ HOME: home, PLANDASH_SERVER: "http://10.0.0.5:7420/", PLANDASH_TOKEN: "env-token" }, files), { server: "", dataDir: "" });
  assert.deepEqual([byEnv.server, byEnv.token], ["http://10.0.0.5:7420", "env-token"]);

  const none = resolveTarget(env({ HOME: home }), { server: "", dataDir: "" });
  assert.deepEqual([none.server, none.token], [DEFAULT_SERVER, ""]);
});

test("a configured server takes its token from secret storage only", () => {
  const files = { [path.join(data, "token")]: "local-token" };
  const t = resolveTarget(env({ HOME: home, PLANDASH_TOKEN: "env-token" }, files), { server: "https://pd.example.com/", dataDir: "", secretToken: "secret" });
  assert.deepEqual([t.server, t.token], ["https://pd.example.com", "secret"]);
  const missing = resolveTarget(env({ HOME: home }, files), { server: "https://pd.example.com", dataDir: "" });
  assert.equal(missing.token, "", "the local token must never go to another server");
});

test("an address file that is not an http(s) URL is ignored", () => {
  for (const bad of ["file:///etc/passwd", "javascript:alert(1)", "127.0.0.1:7420", "x".repeat(600), ""]) {
    assert.equal(readAddr(env({}, { "/d/addr": bad }), "/d"), "", bad);
  }
  assert.equal(readAddr(env({}, { "/d/addr": " https://h:1 \n" }), "/d"), "https://h:1");
});

test("viewServer: asExternalUri only for a loopback server in a remote window of desktop VS Code", async () => {
  const calls: string[] = [];
  const forward = async (u: string) => {
    calls.push(u);
    return "http://localhost:53122/";
  };
  const ssh = { remoteName: "ssh-remote", desktop: true };
  assert.equal(await viewServer("http://127.0.0.1:7420", ssh, forward), "http://localhost:53122");
  assert.equal(await viewServer("http://localhost:7420", { remoteName: "dev-container", desktop: true }, forward), "http://localhost:53122");
  assert.deepEqual(calls, ["http://127.0.0.1:7420", "http://localhost:7420"]);
  // A local window, another host, and a browser (code-server) load the address as it is.
  assert.equal(await viewServer("http://127.0.0.1:7420", { desktop: true }, forward), "http://127.0.0.1:7420");
  assert.equal(await viewServer("https://plandash.example.com", ssh, forward), "https://plandash.example.com");
  assert.equal(await viewServer("http://127.0.0.1:7420", { remoteName: "localhost:8080", desktop: false }, forward), "http://127.0.0.1:7420");
  assert.equal(calls.length, 2);
});

test("mixedContent: desktop VS Code's panel frames plain http only from a loopback address", () => {
  assert.equal(mixedContent("http://devbox:7420", true), true);
  assert.equal(mixedContent("http://127.0.0.1:7420", true), false);
  assert.equal(mixedContent("http://localhost:7420", true), false);
  assert.equal(mixedContent("https://plandash.example.com", true), false);
  assert.equal(mixedContent("http://devbox:7420", false), false);
  assert.equal(mixedContent("http://[::1]:7420", true), false);
  assert.equal(mixedContent("http://127.example.com:7420", true), true);
});
