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
  const markup = new Map(); // element id -> the markup the socket last sent of it, for edits

  return function apply(f) {
    if (f.t === "p") {
      // Edits to the markup the socket last sent of the element: the server sends them only when
      // it knows the page holds that. If it does not, the page's record and the server's
      // disagree, and only a fresh page is sure to be right.
      const html = edit(markup.get(f.id), f.ops);
      if (html === null || html.length !== f.n) { location.reload(); return; }
      f.t = "f";
      f.html = html;
      document.body.dataset.edits = String(Number(document.body.dataset.edits || 0) + 1); // for tests
    }
    if (f.seq && seen.get(f.id) >= f.seq) return;
    if (f.seq) seen.set(f.id, f.seq);
    const old = document.getElementById(f.id);
    if (!f.html) {
      markup.delete(f.id);
      if (old) old.remove();
      if (hold) hold(f, null, null);
      return;
    }
    markup.set(f.id, f.html);
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
    el.querySelectorAll("[id]").forEach((c) => {
      markup.delete(c.id); // no longer what the socket sent of it
      if (seq && !(seen.get(c.id) >= seq)) seen.set(c.id, seq);
    });
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

// edit applies ops to base: a count of UTF-16 code units to keep (> 0) or drop (< 0), or a string
// to insert. null when there is no base or the ops do not fit it.
function edit(base, ops) {
  if (typeof base !== "string" || !Array.isArray(ops)) return null;
  let out = "", at = 0;
  for (const op of ops) {
    if (typeof op === "string") out += op;
    else if (op > 0) { if (at + op > base.length) return null; out += base.slice(at, at + op); at += op; }
    else at -= op;
  }
  return at === base.length ? out : null;
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
