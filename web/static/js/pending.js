// Owns the pending count: the gate's waiting requests plus agents' open permission requests,
// shown in #pending-count on every page. The layout renders it empty; it is fetched each time
// the socket goes live (so also after a reconnect, which may have missed changes) and then kept
// by the socket's "pending-count" fragments. A fetched count older than the shown one (by the
// gate's seq) is dropped. The title, the favicon, notifications and the embed's host hear of
// it through subscribe.
import { hooks } from "./hooks.js";
import { authHeaders } from "./token.js";

const ID = "pending-count";

// createPending returns the count of a page whose socket is socket.
export function createPending(socket) {
  const listeners = hooks();
  let count = null; // unknown until the server says

  // read takes the count the element shows now, and tells the listeners when it changed.
  function read() {
    const el = document.getElementById(ID);
    if (!el || el.dataset.count === undefined) return;
    const n = Number(el.dataset.count || 0), previous = count;
    if (n === previous) return;
    count = n;
    listeners.emit(n, { previous, latest: el.dataset.latest || "" });
  }

  function refresh() {
    fetch("/api/v1/approvals/count", { credentials: "same-origin", headers: authHeaders() })
      .then((r) => (r.ok ? r.json() : null))
      .then((c) => {
        const el = document.getElementById(ID);
        if (!c || !el || Number(el.dataset.gateSeq || 0) > c.seq) return;
        el.dataset.gateSeq = String(c.seq);
        el.dataset.latest = "";
        el.dataset.count = String(c.pending);
        el.textContent = c.pending ? String(c.pending) : "";
        read();
      })
      .catch(() => { /* the socket's next fragment brings it */ });
  }

  // The swap runs before this hook, so the element read is the fragment's.
  socket.onFragment((f) => { if (f.id === ID) read(); });
  socket.onState((s) => { if (s === "live") refresh(); });

  return {
    /** count is the number waiting, or null before the server has said. */
    count: () => count,
    /**
     * subscribe(fn): fn(n, {previous, latest}) each time the count changes; previous is null
     * the first time, latest the title of the newest request when one just arrived.
     */
    subscribe: listeners.add,
  };
}
