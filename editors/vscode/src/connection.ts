// The connection to the dashboard as VS Code sees it: which server and token (settings, secret
// storage, the local data directory), the live list of waits behind the status bar item, and a
// notification as each wait begins.
import * as fs from "node:fs";
import * as vscode from "vscode";
import { answer, ApiError, Wait } from "./api";
import type { Panel, PanelTarget } from "./panel";
import { embedPath, needsReason, notifyButtons, notifyText, oldest, OPEN, overviewPath, statusText, toNotify } from "./scope";
import { Env, mixedContent, resolveTarget, Target, viewServer } from "./target";
import { State, Watcher } from "./watcher";

/** The secret storage key of the token for a configured server URL. */
export function secretKey(server: string): string {
  return "plandash.token:" + server.replace(/\/+$/, "");
}

const nodeEnv: Env = {
  getenv: (n) => process.env[n],
  readFile: (f) => {
    try {
      return fs.readFileSync(f, "utf8");
    } catch {
      return undefined;
    }
  },
};

/** Connection owns the watcher, the status bar item and the notifications. */
export class Connection implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly watcher: Watcher;
  private secret: string | undefined;
  private stopped = false;
  private toDispose: vscode.Disposable[] = [];

  constructor(private readonly ctx: vscode.ExtensionContext, private readonly panel: Panel) {
    this.item = vscode.window.createStatusBarItem("plandash.waits", vscode.StatusBarAlignment.Left, 10);
    this.item.name = "plandash";
    this.watcher = new Watcher({
      target: () => this.target(),
      onChange: (c) => this.changed(c.waits, c.begun),
      onState: (s) => this.render(s),
    });
  }

  /** start reads the stored token and begins watching; it is called again after a change. */
  async start(): Promise<void> {
    this.stopped = false;
    if (this.toDispose.length === 0) {
      this.toDispose.push(
        vscode.workspace.onDidChangeConfiguration((e) => {
          if (e.affectsConfiguration("plandash.server") || e.affectsConfiguration("plandash.dataDir")) void this.restart();
        }),
        this.ctx.secrets.onDidChange((e) => {
          if (e.key.startsWith("plandash.token:")) void this.restart();
        }),
      );
    }
    const server = this.setting("server");
    this.secret = server ? await this.ctx.secrets.get(secretKey(server)) : undefined;
    this.item.show();
    this.watcher.start();
  }

  /** restart follows a changed setting or token, and the panel with it. */
  async restart(): Promise<void> {
    if (this.stopped) return;
    await this.start();
    this.panel.refresh(await this.panelTarget());
  }

  /** stop disconnects until start is called again (plandash: Connect…). */
  stop(): void {
    this.stopped = true;
    this.watcher.stop();
    this.item.text = "plandash: disconnected";
    this.item.tooltip = "Not watching plandash. Click to connect.";
    this.item.command = "plandash.connect";
    this.panel.refresh(undefined);
  }

  /** The server and token in use now. */
  target(): Target {
    return resolveTarget(nodeEnv, { server: this.setting("server"), dataDir: this.setting("dataDir"), secretToken: this.secret });
  }

  /** The connection's state now. */
  state(): State {
    return this.watcher.current();
  }

  /** waits is the live list, oldest first. */
  waits(): Wait[] {
    return this.watcher.waits();
  }

  /** The open workspace folders, as paths on the machine the extension runs on. */
  folders(): string[] {
    return (vscode.workspace.workspaceFolders || []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  }

  /** open shows path in the panel, unless plandash is not reachable: then it says so. */
  async open(path: string): Promise<void> {
    const s = this.state();
    if (s.kind === "down" || s.kind === "unauthorized" || this.stopped) {
      void this.explain();
      return;
    }
    const t = await this.panelTarget();
    if (mixedContent(t.view.server, vscode.env.uiKind === vscode.UIKind.Desktop)) {
      // The panel's page is a secure origin (vscode-webview://): it may frame plain http only
      // from a loopback address, and shows nothing otherwise.
      void vscode.window.showWarningMessage(
        `The panel cannot show ${t.view.server}: VS Code's panels load plain http only from this machine (127.0.0.1, localhost). Serve plandash over https, or forward its port here (ssh -L 7420:127.0.0.1:7420) and connect to http://127.0.0.1:7420.`,
      );
    }
    this.panel.show(t, path);
  }

  /** panelTarget is where the panel's page loads plandash from, and where the extension checks it. */
  async panelTarget(): Promise<PanelTarget> {
    const t = this.target();
    const host = { remoteName: vscode.env.remoteName, desktop: vscode.env.uiKind === vscode.UIKind.Desktop };
    const server = await viewServer(t.server, host, async (u) => (await vscode.env.asExternalUri(vscode.Uri.parse(u))).toString(true));
    return { view: { server, token: t.token }, probe: t.server };
  }

  /** openWait shows the page that answers w. */
  openWait(w: Wait): void {
    void this.open(embedPath(w.url));
  }

  /** openOldest opens the oldest wait, or the panel's first view when nothing waits. */
  openOldest(): void {
    const w = oldest(this.waits());
    if (w) this.openWait(w);
    else void this.open(this.firstView());
  }

  /** firstView is the overview the panel opens on: this workspace's (plandash.panelScope) or all. */
  firstView(): string {
    const all = vscode.workspace.getConfiguration("plandash").get<string>("panelScope") === "all";
    return overviewPath(all ? undefined : this.folders()[0]);
  }

  /** explain says why there is no connection and offers the way out. */
  async explain(): Promise<void> {
    const s = this.state();
    const t = this.target();
    if (this.stopped) {
      const pick = await vscode.window.showInformationMessage("plandash is disconnected.", "Connect…");
      if (pick) void vscode.commands.executeCommand("plandash.connect");
      return;
    }
    if (s.kind === "unauthorized") {
      const pick = await vscode.window.showWarningMessage(`${s.message}. Give it the dashboard's token (plandash url prints it).`, "Connect…");
      if (pick) void vscode.commands.executeCommand("plandash.connect");
      return;
    }
    const start = "Start plandash serve";
    const pick = await vscode.window.showWarningMessage(
      `plandash is not running at ${t.server} (${t.source}). Start it, or connect to another server.`,
      start,
      "Connect…",
    );
    if (pick === start) void vscode.commands.executeCommand("plandash.startServer");
    else if (pick) void vscode.commands.executeCommand("plandash.connect");
  }

  dispose(): void {
    this.watcher.stop();
    this.item.dispose();
    this.toDispose.forEach((d) => d.dispose());
  }

  private setting(name: string): string {
    return vscode.workspace.getConfiguration("plandash").get<string>(name) || "";
  }

  private render(s: State): void {
    switch (s.kind) {
      case "live":
        this.count(this.waits());
        return;
      case "connecting":
        this.item.text = "plandash: connecting…";
        this.item.tooltip = `Connecting to ${this.target().server}`;
        this.item.command = undefined;
        return;
      case "down":
        this.item.text = "$(debug-disconnect) plandash: not running";
        this.item.tooltip = `${s.message}. Click to start it or connect elsewhere.`;
        this.item.command = "plandash.explain";
        return;
      case "unauthorized":
      case "http":
        this.item.text = "$(warning) plandash: not connected";
        this.item.tooltip = s.message;
        this.item.command = "plandash.explain";
        return;
    }
  }

  private count(waits: Wait[]): void {
    this.item.text = statusText(waits.length);
    const lines = waits.map((w) => `- ${w.agentName || w.agent}: ${w.title}${w.cwd ? ` (${w.cwd})` : ""}`);
    this.item.tooltip = waits.length ? new vscode.MarkdownString(`Waiting for you, oldest first:\n\n${lines.join("\n")}`) : "Nothing waits for you.";
    this.item.command = "plandash.openOldestWait";
  }

  private changed(waits: Wait[], begun: Wait[]): void {
    if (this.state().kind === "live") this.count(waits);
    const config = vscode.workspace.getConfiguration("plandash");
    const prefs = { mode: config.get<string>("notifications") || "workspace", input: config.get<boolean>("notifyInput") === true };
    for (const w of toNotify(begun, this.folders(), prefs)) void this.notify(w);
  }

  /** notify raises one notification for a wait that began, and carries out the button chosen. */
  private async notify(w: Wait): Promise<void> {
    const pick = await vscode.window.showInformationMessage(notifyText(w), ...notifyButtons(w));
    if (!pick) return;
    if (pick === OPEN) {
      this.openWait(w);
      return;
    }
    const action = w.actions.find((a) => a.label === pick);
    if (!action) return;
    let text = "";
    if (needsReason(w, action.id)) {
      const reason = await vscode.window.showInputBox({
        title: `${pick}: ${w.title}`,
        prompt: "Why? The agent reads this to know what to do instead.",
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : "A rejection needs a reason"),
      });
      if (reason === undefined) return;
      text = reason.trim();
    }
    try {
      const res = await answer(this.target(), w.id, action.id, text);
      if (res.taken) void vscode.window.showInformationMessage(`plandash: ${res.outcome}`);
      // VS Code cannot take a notification back once the wait ended elsewhere: say so gently.
      else void vscode.window.showInformationMessage(`plandash: already decided — ${res.outcome}`);
    } catch (e) {
      const msg = e instanceof ApiError ? e.message : String((e as Error)?.message || e);
      void vscode.window.showWarningMessage(`plandash could not send "${pick}": ${msg}`);
    }
  }
}
