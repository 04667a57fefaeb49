// The plandash panel: a webview whose page frames plandash's /embed views, passes VS Code's theme
// and font to them live (plandash:theme), and switches between this workspace's sessions and all.
import * as vscode from "vscode";
import { framingAllowed } from "./api";
import { overviewPath } from "./scope";
import type { Target } from "./target";

/** A choice of the panel's scope switch: a label and the /embed path it shows. */
interface ScopeChoice {
  label: string;
  path: string;
}

/**
 * Panel owns the one webview panel. It is created on first use and kept (with its context) while
 * hidden, so the embedded page keeps its live socket instead of loading again.
 */
export class Panel implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;
  private target?: Target;
  private path = "/embed";

  constructor(private readonly extensionUri: vscode.Uri) {}

  /** show opens (or reveals) the panel at path, an /embed path of target's server. */
  show(target: Target, path: string): void {
    const fresh = !this.panel;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel("plandash", "plandash", { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [],
      });
      this.panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "icon.png");
      this.panel.onDidDispose(() => (this.panel = undefined));
      this.panel.webview.onDidReceiveMessage((m) => this.onMessage(m));
    }
    const sameServer = this.target && this.target.server === target.server && this.target.token === target.token;
    this.target = target;
    this.path = path;
    if (fresh || !sameServer) {
      this.panel.webview.html = this.html(target, path);
    } else {
      void this.panel.webview.postMessage({ type: "navigate", src: src(target, path), path });
    }
    this.panel.reveal(undefined, false);
  }

  /** refresh reloads the panel, if open, for a new target (connect, a changed setting). */
  refresh(target: Target | undefined): void {
    if (!this.panel) return;
    if (!target) {
      this.panel.webview.html = page("Not connected", `<p class="note">Run <b>plandash: Connect…</b> to connect to a dashboard.</p>`, "");
      this.target = undefined;
      return;
    }
    this.target = target;
    this.panel.webview.html = this.html(target, this.path);
  }

  dispose(): void {
    this.panel?.dispose();
  }

  private onMessage(m: { type?: string; origin?: string }): void {
    // The webview tells its own origin: whether plandash lets it frame the views depends on it
    // (vscode-webview:// in desktop VS Code, the editor's http origin in a browser).
    if (m?.type === "origin" && typeof m.origin === "string" && this.target) void this.checkFraming(this.target, m.origin);
  }

  private async checkFraming(t: Target, origin: string): Promise<void> {
    try {
      const res = await fetch(t.server + "/healthz");
      if (framingAllowed(res.headers.get("content-security-policy"), origin)) return;
      const anc = origin.startsWith("vscode-webview:") ? "vscode-webview:" : origin.replace(/:\d+$/, ":*");
      void this.panel?.webview.postMessage({
        type: "refused",
        text: `plandash at ${t.server} does not let this panel (${origin}) show its views. Restart it with --frame-ancestors "'self' ${anc}".`,
      });
    } catch {
      // Not reachable: the status bar says so already.
    }
  }

  private scopes(): ScopeChoice[] {
    const folders = vscode.workspace.workspaceFolders || [];
    const out = folders.map((f) => ({ label: folders.length > 1 ? `This workspace: ${f.name}` : "This workspace", path: overviewPath(f.uri.fsPath) }));
    out.push({ label: "All sessions", path: overviewPath() });
    return out;
  }

  private html(t: Target, path: string): string {
    if (!t.token) {
      return page("No token", `<p class="note">No token for ${esc(t.server)}. Run <b>plandash: Connect…</b>.</p>`, "");
    }
    const options = this.scopes()
      .map((s) => `<option value="${esc(s.path)}"${s.path === path ? " selected" : ""}>${esc(s.label)}</option>`)
      .join("");
    const body = `<header class="bar">
  <select id="scope" aria-label="Which sessions" data-testid="scope">${options}<option value="/embed/approvals"${path.startsWith("/embed/approvals") ? " selected" : ""}>Inbox</option></select>
  <span id="refused" class="refused" role="alert" hidden></span>
</header>
<iframe id="p" title="plandash" src="${esc(src(t, path))}" data-base="${esc(t.server)}" data-token="${esc(t.token)}"></iframe>`;
    return page("plandash", body, t.server);
  }
}

/** src is the iframe's address: the token rides in the fragment, which never reaches a server log. */
function src(t: Target, path: string): string {
  return `${t.server}${path}#token=${encodeURIComponent(t.token)}`;
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
function page(title: string, body: string, server: string): string {
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
