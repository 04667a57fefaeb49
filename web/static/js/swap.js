// Puts the socket's fragments into the page: a fragment replaces the element with its id, is
// added to its parent when new (first when the parent says data-insert="prepend"), and removes
// the element when its html is empty. A fragment older than what an element already shows is
// dropped. Only what changed flashes: cards whose revision moved, diagram nodes whose status did.

// createSwap returns apply(frame), which remembers the newest change applied per element id.
// hold(frame, el, old), when given, is asked before an element replaces old or is inserted (old
// null), and after one is removed (el null); when it returns true it has taken the fragment (the
// overview announces new sessions instead of inserting them).
export function createSwap(hold) {
  const seen = new Map(); // element id -> newest seq applied

  return function apply(f) {
    if (f.seq && seen.get(f.id) >= f.seq) return;
    if (f.seq) seen.set(f.id, f.seq);
    const old = document.getElementById(f.id);
    if (!f.html) {
      if (old) old.remove();
      if (hold) hold(f, null, null);
      return;
    }
    const tpl = document.createElement("template");
    tpl.innerHTML = f.html;
    const el = tpl.content.firstElementChild;
    if (!el) return;
    if (hold && hold(f, el, old)) return;
    if (old) {
      replace(old, el);
      return;
    }
    const parent = f.parent && document.getElementById(f.parent);
    if (!parent) return;
    if (parent.dataset.insert === "prepend") parent.prepend(el); else parent.append(el);
    flash(el);
  };
}

function replace(old, el) {
  const revisions = {}, statuses = {};
  old.querySelectorAll("[data-revision]").forEach((c) => { revisions[c.id] = c.dataset.revision; });
  old.querySelectorAll("[data-testid=dag-node]").forEach((n) => { statuses[n.id || n.dataset.details] = n.dataset.status; });
  old.replaceWith(el);
  const cards = el.matches("[data-revision]") ? [el] : el.querySelectorAll("[data-revision]");
  cards.forEach((c) => { if (revisions[c.id] !== c.dataset.revision) flash(c); });
  el.querySelectorAll("[data-testid=dag-node]").forEach((n) => {
    if (statuses[n.id || n.dataset.details] !== n.dataset.status) n.classList.add("dag-changed");
  });
}

function flash(el) {
  el.classList.remove("flash");
  void el.offsetWidth; // restart the animation
  el.classList.add("flash");
}
