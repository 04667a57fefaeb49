// The plandash panel: a webview whose page frames plandash's /embed views, passes VS Code's theme
// and font to them live (plandash:theme), and switches between this workspace's sessions and all.
import * as vscode from "vscode";
import { overviewPath } from "./scope";
import { frameSrc, noteHTML, refusal, ScopeChoice, View, viewHTML } from "./webview";

/**
 * Where the panel's page loads plandash from and where the extension checks it: the same server
 * seen from two places. In a remote window of desktop VS Code the extension runs on the remote
 * machine and the page on the laptop, through a port asExternalUri forwarded.
 */
export interface PanelTarget {
  /** The address and token the webview's page uses. */
  view: View;
  /** The address the extension itself reaches plandash at (for its framing check). */
  probe: string;
}

/**
 * Panel owns the one webview panel. It is created on first use and kept (with its context) while
 * hidden, so the embedded page keeps its live socket instead of loading again.
 */
export class Panel implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;
  private target?: PanelTarget;
  private path = "/embed";

  constructor(private readonly extensionUri: vscode.Uri) {}

  /** show opens (or reveals) the panel at path, an /embed path of target's server. */
  show(target: PanelTarget, path: string): void {
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
    const old = this.target?.view;
    const sameServer = old && old.server === target.view.server && old.token === target.view.token;
    this.target = target;
    this.path = path;
    if (fresh || !sameServer) {
      this.panel.webview.html = viewHTML(target.view, path, this.scopes());
    } else {
      void this.panel.webview.postMessage({ type: "navigate", src: frameSrc(target.view, path), path });
    }
    this.panel.reveal(undefined, false);
  }

  /** refresh reloads the panel, if open, for a new target (connect, a changed setting). */
  refresh(target: PanelTarget | undefined): void {
    if (!this.panel) return;
    this.target = target;
    this.panel.webview.html = target
      ? viewHTML(target.view, this.path, this.scopes())
      : noteHTML("Not connected", "Run <b>plandash: Connect…</b> to connect to a dashboard.");
  }

  dispose(): void {
    this.panel?.dispose();
  }

  private onMessage(m: { type?: string; origin?: string }): void {
    // The webview tells its own origin: whether plandash lets it frame the views depends on it
    // (vscode-webview:// in desktop VS Code, the editor's http origin in a browser).
    if (m?.type === "origin" && typeof m.origin === "string" && this.target) void this.checkFraming(this.target, m.origin);
  }

  private async checkFraming(t: PanelTarget, origin: string): Promise<void> {
    try {
      const res = await fetch(t.probe + "/healthz");
      const text = refusal(res.headers.get("content-security-policy"), origin, t.view.server);
      if (text) void this.panel?.webview.postMessage({ type: "refused", text });
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
}
