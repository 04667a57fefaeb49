// Which waits and sessions belong to this workspace, and where in the panel a wait is answered.
// No VS Code import: node's test runner checks it directly.
import type { Wait } from "./api";

/** norm drops trailing separators (but keeps a root) and unifies Windows separators. */
function norm(p: string): string {
  let s = p.replace(/\\/g, "/");
  while (s.length > 1 && s.endsWith("/")) s = s.slice(0, -1);
  return s;
}

/**
 * inside says cwd is one of the folders or under one: /work/shop/api is inside /work/shop,
 * /work/shopping is not. Windows paths compare without case, as that file system does.
 */
export function inside(cwd: string | undefined, folders: readonly string[]): boolean {
  if (!cwd) return false;
  const windows = /^[a-z]:/i.test(cwd);
  const c = windows ? norm(cwd).toLowerCase() : norm(cwd);
  return folders.some((f) => {
    const d = windows ? norm(f).toLowerCase() : norm(f);
    return c === d || c.startsWith(d === "/" ? "/" : d + "/");
  });
}

/** inScope keeps the waits of this workspace's sessions, or every wait when all is set. */
export function inScope(waits: readonly Wait[], folders: readonly string[], all: boolean): Wait[] {
  return all ? waits.slice() : waits.filter((w) => inside(w.cwd, folders));
}

/** Which waits raise a notification: the settings plandash.notifications and plandash.notifyInput. */
export interface NotifyPrefs {
  /** "workspace": this workspace's sessions; "all"; "off". */
  mode: string;
  /** Also the waits of kind "input" (an agent ended its turn and waits for the next prompt). */
  input: boolean;
}

/**
 * toNotify picks the waits that began and deserve a notification. A session waiting for its next
 * prompt is one every turn of every agent: unless asked for, it only counts in the status bar.
 */
export function toNotify(begun: readonly Wait[], folders: readonly string[], prefs: NotifyPrefs): Wait[] {
  if (prefs.mode === "off") return [];
  return inScope(begun, folders, prefs.mode === "all").filter((w) => prefs.input || w.kind !== "input");
}

/** oldest is the wait that began first (the list comes oldest first, but do not rely on it). */
export function oldest(waits: readonly Wait[]): Wait | undefined {
  let best: Wait | undefined;
  for (const w of waits) {
    if (!best || Date.parse(w.since) < Date.parse(best.since)) best = w;
  }
  return best;
}

/**
 * embedPath is the panel view of a dashboard page: /approvals/ID becomes /embed/approvals/ID,
 * /sessions/ID /embed/sessions/ID, the inbox (with its anchor) /embed/approvals; anything else
 * the panel cannot show becomes the overview.
 */
export function embedPath(url: string): string {
  const m = /^(\/(?:approvals(?:\/[^/?#]+)?|sessions\/[^/?#]+))([?#].*)?$/.exec(url);
  if (!m || m[1] === "/approvals/audit") return "/embed";
  return "/embed" + m[1] + (m[2] || "");
}

/** overviewPath is the panel's overview, narrowed to one directory when dir is given. */
export function overviewPath(dir?: string): string {
  return dir ? "/embed?dir=" + encodeURIComponent(dir) : "/embed";
}

/** The text of the status bar item for n waits. */
export function statusText(n: number): string {
  return `plandash: ${n} waiting`;
}

/**
 * notifyButtons are a notification's buttons: the wait's own actions only where the notification
 * carries the whole plan or question and plandash can answer it, then always Open.
 */
export function notifyButtons(w: Wait): string[] {
  const own = w.fits && w.answerable ? w.actions.map((a) => a.label) : [];
  return [...own, OPEN];
}

/**
 * needsReason says an answer must come with words: plandash refuses a plan's rejection without a
 * reason, because the agent reads it to know what to do instead.
 */
export function needsReason(w: Wait, action: string): boolean {
  return w.kind === "plan" && action === "reject";
}

/** The button that opens the wait in the panel. */
export const OPEN = "Open";

/** notifyText is a notification's message: who waits, for what, and the whole thing when it fits. */
export function notifyText(w: Wait): string {
  const who = w.agentName || w.agent || "An agent";
  let s = `${who} waits for you: ${w.title}`;
  if (w.fits && w.detail && w.detail.trim() !== w.title.trim()) s += ` — ${w.detail}`;
  if (!w.answerable) s += " (answer it in the agent's terminal)";
  return s;
}
