// The gate's plan editor: checklist rows are added, removed and reordered (buttons, Enter, or
// dragging the handle), and tool-call plans are checked as they are typed, by the same rules
// the server applies. Fields are posted in document order, so the rows' order is the plan's.
import { authHeaders } from "./token.js";

// startEditor binds the editor by delegation, and checks a tool-call plan once on load.
export function startEditor() {
  document.addEventListener("click", onButton);
  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (ev.key === "Enter" && t && t.name === "content" && t.closest(".ed-row")) {
      ev.preventDefault(); // Enter would submit the first button: approve, unchanged
      addRow(t.closest(".ed-row"));
    }
  });
  startDrag();
  const calls = document.querySelector('textarea[data-validate="dag"]');
  if (calls) validate(calls);
}

function addRow(after) {
  const tpl = document.getElementById("ed-row-template");
  const list = document.querySelector(".ed-rows");
  if (!tpl || !list) return;
  const row = tpl.content.firstElementChild.cloneNode(true);
  if (after && after.parentNode === list) after.after(row); else list.append(row);
  row.querySelector('[name="content"]').focus();
}

function onButton(ev) {
  const b = ev.target.closest && ev.target.closest("[data-ed]");
  if (!b) return;
  const row = b.closest(".ed-row");
  switch (b.dataset.ed) {
    case "add": addRow(null); break;
    case "up": if (row.previousElementSibling) row.previousElementSibling.before(row); b.focus(); break;
    case "down": if (row.nextElementSibling) row.nextElementSibling.after(row); b.focus(); break;
    case "remove": {
      const next = row.nextElementSibling || row.previousElementSibling;
      row.remove();
      if (next) next.querySelector('[name="content"]').focus();
      break;
    }
  }
}

// A row is draggable only while its handle is held, so text in its fields can still be selected.
function startDrag() {
  let dragged = null;
  document.addEventListener("pointerdown", (ev) => {
    const h = ev.target.closest && ev.target.closest(".ed-handle");
    if (h) h.parentNode.draggable = true;
  });
  document.addEventListener("dragstart", (ev) => {
    dragged = ev.target.closest && ev.target.closest(".ed-row");
    if (dragged) ev.dataTransfer.effectAllowed = "move";
  });
  document.addEventListener("dragover", (ev) => {
    const over = dragged && ev.target.closest && ev.target.closest(".ed-row");
    if (!over || over === dragged) return;
    ev.preventDefault();
    const r = over.getBoundingClientRect();
    if (ev.clientY < r.top + r.height / 2) over.before(dragged); else over.after(dragged);
  });
  document.addEventListener("dragend", () => {
    if (dragged) dragged.draggable = false;
    dragged = null;
  });
}

// validate checks the calls now and after each pause in typing; a plan with problems cannot be sent.
function validate(calls) {
  const out = calls.form.querySelector('[data-testid="editor-check"]');
  const submits = calls.form.querySelectorAll('[data-testid="approve-changes"]');
  let timer = null;
  const show = (ok, msg) => {
    out.textContent = msg;
    out.dataset.ok = ok ? "true" : "false";
    submits.forEach((b) => { b.disabled = !ok; });
  };
  const check = () => {
    let parsed;
    try { parsed = JSON.parse(calls.value); } catch (e) { show(false, "Not valid JSON: " + e.message); return; }
    fetch("/api/v1/approvals/validate", {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json", ...authHeaders() },
      body: JSON.stringify({ type: "dag", calls: parsed }),
    }).then((r) => r.json().then((b) => show(r.ok, r.ok ? "Valid: " + parsed.length + " calls" : b.detail)))
      .catch(() => show(true, ""));
  };
  calls.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(check, 300); });
  check();
}
