// The palette's commands: the panel's views, connecting, starting the dashboard and installing
// an agent's hooks into this workspace.
import { execFile } from "node:child_process";
import * as path from "node:path";
import * as vscode from "vscode";
import { Connection, secretKey } from "./connection";
import type { CommandId } from "./ids";
import { overviewPath } from "./scope";
import { isHttpURL } from "./target";

/** The agents `plandash install` knows, with the names people know them by. */
const AGENTS = [
  { label: "Claude Code", id: "claude" },
  { label: "Codex CLI", id: "codex" },
  { label: "Gemini CLI", id: "gemini" },
  { label: "OpenCode", id: "opencode" },
  { label: "Copilot CLI", id: "copilot" },
  { label: "Droid", id: "droid" },
  { label: "Pi", id: "pi" },
  { label: "Cline", id: "cline" },
  { label: "Qwen Code", id: "qwen" },
  { label: "Kilo Code", id: "kilo" },
  { label: "Crush", id: "crush" },
  { label: "Amp", id: "amp" },
];

/**
 * FRAME_ANCESTORS lets plandash's views be framed by this panel: vscode-webview: in desktop VS
 * Code, the editor's loopback origin in code-server.
 */
const FRAME_ANCESTORS = "'self' vscode-webview: http://127.0.0.1:* http://localhost:*";

/** handlers is what each command does. */
export function handlers(ctx: vscode.ExtensionContext, conn: Connection): Record<CommandId, () => unknown> {
  return {
    "plandash.openDashboard": () => conn.open(overviewPath()),
    "plandash.openWorkspace": () => conn.open(overviewPath(conn.folders()[0])),
    "plandash.openInbox": () => conn.open("/embed/approvals"),
    "plandash.openOldestWait": () => conn.openOldest(),
    "plandash.explain": () => conn.explain(),
    "plandash.disconnect": () => conn.stop(),
    "plandash.connect": () => connect(ctx, conn),
    "plandash.startServer": () => startServer(conn),
    "plandash.installHooks": () => installHooks(conn),
  };
}

async function connect(ctx: vscode.ExtensionContext, conn: Connection): Promise<void> {
  const config = vscode.workspace.getConfiguration("plandash");
  const local = { label: "The local dashboard", detail: "Found the way `plandash url` finds it: its data directory's address and token" };
  const remote = { label: "A server URL…", detail: "A shared or remote plandash, with a token kept in VS Code's secret storage" };
  const pick = await vscode.window.showQuickPick([local, remote], { title: "plandash: connect to" });
  if (!pick) return;
  if (pick === local) {
    await config.update("server", undefined, vscode.ConfigurationTarget.Global);
    await conn.start();
    return;
  }
  const server = await vscode.window.showInputBox({
    title: "plandash server URL",
    value: config.get<string>("server") || "http://127.0.0.1:7420",
    validateInput: (v) => (isHttpURL(v.trim()) ? undefined : "An http:// or https:// URL"),
  });
  if (!server) return;
  const token = await vscode.window.showInputBox({
    title: "Its token (the admin token, or a per-agent token with the decide scope)",
    password: true,
    ignoreFocusOut: true,
  });
  if (token === undefined) return;
  const url = server.trim().replace(/\/+$/, "");
  // The token goes to secret storage only: settings.json holds the URL and nothing else.
  await ctx.secrets.store(secretKey(url), token.trim());
  await config.update("server", url, vscode.ConfigurationTarget.Global);
  await conn.start();
}

function startServer(conn: Connection): void {
  const exe = vscode.workspace.getConfiguration("plandash").get<string>("path") || "plandash";
  const term = vscode.window.createTerminal({ name: "plandash serve" });
  term.sendText(`${quote(exe)} serve --frame-ancestors ${quote(FRAME_ANCESTORS)}`);
  term.show(true);
  // The watcher retries by itself, with backoff; look again soon instead.
  setTimeout(() => void conn.start(), 1500);
}

async function installHooks(conn: Connection): Promise<void> {
  const folders = vscode.workspace.workspaceFolders || [];
  if (folders.length === 0) {
    void vscode.window.showInformationMessage("Open a folder first: the hooks go into its settings.");
    return;
  }
  const agent = await vscode.window.showQuickPick(AGENTS, { title: "Install plandash's hooks for which agent?" });
  if (!agent) return;
  const folder = folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: "Into which folder?" });
  if (!folder) return;
  const exe = vscode.workspace.getConfiguration("plandash").get<string>("path") || "plandash";
  const args = ["install", agent.id, "--project", folder.uri.fsPath];
  // The binary configured here is the one the hooks should run; install would otherwise refuse
  // one that lives in a temporary directory, as a `go run` build does.
  if (path.isAbsolute(exe)) args.push("--command", exe);
  const t = conn.target();
  if (vscode.workspace.getConfiguration("plandash").get<string>("server")) args.push("--server", t.server);
  execFile(exe, args, { cwd: folder.uri.fsPath, timeout: 30000 }, (err, stdout, stderr) => {
    const out = vscode.window.createOutputChannel("plandash");
    out.appendLine(`$ ${exe} ${args.join(" ")}`);
    out.append(stdout);
    out.append(stderr);
    if (err) {
      out.show(true);
      const why = (err as NodeJS.ErrnoException).code === "ENOENT" ? `${exe} is not installed (or set plandash.path)` : stderr.trim() || err.message;
      void vscode.window.showWarningMessage(`plandash install ${agent.id} failed: ${why}`);
      return;
    }
    void vscode.window.showInformationMessage(`plandash: ${agent.label}'s hooks are in ${folder.name}. ${stdout.trim().split("\n")[0]}`, "Show what changed").then((p) => {
      if (p) out.show(true);
    });
  });
}

/** quote makes s one word for the terminal's shell, readably: double quotes when they suffice. */
function quote(s: string): string {
  if (/^[\w./:-]+$/.test(s)) return s;
  if (!/["$`\\!]/.test(s)) return `"${s}"`;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
