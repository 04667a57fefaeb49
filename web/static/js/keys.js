// The gate's keyboard shortcuts. In the inbox: j/k select a request, Enter or o opens it, v
// shows its plan, a approves it once its plan is shown (before that, a shows it), m and r open
// it ready to modify or reject. On a request's page: j/k go to the next or previous pending
// request, a approves (with the changes, once the plan is edited), m opens the editor, r starts
// a rejection, and Ctrl+Enter in the comment then rejects; c starts a review comment (Ctrl+Enter
// adds it) and x sends the comments as "request changes". Keys typed into fields are left alone.
import { openEditor, startReject, submitWith } from "./gate.js";
import { approveNow } from "./edits.js";
import { startComment } from "./review.js";
import { showPlan, togglePlan } from "./inbox.js";

// startKeys binds the shortcuts; gatePage says whether this page is one of the gate's.
export function startKeys(gatePage) {
  let selected = null; // the selected row's request id: rows come and go live
  let swallow = null;

  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (t && t.name === "comment" && ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      const form = t.form;
      if (form && form.dataset.mode === "reject") { ev.preventDefault(); submitWith("reject"); }
      return;
    }
    if (ev.defaultPrevented || typing(ev) || !gatePage) return;
    const inbox = document.getElementById("approvals-pending");
    if (!(inbox ? inInbox(ev.key) : onRequest(ev.key))) return;
    ev.preventDefault();
    swallow = { key: ev.key, until: Date.now() + 500 };
  });
  // A shortcut that moved the focus into a field must not also type its letter there: browsers
  // skip the keypress after a cancelled keydown, but synthetic input (automation, some IMEs)
  // sends it separately.
  document.addEventListener("keypress", (ev) => {
    if (swallow && ev.key === swallow.key && Date.now() < swallow.until) ev.preventDefault();
    swallow = null;
  }, true);

  // inInbox handles key on the inbox; false when it is not a shortcut there.
  function inInbox(key) {
    const row = rows().find((r) => r.dataset.id === selected) || null;
    switch (key) {
      case "j": case "k": select(key === "j" ? 1 : -1); return true;
      case "Enter": case "o":
        if (!row) return false;
        location.href = row.dataset.href;
        return true;
      case "a": {
        const b = row && row.querySelector('[data-testid="quick-approve"]');
        if (b && !b.disabled) submitWith(b);
        else if (row) showPlan(row); // never approve a plan that was not on screen
        return true;
      }
      case "v":
        if (row) togglePlan(row);
        return true;
      case "m": case "r":
        if (row) location.href = row.dataset.href + (key === "m" ? "#modify" : "#reject");
        return true;
    }
    return false;
  }

  function select(step) {
    const list = rows();
    if (!list.length) return;
    let i = list.findIndex((r) => r.dataset.id === selected);
    i = i < 0 ? (step > 0 ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, i + step));
    list.forEach((r) => { r.classList.remove("selected"); r.removeAttribute("aria-current"); });
    const row = list[i];
    row.classList.add("selected");
    row.setAttribute("aria-current", "true");
    row.scrollIntoView({ block: "nearest" });
    selected = row.dataset.id;
  }
}

// onRequest handles key on a request's page; false when it is not a shortcut there.
function onRequest(key) {
  switch (key) {
    case "j": case "k": {
      const nav = document.querySelector('[data-testid="approval-nav"]');
      const to = nav && nav.dataset[key === "j" ? "next" : "prev"];
      if (to) location.href = "/approvals/" + encodeURIComponent(to);
      return true;
    }
    case "a": approveNow(); return true;
    case "m": openEditor(); return true;
    case "r": startReject(); return true;
    case "c": startComment(); return true;
    case "x": submitWith("request-changes"); return true;
  }
  return false;
}

function rows() { return Array.from(document.querySelectorAll("#approvals-pending > .ap-row")); }

function typing(ev) {
  const t = ev.target;
  return ev.ctrlKey || ev.metaKey || ev.altKey || (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)));
}
