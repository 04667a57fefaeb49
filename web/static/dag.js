// plandash DAG diagrams: a click or Enter on a node opens its details (arguments and resolved
// inputs); the wheel zooms and dragging pans by changing the svg's viewBox. Works on diagrams
// the socket swaps in later too (delegated listeners).
(function () {
  "use strict";
  document.documentElement.classList.add("dag-js");

  function openNode(node) {
    var fig = node.closest("[data-testid=dag-diagram]") || document;
    fig.querySelectorAll(".dag-selected").forEach(function (n) { n.classList.remove("dag-selected"); });
    node.classList.add("dag-selected");
    var d = document.getElementById(node.dataset.details);
    if (!d) return;
    fig.querySelectorAll("details.dag-node-details[open]").forEach(function (o) { if (o !== d) o.open = false; });
    d.open = true;
  }

  document.addEventListener("click", function (ev) {
    var node = ev.target.closest && ev.target.closest("[data-testid=dag-node]");
    if (node) openNode(node);
  });
  document.addEventListener("keydown", function (ev) {
    var node = ev.target.closest && ev.target.closest("[data-testid=dag-node]");
    if (node && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); openNode(node); }
  });

  function box(svg) {
    var v = (svg.getAttribute("viewBox") || "").split(/[\s,]+/).map(Number);
    return v.length === 4 && v.every(isFinite) ? v : null;
  }
  document.addEventListener("wheel", function (ev) {
    var svg = ev.target.closest && ev.target.closest("svg.dag-svg");
    if (!svg || !ev.ctrlKey && !ev.metaKey) return; // plain wheel scrolls the page
    var v = box(svg);
    if (!v) return;
    ev.preventDefault();
    var k = ev.deltaY > 0 ? 1.15 : 1 / 1.15;
    var r = svg.getBoundingClientRect();
    var fx = (ev.clientX - r.left) / r.width, fy = (ev.clientY - r.top) / r.height;
    var w = v[2] * k, h = v[3] * k;
    svg.setAttribute("viewBox", [v[0] + (v[2] - w) * fx, v[1] + (v[3] - h) * fy, w, h].join(" "));
  }, { passive: false });

  var drag = null;
  document.addEventListener("pointerdown", function (ev) {
    var svg = ev.target.closest && ev.target.closest("svg.dag-svg");
    if (!svg || ev.target.closest("[data-testid=dag-node]") || !box(svg)) return;
    drag = { svg: svg, x: ev.clientX, y: ev.clientY, v: box(svg) };
  });
  document.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var r = drag.svg.getBoundingClientRect();
    var sx = drag.v[2] / r.width, sy = drag.v[3] / r.height;
    drag.svg.setAttribute("viewBox", [drag.v[0] - (ev.clientX - drag.x) * sx, drag.v[1] - (ev.clientY - drag.y) * sy, drag.v[2], drag.v[3]].join(" "));
  });
  document.addEventListener("pointerup", function () { drag = null; });
})();
