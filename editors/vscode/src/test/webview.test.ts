// Unit tests of the panel's page as desktop VS Code (vscode-webview://) and a browser
// (code-server's http origin) load it: its CSP, the iframe's address and what it says when
// plandash refuses to be framed.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { frameSrc, refusal, viewHTML } from "../webview";

const scopes = [{ label: "This workspace", path: "/embed?dir=%2Fw" }, { label: "All sessions", path: "/embed" }];

/** csp is the page's own Content-Security-Policy, as the <meta> tag carries it. */
function csp(html: string): Map<string, string> {
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  assert.ok(m, "the page has a CSP");
  const out = new Map<string, string>();
  for (const d of m[1].split(";").map((s) => s.trim()).filter(Boolean)) {
    const [name, ...rest] = d.split(/\s+/);
    out.set(name, rest.join(" "));
  }
  return out;
}

test("the page frames exactly plandash's origin and runs only its own script and style", () => {
  // In a remote window, asExternalUri's port on the laptop: the origin the page must frame.
  const html = viewHTML({ server: "http://localhost:53122", token: "t0k&n" }, "/embed?dir=%2Fw", scopes);
  const p = csp(html);
  assert.equal(p.get("default-src"), "'none'");
  assert.equal(p.get("frame-src"), "http://localhost:53122");
  const nonce = /'nonce-([A-Za-z0-9]{32})'/.exec(p.get("script-src") || "");
  assert.ok(nonce, "scripts by nonce only");
  assert.equal(p.get("style-src"), `'nonce-${nonce[1]}'`);
  assert.equal((html.match(/<script /g) || []).length, 1);
  assert.ok(html.includes(`<script nonce="${nonce[1]}">`));
  // The token rides in the fragment, escaped in the attribute, never in the query.
  assert.ok(html.includes(`src="http://localhost:53122/embed?dir=%2Fw#token=t0k%26n"`));
  assert.ok(html.includes(`<option value="/embed?dir=%2Fw" selected>This workspace</option>`));
});

test("an https server behind a path keeps only its origin in frame-src", () => {
  const p = csp(viewHTML({ server: "https://plandash.example.com", token: "x" }, "/embed", scopes));
  assert.equal(p.get("frame-src"), "https://plandash.example.com");
  assert.equal(frameSrc({ server: "https://plandash.example.com", token: "a b" }, "/embed/approvals"), "https://plandash.example.com/embed/approvals#token=a%20b");
});

test("without a token the page frames nothing and says what to do", () => {
  const html = viewHTML({ server: "http://127.0.0.1:7420", token: "" }, "/embed", scopes);
  assert.equal(csp(html).get("frame-src"), undefined);
  assert.ok(!html.includes("<iframe"));
  assert.ok(html.includes("plandash: Connect…"));
});

test("refused framing names the --frame-ancestors to add, for desktop VS Code and for a browser", () => {
  const self = "default-src 'self'; frame-ancestors 'self'";
  assert.equal(
    refusal(self, "vscode-webview://1a2b3c", "http://127.0.0.1:7420"),
    `plandash at http://127.0.0.1:7420 does not let this panel (vscode-webview://1a2b3c) show its views. Restart it with --frame-ancestors "'self' vscode-webview:".`,
  );
  assert.match(refusal(self, "http://127.0.0.1:8080", "http://127.0.0.1:7420"), /--frame-ancestors "'self' http:\/\/127\.0\.0\.1:\*"/);
  assert.equal(refusal("frame-ancestors 'self' vscode-webview: http://127.0.0.1:*", "vscode-webview://1a2b3c", "http://127.0.0.1:7420"), "");
  assert.equal(refusal("frame-ancestors 'self' vscode-webview: http://127.0.0.1:*", "http://127.0.0.1:8080", "http://127.0.0.1:7420"), "");
});
