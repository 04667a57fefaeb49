// The extension's command ids: activation registers these before anything else is loaded.
// A unit test keeps this list and package.json's contributes.commands the same.

/** Commands in the palette (package.json contributes each). */
export const PALETTE = [
  "plandash.openDashboard",
  "plandash.openWorkspace",
  "plandash.openInbox",
  "plandash.openOldestWait",
  "plandash.connect",
  "plandash.disconnect",
  "plandash.startServer",
  "plandash.installHooks",
] as const;

/** Commands only the extension itself runs (the status bar item's "why not connected"). */
export const INTERNAL = ["plandash.explain"] as const;

/** Every command id. */
export type CommandId = (typeof PALETTE)[number] | (typeof INTERNAL)[number];
