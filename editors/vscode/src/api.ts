// The two routes of plandash's HTTP API the extension uses: the list of waits (long-polled) and
// the answer to one. No VS Code import: node's test runner checks it against a real HTTP server.
import type { Target } from "./target";

/** One thing an agent waits on a person for (GET /api/v1/waits). */
export interface Wait {
  id: string;
  kind: "plan" | "permission" | "question" | "input" | string;
  title: string;
  /** The whole plan or question as plain text when it is short enough, else "". */
  detail: string;
  /** detail is the whole thing: a notification may carry one-tap actions. */
  fits: boolean;
  sessionId: string;
  agent: string;
  agentName: string;
  machine?: string;
  cwd?: string;
  since: string;
  deadline?: string;
  then?: string;
  /** false: it can only be answered in the agent's terminal. */
  answerable: boolean;
  /**
   * Set when the person answered in the agent's own dialog and the outcome is not known yet
   * ("answered in the terminal — outcome not known yet"): it waits on nobody.
   */
  answered?: string;
  /** The path of the dashboard page that answers it, e.g. /approvals/ID. */
  url: string;
  actions: { id: string; label: string }[];
}

/** The list and its sequence number: a long poll answers once the sequence passes `after`. */
export interface WaitList {
  seq: number;
  waits: Wait[];
}

/** Why a call failed: the server is not there, refused the token, or answered something else. */
export type FailureKind = "down" | "unauthorized" | "http";

/** ApiError is a failed call, with what a person should be told. */
export class ApiError extends Error {
  constructor(readonly kind: FailureKind, message: string, readonly status = 0) {
    super(message);
  }
}

/** The outcome of answering a wait: taken, or it had already ended ("already decided"). */
export type AnswerResult = { taken: true; outcome: string; wait?: Wait } | { taken: false; outcome: string };

/** The long poll's own timeout, in seconds: the server answers at the latest after this. */
export const POLL_SECONDS = 30;

/**
 * getWaits reads the list; with after, it is a long poll that the server answers as soon as the
 * list's sequence passes it, else after POLL_SECONDS with the current list.
 */
export async function getWaits(t: Target, after?: number, signal?: AbortSignal): Promise<WaitList> {
  const q = after === undefined ? "" : `?after=${after}&wait=${POLL_SECONDS}s`;
  const res = await call(t, "GET", "/api/v1/waits" + q, undefined, signal);
  const body = (await res.json()) as Partial<WaitList>;
  // A wait answered in the agent's own dialog waits on nobody: it is neither counted nor notified.
  const waits = Array.isArray(body.waits) ? body.waits.filter((w) => !w.answered) : [];
  return { seq: Number(body.seq || 0), waits };
}

/** answer sends one of the wait's actions (and free text, for questions). */
export async function answer(t: Target, id: string, action: string, text = "", signal?: AbortSignal): Promise<AnswerResult> {
  const path = `/api/v1/waits/${encodeURIComponent(id)}/answer`;
  try {
    const res = await call(t, "POST", path, JSON.stringify({ action, text }), signal);
    const body = (await res.json()) as { outcome?: string; wait?: Wait };
    return { taken: true, outcome: body.outcome || "answered", wait: body.wait };
  } catch (e) {
    if (e instanceof ConflictError) return { taken: false, outcome: e.outcome };
    throw e;
  }
}

/** ConflictError is a 409: the wait had already ended; outcome says how. */
class ConflictError extends Error {
  constructor(readonly outcome: string) {
    super(outcome);
  }
}

async function call(t: Target, method: string, path: string, body?: string, signal?: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(t.server + path, {
      method,
      body,
      signal,
      headers: { Authorization: `Bearer ${t.token}`, Accept: "application/json", ...(body ? { "Content-Type": "application/json" } : {}) },
    });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiError("down", `plandash is not running at ${t.server} (${reason(e)})`);
  }
  if (res.ok) return res;
  const text = await res.text().catch(() => "");
  let detail = "";
  try {
    const j = JSON.parse(text) as { detail?: string; error?: string; title?: string; outcome?: string };
    if (res.status === 409) throw new ConflictError(j.outcome || j.error || j.detail || "it had already ended");
    detail = j.detail || j.error || j.title || "";
  } catch (e) {
    if (e instanceof ConflictError) throw e;
  }
  if (res.status === 409) throw new ConflictError("it had already ended");
  if (res.status === 401 || res.status === 403) {
    throw new ApiError("unauthorized", `plandash at ${t.server} refused the token${detail ? ": " + detail : ""}`, res.status);
  }
  if (res.status === 404 && path.startsWith("/api/v1/waits")) {
    throw new ApiError("http", `plandash at ${t.server} has no /api/v1/waits: it is older than this extension, update it`, 404);
  }
  throw new ApiError("http", `plandash answered ${res.status}${detail ? ": " + detail : ""}`, res.status);
}

/** reason is the low-level cause of a failed fetch, e.g. ECONNREFUSED. */
function reason(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code || cause?.message || (e as Error)?.message || String(e);
}

/**
 * framingAllowed says whether a page with this Content-Security-Policy may be framed by the
 * webview, whose origin is `vscode-webview://…` in desktop VS Code and the editor's own http(s)
 * origin in a browser (code-server, vscode.dev): plandash's default, 'self', refuses both.
 */
export function framingAllowed(csp: string | null, webviewOrigin: string): boolean {
  if (!csp) return true;
  const m = /(?:^|;)\s*frame-ancestors\s+([^;]*)/i.exec(csp);
  if (!m) return true;
  return m[1].trim().split(/\s+/).some((src) => sourceMatches(src, webviewOrigin));
}

function sourceMatches(src: string, origin: string): boolean {
  if (src === "*") return true;
  if (/^[a-z][a-z0-9+.-]*:$/i.test(src)) return origin.toLowerCase().startsWith(src.toLowerCase());
  const m = /^(https?:\/\/[^:/]+)(?::(\*|\d+))?$/i.exec(src);
  if (!m) return false;
  const o = /^(https?:\/\/[^:/]+)(?::(\d+))?$/i.exec(origin);
  if (!o || o[1].toLowerCase() !== m[1].toLowerCase()) return false;
  return m[2] === "*" || (m[2] || "") === (o[2] || "");
}
