// The extension's entry: activation registers the commands and the status bar item and returns;
// the connection starts right after, outside the activation VS Code times.
import * as vscode from "vscode";
import { registerCommands } from "./commands";
import { Connection } from "./connection";
import { Panel } from "./panel";

/** activate is called once VS Code has started (onStartupFinished). */
export function activate(ctx: vscode.ExtensionContext): void {
  const panel = new Panel(ctx.extensionUri);
  const conn = new Connection(ctx, panel);
  ctx.subscriptions.push(panel, conn);
  registerCommands(ctx, conn, panel);
  // Nothing waits on the network or the disk before VS Code counts activation as done.
  setTimeout(() => conn.start(), 0);
}

/** deactivate: the subscriptions stop the long poll and close the panel. */
export function deactivate(): void {}
