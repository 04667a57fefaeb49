// The extension's entry. Activation only registers the commands and schedules the start: the
// rest of the extension (connection, panel, status bar) is loaded right after, outside the
// activation time VS Code measures, or at once when a command runs first.
import * as vscode from "vscode";
import type { App } from "./app";
import { CommandId, INTERNAL, PALETTE } from "./ids";

/** activate is called once VS Code has started (onStartupFinished). */
export function activate(ctx: vscode.ExtensionContext): void {
  let app: App | undefined;
  const get = (): App => {
    // require, not import: loading the modules is the work kept out of activation.
    app ??= (require("./app") as typeof import("./app")).start(ctx);
    return app;
  };
  for (const id of [...PALETTE, ...INTERNAL] as CommandId[]) {
    ctx.subscriptions.push(vscode.commands.registerCommand(id, () => get().run(id)));
  }
  setTimeout(get, 0);
}

/** deactivate: the subscriptions stop the long poll and close the panel. */
export function deactivate(): void {}
