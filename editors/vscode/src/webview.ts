// The webview's document: a strict CSP that lets it frame only plandash's origin, a scope switch,
// and the script that passes VS Code's theme to plandash's page. No VS Code import: node's test
// runner checks what it builds, for code-server's http origin and desktop VS Code's
// vscode-webview: one alike.
import { framingAllowed } from "./api";

/** A choice of the panel's scope switch: a label and the /embed path it shows. */
export interface ScopeChoice {
  label: string;
  path: string;
}

/** Where the webview loads plandash from (maybe through asExternalUri) and with which token. */
export interface View {
  server: string;
  token: string;
}

/**
 * viewHTML is the panel's page for plandash's view at path: the switch between scopes (and the
 * inbox) above an iframe of plandash's origin.
 */
export function viewHTML(v: View, path: string, scopes: readonly ScopeChoice[]): string {
  if (!v.token) {
    return page("No token", `<p class="note">No token for ${esc(v.server)}. Run <b>plandash: Connect…</b>.</p>`, "");
  }
  const options = scopes
    .map((s) => `<option value="${esc(s.path)}"${s.path === path ? " selected" : ""}>${esc(s.label)}</option>`)
    .join("");
  const body = `<header class="bar">
  <select id="scope" aria-label="Which sessions" data-testid="scope">${options}<option value="/embed/approvals"${path.startsWith("/embed/approvals") ? " selected" : ""}>Inbox</option></select>
  <span id="refused" class="refused" role="alert" hidden></span>
</header>
<iframe id="p" title="plandash" src="${esc(frameSrc(v, path))}" data-base="${esc(v.server)}" data-token="${esc(v.token)}"></iframe>`;
  return page("plandash", body, v.server);
}

/** noteHTML is the panel's page when there is nothing to frame: a note instead. */
export function noteHTML(title: string, html: string): string {
  return page(title, `<p class="note">${html}</p>`, "");
}

/** frameSrc is the iframe's address: the token rides in the fragment, which never reaches a server log. */
export function frameSrc(v: View, path: string): string {
  return `${v.server}${path}#token=${encodeURIComponent(v.token)}`;
}

/**
 * refusal is what the panel says when plandash's Content-Security-Policy (csp, from the
 * extension's own request) does not let the webview at origin frame it, else "": the
 * --frame-ancestors to start plandash with. Desktop VS Code's webviews are vscode-webview://…,
 * a browser's (code-server) the editor's own http(s) origin.
 */
export function refusal(csp: string | null, origin: string, server: string): string {
  if (framingAllowed(csp, origin)) return "";
  const anc = origin.startsWith("vscode-webview:") ? "vscode-webview:" : origin.replace(/:\d+$/, ":*");
  return `plandash at ${server} does not let this panel (${origin}) show its views. Restart it with --frame-ancestors "'self' ${anc}".`;
}

function nonce(): string {
  let s = "";
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  for (let i = 0; i < 32; i++) s += chars.charAt(Math.floor(Math.random() * chars.length));
  return s;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

/** page is the webview's document: a strict CSP that lets it frame only plandash's origin. */
export function page(title: string, body: string, server: string): string {
  const n = nonce();
  const frame = server ? `frame-src ${new URL(server).origin};` : "";
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; ${frame} style-src 'nonce-${n}'; script-src 'nonce-${n}';">
<title>${esc(title)}</title>
<style nonce="${n}">
html, body { height: 100%; margin: 0; padding: 0; overflow: hidden; }
body { display: flex; flex-direction: column; font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); }
.bar { display: flex; gap: .5rem; align-items: center; padding: 4px 6px; border-bottom: 1px solid var(--vscode-panel-border); }
select { background: var(--vscode-dropdown-background); color: var(--vscode-dropdown-foreground); border: 1px solid var(--vscode-dropdown-border); font: inherit; padding: 2px 4px; }
.refused { color: var(--vscode-errorForeground); }
iframe { flex: 1; border: 0; width: 100%; }
.note { padding: 1rem; }
</style></head><body>${body}
<script nonce="${n}">${HOST_SCRIPT}</script></body></html>`;
}

/**
 * HOST_SCRIPT runs in the webview. It sends plandash the theme once the frame loads and again
 * whenever VS Code changes it (VS Code swaps the body's vscode-dark/vscode-light class and rewrites
 * the --vscode-* variables on <html>), and moves the frame when the scope switch or the extension
 * says so.
 */
const HOST_SCRIPT = `
(function () {
  const vscode = acquireVsCodeApi();
  const frame = document.getElementById("p");
  const scope = document.getElementById("scope");
  vscode.postMessage({ type: "origin", origin: location.origin });
  if (!frame) return;
  const VARS = ["--vscode-editor-background", "--vscode-sideBar-background", "--vscode-foreground",
    "--vscode-descriptionForeground", "--vscode-panel-border", "--vscode-focusBorder",
    "--vscode-textCodeBlock-background", "--vscode-font-family", "--vscode-font-size",
    "--vscode-editor-font-family"];
  const target = new URL(frame.dataset.base).origin;
  function theme() {
    const css = getComputedStyle(document.documentElement);
    const vars = {};
    VARS.forEach(function (k) { const v = css.getPropertyValue(k).trim(); if (v) vars[k] = v; });
    const c = document.body.classList;
    const dark = c.contains("vscode-dark") || (c.contains("vscode-high-contrast") && !c.contains("vscode-high-contrast-light"));
    return { type: "plandash:theme", theme: dark ? "dark" : "light", vars: vars };
  }
  let last = "";
  function send(force) {
    const msg = theme();
    const key = JSON.stringify(msg);
    if (!force && key === last) return;
    last = key;
    if (frame.contentWindow) frame.contentWindow.postMessage(msg, target);
  }
  // plandash says it is ready on every page it loads (after the token trade, too): restyle then.
  window.addEventListener("message", function (e) {
    const d = e.data || {};
    if (e.origin === target && d.type === "plandash:ready") send(true);
    if (e.origin !== target && d.type === "navigate") go(d.src, d.path);
    if (e.origin !== target && d.type === "refused") {
      const r = document.getElementById("refused");
      r.textContent = d.text;
      r.hidden = false;
    }
  });
  frame.addEventListener("load", function () { send(true); });
  new MutationObserver(function () { send(false); }).observe(document.body, { attributes: true, attributeFilter: ["class"] });
  new MutationObserver(function () { send(false); }).observe(document.documentElement, { attributes: true, attributeFilter: ["style"] });
  function go(src, path) {
    frame.src = src;
    if (scope) {
      const match = Array.prototype.find.call(scope.options, function (o) { return o.value === path; });
      if (match) scope.value = path;
    }
  }
  if (scope) scope.addEventListener("change", function () {
    go(frame.dataset.base + scope.value + "#token=" + encodeURIComponent(frame.dataset.token), scope.value);
  });
})();
`;
