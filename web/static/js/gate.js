// The decision forms of the human gate: an idempotency key per form, a reason before a
// rejection, one submission only; and the actions the keyboard shortcuts (keys.js) and the
// page's address (#modify, #reject) share: open the plan editor, start a rejection, press a
// decision button.

// startGate binds the decision forms (by delegation: rows and panels arrive over the socket)
// and follows #modify or #reject in the address.
export function startGate() {
  document.addEventListener("submit", guardDecision);
  document.addEventListener("click", (ev) => {
    if (ev.target.closest && ev.target.closest("[data-open-editor]")) openEditor();
  });
  if (location.hash === "#modify") openEditor();
  if (location.hash === "#reject") startReject();
}

// The key is made here because rows arrive over the socket, shared by every viewer.
function guardDecision(ev) {
  const form = ev.target;
  if (!form.matches || !form.matches('form[action$="/decide"]')) return;
  const key = form.querySelector('input[name="key"]');
  if (key && !key.value) key.value = randomKey();
  // A panel the socket re-rendered lost the page's proof that the plan is on screen; the plan
  // beside it still carries it.
  const seen = form.querySelector('input[name="seen"]'), shown = document.querySelector('[data-testid="plan-shown"]');
  if (seen && !seen.value && shown && form.id === "decide-form") seen.value = shown.dataset.seen || "";
  const action = ev.submitter && ev.submitter.value;
  const comment = form.querySelector('textarea[name="comment"]');
  if (action === "reject" && comment && !comment.value.trim()) {
    ev.preventDefault();
    showError(form, "Give a reason: the agent reads it to know what to do instead.");
    comment.focus();
    return;
  }
  if (action === "request_changes" && !reviewSaysSomething(form)) {
    ev.preventDefault();
    showError(form, "Add a comment first: on an entry, a line, a call or the whole plan.");
    const t = form.querySelector('[data-testid="review-text"]');
    if (t) t.focus();
    return;
  }
  if (form.dataset.busy) { ev.preventDefault(); return; }
  form.dataset.busy = "1";
}

// reviewSaysSomething: a review sends its drafts, the composer's unsent text, or the comment.
function reviewSaysSomething(form) {
  return Array.from(form.querySelectorAll('[name="c_text"], textarea[name="comment"]')).some((f) => f.value.trim() !== "");
}

function randomKey() {
  const a = new Uint8Array(12);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

function showError(form, msg) {
  const p = form.querySelector('[data-testid="form-error"]');
  if (!p) return;
  p.textContent = msg;
  p.hidden = !msg;
}

/**
 * submitWith presses a decision button (an element, or the data-testid of one), if it is there,
 * shown and enabled.
 */
export function submitWith(button) {
  const b = typeof button === "string" ? document.querySelector('[data-testid="' + button + '"]') : button;
  if (b && b.form && !b.disabled && !b.hidden) b.form.requestSubmit(b);
}

/** openEditor opens the plan editor and puts the cursor where a person adds to the plan. */
export function openEditor() {
  const ed = document.getElementById("editor");
  if (!ed) return;
  ed.open = true;
  const f = ed.querySelector("input, textarea");
  if (!f) return;
  f.focus();
  if (f.tagName === "TEXTAREA") f.setSelectionRange(f.value.length, f.value.length); // to add at the end
}

/** startReject focuses the comment, ready for a reason; Ctrl+Enter then rejects (keys.js). */
export function startReject() {
  const form = document.getElementById("decide-form");
  const c = form && form.querySelector('textarea[name="comment"]');
  if (!c) return;
  form.dataset.mode = "reject";
  showError(form, "");
  c.placeholder = "Why not? Then press Reject (or Ctrl+Enter).";
  c.focus();
}
