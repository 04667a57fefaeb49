// Edits in the gate's plan editor. Once the editor's plan differs from the one submitted, the
// plain Approve gives way to "Approve with changes" (the modify decision, with the edited plan)
// and an explicit "Discard changes", for the mouse and for the a key alike: approving can never
// send the agent the original plan while an edit sits in the editor. The server refuses such an
// approval too, for pages without this script.
import { submitWith } from "./gate.js";
import { authHeaders } from "./token.js";

// The editor's fields, in the order the form posts them.
const FIELDS = '[name="content"], select[name="priority"], select[name="status"], textarea[name="markdown"], textarea[name="calls"]';

// startEdits follows the editor of a request's page, if it has one.
export function startEdits() {
  const form = document.getElementById("decide-form");
  const body = form && form.querySelector("#editor .ed-body");
  if (!body) return;
  // The plan as submitted: the server sends it apart when the page shows a refused edit;
  // otherwise it is the editor as loaded.
  const tpl = document.getElementById("ed-original");
  const original = tpl ? tpl.content.cloneNode(true) : body.cloneNode(true);
  const pristine = serial(original);
  const part = (id) => form.querySelector('[data-testid="' + id + '"]');
  const showDiff = editDiff(form);

  const update = () => {
    const edited = serial(body) !== pristine;
    form.dataset.edited = edited ? "true" : "false";
    showDiff(edited);
    const approve = part("approve");
    if (approve) { approve.hidden = edited; approve.disabled = edited; }
    ["approve-changes", "discard-changes", "edit-note"].forEach((id) => { const el = part(id); if (el) el.hidden = !edited; });
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  // Rows added, removed and reordered change no field's value.
  new MutationObserver(update).observe(body, { childList: true, subtree: true });
  form.addEventListener("click", (ev) => {
    if (!ev.target.closest || !ev.target.closest("[data-discard-edits]")) return;
    ev.preventDefault();
    discard(body, original);
    update();
    const approve = part("approve");
    if (approve) approve.focus();
  });
  update();
}

/** approveNow presses the page's primary approval: with the changes once the plan is edited. */
export function approveNow() {
  const form = document.getElementById("decide-form");
  submitWith(form && form.dataset.edited === "true" ? "approve-changes" : "approve");
}

// editDiff keeps "Your changes" under the editor current while the plan is edited. The server
// renders it, the same structured diff the decided page shows, so no diff code lives here.
// Typing is debounced, and an answer to an older edit is dropped.
function editDiff(form) {
  const box = form.querySelector('[data-testid="edit-diff"]');
  const out = box && box.querySelector('[data-testid="edit-diff-body"]');
  if (!out) return () => {};
  let timer = null, pending = null, shown = null;
  const render = () => {
    const data = new URLSearchParams(new FormData(form));
    data.delete("action");
    const key = data.toString();
    if (key === shown) return;
    if (pending) pending.abort();
    const ctl = pending = new AbortController();
    fetch(box.dataset.diffUrl, { method: "POST", body: data, credentials: "same-origin", headers: authHeaders(), signal: ctl.signal })
      .then((r) => {
        if (!r.ok) throw new Error("diff: HTTP " + r.status);
        return r.text();
      }).then((html) => {
        if (ctl !== pending) return;
        out.innerHTML = html;
        box.dataset.state = "ok";
        shown = key;
      }).catch((e) => {
        if (e.name !== "AbortError") box.dataset.state = "error";
      });
  };
  return (edited) => {
    box.hidden = !edited;
    clearTimeout(timer);
    if (edited) timer = setTimeout(render, 200);
  };
}

// serial is the plan a set of editor fields says, as text; entries are trimmed as the server
// trims them.
function serial(root) {
  return Array.from(root.querySelectorAll(FIELDS), (f) => {
    const v = f.name === "content" || f.name === "markdown" ? f.value.trim() : f.value;
    return f.name + "\u0000" + v;
  }).join("\u0001");
}

// discard puts the original plan back: the checklist's rows whole, a text's value in place
// (so the tool-call check bound to it keeps working).
function discard(body, original) {
  const rows = body.querySelector(".ed-rows"), orig = original.querySelector(".ed-rows");
  if (rows && orig) rows.replaceWith(orig.cloneNode(true));
  body.querySelectorAll("textarea:not([name=\"content\"])").forEach((ta) => { // entries came back with their rows
    const o = original.querySelector('textarea[name="' + ta.name + '"]');
    if (!o || ta.value === o.value) return;
    ta.value = o.value;
    ta.dispatchEvent(new Event("input", { bubbles: true }));
  });
}
