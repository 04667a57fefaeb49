// Tool-call plan diagrams: the toolbar (fit, zoom out, zoom in, reset, find a node), node details
// opened by a click or Enter on a node, Ctrl/⌘+wheel zoom and drag to pan.
//
// Zoom sizes the svg in CSS pixels inside a scrolling canvas, so panning is scrolling and is
// bounded by the graph, and the zoom never goes below the scale at which node labels print at
// 11 px. Listeners are delegated, and each diagram's view (zoom, scroll, selection, search) is
// kept by figure id, so a diagram the socket swaps in after a plan update looks as it did.

const MIN_TEXT = 11; // px: the smallest text the drawing may show
const NODE_TEXT = 13; // px: node labels at zoom 1 (dag.css)
const EDGE_TEXT = 12; // px: edge labels at zoom 1; below MIN_TEXT they are hidden
const MIN_ZOOM = MIN_TEXT / NODE_TEXT;
const MAX_ZOOM = 3;
const STEP = 1.25;
const FIG = "[data-testid=dag-diagram]";
const NODE = "[data-testid=dag-node]";

// INSERTED is the event a module dispatches (bubbling) on HTML it puts on the page outside the
// socket's fragments, such as a plan the inbox fetched.
export const INSERTED = "plandash:inserted";

// startDag marks the page as scripted (the stylesheet then shows the controls and hides what only
// a script-less page needs) and binds every diagram: the page's, those fragments bring, and those
// another module puts on the page (it says so with an INSERTED event).
export function startDag(socket) {
  document.documentElement.classList.add("dag-js");
  const views = new Map(); // figure id -> {zoom, left, top, selected, query, current}

  const remember = (fig) => {
    if (!fig.id || !fig.dataset.zoom) return;
    const c = canvas(fig);
    const sel = fig.querySelector(NODE + ".dag-selected");
    const q = findInput(fig);
    const was = views.get(fig.id) || {};
    views.set(fig.id, {
      zoom: +fig.dataset.zoom, left: c.scrollLeft, top: c.scrollTop, focus: was.focus || null,
      selected: sel ? sel.dataset.nodeId : null, query: q ? q.value : "", current: +(fig.dataset.findCurrent || 0),
    });
  };
  // Where the focus was inside each diagram, so a swap (which removes the focused element
  // without a blur) does not throw a reader out of the search field or off a node.
  document.addEventListener("focusin", (ev) => {
    const fig = ev.target.closest && ev.target.closest(FIG);
    if (!fig || !views.has(fig.id)) return;
    const t = ev.target;
    views.get(fig.id).focus = t.matches(NODE) ? { node: t.dataset.nodeId } : t.dataset.testid ? { testid: t.dataset.testid } : null;
  });
  document.addEventListener("focusout", (ev) => {
    const fig = ev.target.closest && ev.target.closest(FIG);
    if (!fig || (ev.relatedTarget && fig.contains(ev.relatedTarget))) return;
    // A blur caused by the swap itself leaves the figure disconnected: keep the record then.
    queueMicrotask(() => { if (fig.isConnected && views.has(fig.id)) views.get(fig.id).focus = null; });
  });
  const setup = (fig) => {
    if (fig.dataset.zoom) return;
    const v = views.get(fig.id);
    if (!v) { setZoom(fig, initialZoom(fig)); remember(fig); return; }
    setZoom(fig, v.zoom);
    const c = canvas(fig);
    c.scrollLeft = v.left; c.scrollTop = v.top;
    if (v.selected) {
      const n = [...fig.querySelectorAll(NODE)].find((x) => x.dataset.nodeId === v.selected);
      if (n) openNode(n, false);
    }
    const q = findInput(fig);
    if (q && v.query) { q.value = v.query; find(fig, v.current, false); }
    const active = document.activeElement;
    if (v.focus && (!active || active === document.body)) {
      const el = v.focus.node
        ? [...fig.querySelectorAll(NODE)].find((x) => x.dataset.nodeId === v.focus.node)
        : fig.querySelector(`[data-testid="${v.focus.testid}"]`);
      if (el) el.focus({ preventScroll: true });
    }
  };
  const setupAll = () => document.querySelectorAll(FIG).forEach(setup);
  setupAll();
  socket.onFragment(setupAll);
  document.addEventListener(INSERTED, setupAll);
  window.addEventListener("resize", () => document.querySelectorAll(FIG).forEach((f) => setZoom(f, +f.dataset.zoom || 1)));

  document.addEventListener("click", (ev) => {
    const t = ev.target;
    if (!t.closest) return;
    const btn = t.closest("[data-dag-action]");
    const fig = t.closest(FIG);
    if (btn && fig) { act(fig, btn.dataset.dagAction); remember(fig); return; }
    const node = t.closest(NODE);
    if (node) { openNode(node, true); remember(node.closest(FIG)); }
  });
  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    const fig = t.closest && t.closest(FIG);
    if (!fig) return;
    if (t.matches("[data-testid=dag-find]")) {
      if (ev.key === "Enter") { ev.preventDefault(); find(fig, (+fig.dataset.findCurrent || 0) + (ev.shiftKey ? -1 : 1), true); }
      else if (ev.key === "Escape" && t.value) { ev.preventDefault(); t.value = ""; find(fig, 0, false); }
      else return;
      remember(fig);
      return;
    }
    const node = t.closest(NODE);
    if (node && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); openNode(node, true); remember(fig); return; }
    if (ev.key === "Escape" && fig.classList.contains("dag-has-selection")) { ev.preventDefault(); act(fig, "close"); remember(fig); return; }
    if (!t.closest("[data-testid=dag-canvas]") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const action = { "+": "in", "=": "in", "-": "out", "0": "reset" }[ev.key];
    if (action) { ev.preventDefault(); act(fig, action); remember(fig); }
  });
  document.addEventListener("input", (ev) => {
    const fig = ev.target.closest && ev.target.matches("[data-testid=dag-find]") && ev.target.closest(FIG);
    if (fig) { find(fig, 0, true); remember(fig); }
  });
  document.addEventListener("wheel", (ev) => {
    const c = ev.target.closest && ev.target.closest("[data-testid=dag-canvas]");
    if (!c || !ev.ctrlKey && !ev.metaKey) return; // a plain wheel scrolls
    ev.preventDefault();
    const fig = c.closest(FIG);
    const r = c.getBoundingClientRect();
    zoomAt(fig, (+fig.dataset.zoom || 1) * (ev.deltaY > 0 ? 1 / 1.1 : 1.1), ev.clientX - r.left, ev.clientY - r.top);
    remember(fig);
  }, { passive: false });
  startPan(remember);
  document.addEventListener("scroll", (ev) => {
    const c = ev.target.matches && ev.target.matches("[data-testid=dag-canvas]") ? ev.target : null;
    if (c) remember(c.closest(FIG));
  }, true);
}

const canvas = (fig) => fig.querySelector("[data-testid=dag-canvas]");
const svgOf = (fig) => fig.querySelector("svg.dag-svg");
const findInput = (fig) => fig.querySelector("[data-testid=dag-find]");

// size is the drawing's own size, from its viewBox.
function size(fig) {
  const v = (svgOf(fig).getAttribute("viewBox") || "").split(/[\s,]+/).map(Number);
  return v.length === 4 && v.every(isFinite) && v[2] > 0 && v[3] > 0 ? { w: v[2], h: v[3] } : { w: 1, h: 1 };
}

const clamp = (z) => Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, z));

// fitZoom is the zoom that shows the whole drawing in the canvas, bounded to the readable range.
function fitZoom(fig) {
  const c = canvas(fig), s = size(fig);
  const w = c.clientWidth, h = c.clientHeight || w;
  // The canvas's height follows the drawing up to its maximum: fit against that maximum.
  const maxH = parseFloat(getComputedStyle(c).maxHeight) || h;
  return clamp(Math.min(w / s.w, Math.max(h, maxH) / s.h));
}

// initialZoom shows small graphs at their natural size and shrinks large ones only as far as
// every text, edge labels included, stays readable; the rest scrolls.
const initialZoom = (fig) => Math.min(1, Math.max(MIN_TEXT / EDGE_TEXT, fitZoom(fig)));

function setZoom(fig, z) {
  z = clamp(z);
  const s = size(fig), svg = svgOf(fig);
  svg.style.width = (s.w * z).toFixed(1) + "px";
  svg.style.height = (s.h * z).toFixed(1) + "px";
  fig.dataset.zoom = String(z);
  fig.classList.toggle("dag-zoom-small", EDGE_TEXT * z < MIN_TEXT - 0.01);
  const out = fig.querySelector("[data-testid=dag-zoom-level]");
  if (out) out.textContent = Math.round(z * 100) + "%";
  const zin = fig.querySelector("[data-dag-action=in]"), zout = fig.querySelector("[data-dag-action=out]");
  if (zin) zin.disabled = z >= MAX_ZOOM - 1e-6;
  if (zout) zout.disabled = z <= MIN_ZOOM + 1e-6;
}

// zoomAt changes the zoom keeping the drawing's point under (x, y) of the canvas in place.
function zoomAt(fig, z, x, y) {
  const c = canvas(fig), old = +fig.dataset.zoom || 1;
  const px = (c.scrollLeft + x) / old, py = (c.scrollTop + y) / old;
  setZoom(fig, z);
  const now = +fig.dataset.zoom;
  c.scrollLeft = px * now - x;
  c.scrollTop = py * now - y;
}

function act(fig, action) {
  const c = canvas(fig), z = +fig.dataset.zoom || 1;
  const cx = c.clientWidth / 2, cy = c.clientHeight / 2;
  switch (action) {
    case "in": zoomAt(fig, z * STEP, cx, cy); break;
    case "out": zoomAt(fig, z / STEP, cx, cy); break;
    case "fit": setZoom(fig, fitZoom(fig)); c.scrollLeft = 0; c.scrollTop = 0; break;
    case "reset": setZoom(fig, 1); c.scrollLeft = 0; c.scrollTop = 0; break;
    case "close": closeDetails(fig); break;
  }
}

function openNode(node, focus) {
  const fig = node.closest(FIG);
  if (!fig) return;
  fig.querySelectorAll(".dag-selected").forEach((n) => n.classList.remove("dag-selected"));
  node.classList.add("dag-selected");
  const d = document.getElementById(node.dataset.details);
  if (!d) return;
  fig.querySelectorAll("details.dag-node-details[open]").forEach((o) => { if (o !== d) o.open = false; });
  d.open = true;
  fig.classList.add("dag-has-selection");
  const panel = fig.querySelector("[data-testid=dag-details]");
  // Over the graph (narrow), the panel takes the focus so keyboard users read it and Escape
  // brings them back; beside it, the focus stays on the graph.
  if (focus && panel && getComputedStyle(panel).position === "absolute") panel.focus();
  // Opening the column beside the graph narrows the canvas: keep the chosen node in sight.
  else if (focus && !inView(fig, node)) reveal(fig, node);
}

function inView(fig, node) {
  const r = node.getBoundingClientRect(), b = canvas(fig).getBoundingClientRect();
  return r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom;
}

function closeDetails(fig) {
  const sel = fig.querySelector(NODE + ".dag-selected");
  fig.querySelectorAll("details.dag-node-details[open]").forEach((o) => { o.open = false; });
  fig.querySelectorAll(".dag-selected").forEach((n) => n.classList.remove("dag-selected"));
  fig.classList.remove("dag-has-selection");
  if (sel) sel.focus({ preventScroll: true });
}

// find marks the nodes whose name or id contains the query, makes match number k (wrapping) the
// current one and, if scroll, brings it into view.
function find(fig, k, scroll) {
  const q = (findInput(fig).value || "").trim().toLowerCase();
  const count = fig.querySelector("[data-testid=dag-find-count]");
  const nodes = [...fig.querySelectorAll(NODE)];
  nodes.forEach((n) => n.classList.remove("dag-match", "dag-match-current"));
  if (!q) { count.textContent = ""; delete fig.dataset.findCurrent; return; }
  const hits = nodes.filter((n) => (n.dataset.label || "").toLowerCase().includes(q) || (n.dataset.nodeId || "").toLowerCase().includes(q));
  if (!hits.length) { count.textContent = "No match"; delete fig.dataset.findCurrent; return; }
  const i = ((k % hits.length) + hits.length) % hits.length;
  hits.forEach((n) => n.classList.add("dag-match"));
  hits[i].classList.add("dag-match-current");
  fig.dataset.findCurrent = String(i);
  count.textContent = (i + 1) + " of " + hits.length;
  if (scroll) reveal(fig, hits[i]);
}

// reveal scrolls the canvas so node is in its middle, and the canvas onto the page.
function reveal(fig, node) {
  const c = canvas(fig);
  const r = node.getBoundingClientRect(), cr = c.getBoundingClientRect();
  c.scrollLeft += r.left + r.width / 2 - (cr.left + c.clientWidth / 2);
  c.scrollTop += r.top + r.height / 2 - (cr.top + c.clientHeight / 2);
  const pr = c.getBoundingClientRect();
  if (pr.top < 0 || pr.bottom > window.innerHeight) c.scrollIntoView({ block: "nearest" });
}

// startPan lets a drag on the canvas's background scroll it.
function startPan(remember) {
  let drag = null;
  document.addEventListener("pointerdown", (ev) => {
    const c = ev.button === 0 && ev.target.closest && ev.target.closest("[data-testid=dag-canvas]");
    if (!c || ev.target.closest(NODE)) return;
    drag = { c, x: ev.clientX, y: ev.clientY, left: c.scrollLeft, top: c.scrollTop, moved: false };
  });
  document.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    drag.moved = true;
    drag.c.classList.add("dag-panning");
    drag.c.scrollLeft = drag.left - dx;
    drag.c.scrollTop = drag.top - dy;
  });
  const end = () => {
    if (!drag) return;
    drag.c.classList.remove("dag-panning");
    remember(drag.c.closest(FIG));
    drag = null;
  };
  document.addEventListener("pointerup", end);
  document.addEventListener("pointercancel", end);
}
