// Puts the socket's fragments into the page: a fragment replaces the element with its id, is
// added to its parent when new (first when the parent says data-insert="prepend"), and removes
// the element when its html is empty. A parent that keeps its children in order
// (data-sort-key="name": each child's data-name) gets a new one in its place, and only when the
// key falls within the page it shows (data-after < key <= data-until, either bound optional), so
// a paged list does not gather what belongs on other pages. A fragment older than what an element
// already shows, or than the element it sits in, is dropped. A part that carries its container's
// state (data-up-*) puts it on the container. Only what changed flashes: cards whose revision moved, diagram nodes whose status did.

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
      placed(el, f.seq);
      return;
    }
    const parent = f.parent && document.getElementById(f.parent);
    if (!parent) return;
    if (parent.dataset.sortKey) {
      if (!insertSorted(parent, el)) return;
    } else if (parent.dataset.insert === "prepend") parent.prepend(el); else parent.append(el);
    placed(el, f.seq);
    flash(el);
  };

  // placed notes what a new element brings: the elements inside it are as new as it is (a late
  // fragment of one of them must not undo it), and the state a part carries for its container
  // (data-up-class, data-up-*: a group's head says the group's state) goes onto the container.
  function placed(el, seq) {
    if (seq) el.querySelectorAll("[id]").forEach((c) => { if (!(seen.get(c.id) >= seq)) seen.set(c.id, seq); });
    const up = el.parentElement && Object.keys(el.dataset).filter((k) => k.startsWith("up") && k.length > 2);
    if (!up || !up.length) return;
    const target = el.closest("[data-parts]");
    if (!target) return;
    for (const k of up) {
      const name = k[2].toLowerCase() + k.slice(3);
      if (name === "class") target.className = el.dataset[k]; else target.dataset[name] = el.dataset[k];
    }
  }
}

// insertSorted puts el among parent's children by its key and reports whether it belongs here.
// Keys compare as strings; the keys used (plan names) are ASCII, so this is the server's order.
function insertSorted(parent, el) {
  const k = parent.dataset.sortKey, key = el.dataset[k];
  if (key === undefined) return false;
  const { after, until } = parent.dataset;
  if ((after && key <= after) || (until && key > until)) return false;
  const next = [...parent.children].find((c) => c.dataset[k] > key);
  if (next) next.before(el); else parent.append(el);
  return true;
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
