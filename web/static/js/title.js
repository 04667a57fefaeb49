// Owns document.title: the page's name (<title data-base>), after "(N) " while N plans are in
// progress on the page and, once the pending count is known, after "[M] " while M requests
// wait for a decision, as in "[1] (2) plandash". Nothing else writes the title.

// compose is the title for a page named base (which may carry the server's own "(N) " and
// "[M] " prefixes from when it was rendered) with inProgress plans running and pending
// requests waiting (null: not known yet, so the server's "[M] " stays).
export function compose(base, inProgress, pending) {
  base = base.replace(/^\(\d+\)\s*/, "");
  let t = inProgress > 0 ? "(" + inProgress + ") " + base : base;
  if (pending === null) return t;
  t = t.replace(/^\[\d+\]\s*/, "");
  return pending > 0 ? "[" + pending + "] " + t : t;
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
