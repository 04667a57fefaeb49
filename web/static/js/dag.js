// Tool-call plan diagrams: a click or Enter on a node opens its details (arguments and resolved
// inputs); Ctrl/⌘+wheel zooms and dragging pans by changing the svg's viewBox. Listeners are
// delegated, so diagrams the socket swaps in later work too.

// startDag marks the page as scripted (the stylesheet then hides what only a script-less page
// needs) and binds the diagrams.
export function startDag() {
  document.documentElement.classList.add("dag-js");
  document.addEventListener("click", (ev) => {
    const node = ev.target.closest && ev.target.closest("[data-testid=dag-node]");
    if (node) openNode(node);
  });
  document.addEventListener("keydown", (ev) => {
    const node = ev.target.closest && ev.target.closest("[data-testid=dag-node]");
    if (node && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); openNode(node); }
  });
  document.addEventListener("wheel", zoom, { passive: false });
  startPan();
}

function openNode(node) {
  const fig = node.closest("[data-testid=dag-diagram]") || document;
  fig.querySelectorAll(".dag-selected").forEach((n) => n.classList.remove("dag-selected"));
  node.classList.add("dag-selected");
  const d = document.getElementById(node.dataset.details);
  if (!d) return;
  fig.querySelectorAll("details.dag-node-details[open]").forEach((o) => { if (o !== d) o.open = false; });
  d.open = true;
}

function box(svg) {
  const v = (svg.getAttribute("viewBox") || "").split(/[\s,]+/).map(Number);
  return v.length === 4 && v.every(isFinite) ? v : null;
}

function zoom(ev) {
  const svg = ev.target.closest && ev.target.closest("svg.dag-svg");
  if (!svg || !ev.ctrlKey && !ev.metaKey) return; // plain wheel scrolls the page
  const v = box(svg);
  if (!v) return;
  ev.preventDefault();
  const k = ev.deltaY > 0 ? 1.15 : 1 / 1.15;
  const r = svg.getBoundingClientRect();
  const fx = (ev.clientX - r.left) / r.width, fy = (ev.clientY - r.top) / r.height;
  const w = v[2] * k, h = v[3] * k;
  svg.setAttribute("viewBox", [v[0] + (v[2] - w) * fx, v[1] + (v[3] - h) * fy, w, h].join(" "));
}

function startPan() {
  let drag = null;
  document.addEventListener("pointerdown", (ev) => {
    const svg = ev.target.closest && ev.target.closest("svg.dag-svg");
    if (!svg || ev.target.closest("[data-testid=dag-node]") || !box(svg)) return;
    drag = { svg, x: ev.clientX, y: ev.clientY, v: box(svg) };
  });
  document.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const r = drag.svg.getBoundingClientRect();
    const sx = drag.v[2] / r.width, sy = drag.v[3] / r.height;
    drag.svg.setAttribute("viewBox", [drag.v[0] - (ev.clientX - drag.x) * sx, drag.v[1] - (ev.clientY - drag.y) * sy, drag.v[2], drag.v[3]].join(" "));
  });
  document.addEventListener("pointerup", () => { drag = null; });
}
