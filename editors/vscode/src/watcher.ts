// The live list of waits: one long poll at a time against GET /api/v1/waits, with what began and
// what ended since the last answer. No VS Code import: node's test runner drives it against a
// real HTTP server.
import { ApiError, FailureKind, getWaits, Wait } from "./api";
import type { Target } from "./target";

/** The connection's state, for the status bar and the panel. */
export type State = { kind: "connecting" } | { kind: "live" } | { kind: FailureKind; message: string } | { kind: "stopped" };

/** What the watcher reports after each answer that changed the list. */
export interface Change {
  waits: Wait[];
  /** Waits not in the previous list. Empty on the first list: those began before we looked. */
  begun: Wait[];
  /** Waits of the previous list that are gone. */
  ended: Wait[];
}

/** Listeners and the target source handed to a watcher. */
export interface WatcherOptions {
  /** The target, read again before every (re)connection so a new token or address is used. */
  target(): Target;
  onChange(c: Change): void;
  onState(s: State): void;
  /** Waits between failed attempts: 1 s, doubling up to this (default 15 s). */
  maxBackoffMs?: number;
}

/**
 * Watcher keeps one long poll running until stopped. The first answer is a plain read (the list
 * as it is); every later request asks for changes after the last sequence seen. A failure is
 * reported once per kind and retried with backoff, so a dashboard started later is found.
 */
export class Watcher {
  private abort?: AbortController;
  private running = false;
  private known = new Map<string, Wait>();
  private state: State = { kind: "stopped" };

  constructor(private readonly opts: WatcherOptions) {}

  /** The current list, oldest first. */
  waits(): Wait[] {
    return [...this.known.values()];
  }

  /** The current state. */
  current(): State {
    return this.state;
  }

  /** start begins watching (again); a running watcher restarts with a fresh target. */
  start(): void {
    this.stop();
    this.running = true;
    const abort = new AbortController();
    this.abort = abort;
    void this.loop(abort.signal);
  }

  /** stop ends the poll in flight and forgets the list. */
  stop(): void {
    this.running = false;
    this.abort?.abort();
    this.abort = undefined;
    if (this.known.size > 0) {
      const ended = this.waits();
      this.known.clear();
      this.opts.onChange({ waits: [], begun: [], ended });
    }
    this.setState({ kind: "stopped" });
  }

  private setState(s: State): void {
    const same = s.kind === this.state.kind && ("message" in s ? s.message : "") === ("message" in this.state ? this.state.message : "");
    this.state = s;
    if (!same) this.opts.onState(s);
  }

  private async loop(signal: AbortSignal): Promise<void> {
    let seq: number | undefined;
    let first = true;
    let backoff = 1000;
    const max = this.opts.maxBackoffMs ?? 15000;
    this.setState({ kind: "connecting" });
    while (!signal.aborted) {
      try {
        const list = await getWaits(this.opts.target(), seq, signal);
        if (signal.aborted) return;
        backoff = 1000;
        this.setState({ kind: "live" });
        // A restarted server starts its sequence again: a smaller one is a fresh list.
        if (seq === undefined || list.seq !== seq) this.apply(list.waits, first);
        first = false;
        seq = list.seq;
      } catch (e) {
        if (signal.aborted) return;
        const err = e instanceof ApiError ? e : new ApiError("http", String((e as Error)?.message || e));
        this.setState({ kind: err.kind, message: err.message });
        seq = undefined; // read the whole list again once back
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, max);
      }
    }
  }

  private apply(waits: Wait[], first: boolean): void {
    const next = new Map(waits.map((w) => [w.id, w]));
    const begun = first ? [] : waits.filter((w) => !this.known.has(w.id));
    const ended = [...this.known.values()].filter((w) => !next.has(w.id));
    const changed = begun.length > 0 || ended.length > 0 || first || waits.length !== this.known.size;
    this.known = next;
    if (changed) this.opts.onChange({ waits, begun, ended });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}
