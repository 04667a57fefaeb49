// The extension once started: the connection (status bar, notifications), the panel and what
// each command does.
import * as vscode from "vscode";
import { handlers } from "./commands";
import { Connection } from "./connection";
import type { CommandId } from "./ids";
import { Panel } from "./panel";

/** App runs the extension's commands. */
export interface App {
  run(id: CommandId): unknown;
}

/** start builds the extension and begins watching the dashboard. */
export function start(ctx: vscode.ExtensionContext): App {
  const panel = new Panel(ctx.extensionUri);
  const conn = new Connection(ctx, panel);
  ctx.subscriptions.push(panel, conn);
  const run = handlers(ctx, conn);
  void conn.start();
  return { run: (id) => run[id]() };
}
