// Owns document.title: the page's name (<title data-base>) after its counters spelled out,
// "6 waiting · 1 in progress — plandash": requests waiting for a decision (once the pending count
// is known) and plans in progress on the page. Nothing else writes the title.

// compose is the title for a page named base (which may still carry the server's short "(N) "
// and "[M] " counters, as the embed's pages do) with inProgress plans running and pending
// requests waiting (null: not known yet, so the server's own count of waiting requests stays).
export function compose(base, inProgress, pending) {
  let waiting = null;
  for (;;) {
    const w = /^\[(\d+)\]\s*/.exec(base), p = /^\(\d+\)\s*/.exec(base);
    if (w) { waiting = Number(w[1]); base = base.slice(w[0].length); } else if (p) base = base.slice(p[0].length); else break;
  }
  if (pending !== null) waiting = pending;
  const parts = [];
  if (waiting > 0) parts.push(waiting + " waiting");
  if (inProgress > 0) parts.push(inProgress + " in progress");
  return parts.length ? parts.join(" · ") + " — " + base : base;
}

// startTitle keeps the title current as fragments arrive and the pending count changes.
export function startTitle({ socket, pending }) {
  const el = document.querySelector("title");
  function refresh() {
    if (!el) return;
    const n = document.querySelectorAll('[data-plan-state="in_progress"]').length;
    const want = compose(el.dataset.base || "plandash", n, pending.count());
    if (document.title !== want) document.title = want;
  }
  socket.onFragment(refresh);
  pending.subscribe(refresh);
  refresh();
}
