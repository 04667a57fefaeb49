// The gate's keyboard shortcuts. In the inbox: j/k select a request, Enter or o opens it, v
// shows its plan, a approves it once its plan is shown (before that, a shows it), m and r open
// it ready to modify or reject. On a request's page: j/k go to the next or previous pending
// request, a approves (with the changes, once the plan is edited), m opens the editor, r starts
// a rejection, and Ctrl+Enter in the comment then rejects; c starts a review comment (Ctrl+Enter
// adds it) and x sends the comments as "request changes". ? lists them all. Keys typed into
// fields are left alone.
//
// A key that decides (a, x) is never enough alone: the first press says what will happen, and
// the same key again or Enter does it; Escape, any other key or CONFIRM_MS lets it go. An agent
// told "approved" cannot be untold, so one stray key must not do it. After a decision from the
// inbox, the selection moves to the next waiting request.
import { openEditor, startReject, submitWith } from "./gate.js";
import { approveNow } from "./edits.js";
import { startComment } from "./review.js";
import { showPlan, togglePlan } from "./inbox.js";

const CONFIRM_MS = 4000;
// SELECT_NEXT is where the inbox leaves the request to select once its page is drawn again after
// a decision: the form's answer is a new page, which knows nothing of the old selection.
const SELECT_NEXT = "plandash.select";

// startKeys binds the shortcuts; gatePage says whether this page is one of the gate's.
export function startKeys(gatePage) {
  let selected = null; // the selected row's request id: rows come and go live
  let swallow = null;
  let armed = null; // { key, act, timer }: a decision waiting for its confirmation

  if (gatePage && document.getElementById("approvals-pending")) {
    let next = null;
    try { next = sessionStorage.getItem(SELECT_NEXT); sessionStorage.removeItem(SELECT_NEXT); } catch { /* no storage */ }
    if (next) selectID(next);
  }

  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (t && t.name === "comment" && ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      const form = t.form;
      if (form && form.dataset.mode === "reject") { ev.preventDefault(); submitWith("reject"); }
      return;
    }
    if (ev.defaultPrevented || typing(ev) || !gatePage) return;
    if (armed) {
      const a = armed;
      disarm();
      if (ev.key === a.key || ev.key === "Enter") {
        ev.preventDefault();
        a.act();
        return;
      }
      if (ev.key === "Escape") { ev.preventDefault(); return; }
    }
    if (ev.key === "?") { ev.preventDefault(); toggleHelp(); return; }
    if (ev.key === "Escape" && closeHelp()) { ev.preventDefault(); return; }
    const inbox = document.getElementById("approvals-pending");
    if (!(inbox ? inInbox(ev.key) : onRequest(ev.key))) return;
    ev.preventDefault();
    swallow = { key: ev.key, until: Date.now() + 500 };
  });

  // confirm arms a decision: what it will do is said on screen (and to screen readers), and
  // the same key again or Enter does it.
  function confirm(key, what, act) {
    disarm();
    const box = confirmBox();
    box.textContent = "";
    box.append("Press ", kbd(key), " again or ", kbd("Enter"), " to " + what + " · ", kbd("Esc"), " cancels");
    box.hidden = false;
    armed = { key, act, timer: setTimeout(disarm, CONFIRM_MS) };
  }

  function disarm() {
    if (!armed) return;
    clearTimeout(armed.timer);
    armed = null;
    const box = document.getElementById("key-confirm");
    if (box) box.hidden = true;
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
      case "a": {
        const form = document.getElementById("decide-form");
        if (!form) return true; // decided: nothing to do
        const edited = form.dataset.edited === "true";
        confirm("a", edited ? "approve with your changes" : "approve this plan", approveNow);
        return true;
      }
      case "m": openEditor(); return true;
      case "r": startReject(); return true;
      case "c": startComment(); return true;
      case "x": {
        const b = document.querySelector('[data-testid="request-changes"]');
        if (b && !b.disabled && !b.hidden) confirm("x", "send your comments as Request changes", () => submitWith("request-changes"));
        return true;
      }
    }
    return false;
  }
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
        if (b && !b.disabled) {
          const title = row.querySelector('[data-testid="approval-title"]');
          confirm("a", "approve " + (title ? "“" + title.textContent.trim() + "”" : "this plan"), () => {
            rememberNext(row);
            submitWith(b);
          });
        } else if (row) showPlan(row); // never approve a plan that was not on screen
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
    mark(list[i]);
  }

  function selectID(id) {
    const row = rows().find((r) => r.dataset.id === id);
    if (row) mark(row);
  }

  function mark(row) {
    rows().forEach((r) => { r.classList.remove("selected"); r.removeAttribute("aria-current"); });
    row.classList.add("selected");
    row.setAttribute("aria-current", "true");
    row.scrollIntoView({ block: "nearest" });
    selected = row.dataset.id;
  }
}

// rememberNext keeps, for the inbox drawn after a decision on row, the request to select then:
// the next waiting one, else the one before.
function rememberNext(row) {
  const list = rows(), i = list.indexOf(row);
  const next = list[i + 1] || list[i - 1];
  try {
    if (next) sessionStorage.setItem(SELECT_NEXT, next.dataset.id);
  } catch { /* no storage: the inbox starts with nothing selected */ }
}

function confirmBox() {
  let box = document.getElementById("key-confirm");
  if (!box) {
    box = document.createElement("div");
    box.id = "key-confirm";
    box.className = "key-confirm";
    box.dataset.testid = "key-confirm";
    box.setAttribute("role", "status");
    box.setAttribute("aria-live", "assertive");
    document.body.append(box);
  }
  return box;
}

function kbd(text) {
  const k = document.createElement("kbd");
  k.textContent = text;
  return k;
}

// The shortcuts, as the help (?) lists them: the inbox's or a request page's.
const HELP = {
  inbox: [["j / k", "select the next / previous request"], ["Enter or o", "open it"], ["v", "show or hide its plan"],
    ["a", "approve it, once its plan is shown (press again or Enter to confirm)"], ["m", "open it to modify"], ["r", "open it to reject"], ["?", "this list"]],
  request: [["j / k", "the next / previous waiting request"], ["a", "approve (press again or Enter to confirm)"], ["m", "modify the plan"],
    ["r", "reject: write the reason, then Ctrl+Enter"], ["c", "comment on the plan (Ctrl+Enter adds it)"],
    ["x", "send your comments as Request changes (press again or Enter to confirm)"], ["?", "this list"]],
};

function toggleHelp() {
  if (closeHelp()) return;
  const inbox = !!document.getElementById("approvals-pending");
  const box = document.createElement("div");
  box.id = "key-help";
  box.className = "key-help";
  box.dataset.testid = "key-help";
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-label", "Keyboard shortcuts");
  const h = document.createElement("h2");
  h.textContent = "Keyboard shortcuts";
  const dl = document.createElement("dl");
  for (const [k, what] of HELP[inbox ? "inbox" : "request"]) {
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.append(kbd(k));
    dd.textContent = what;
    dl.append(dt, dd);
  }
  const close = document.createElement("button");
  close.type = "button";
  close.className = "btn btn-small";
  close.textContent = "Close (Esc)";
  close.addEventListener("click", closeHelp);
  box.append(h, dl, close);
  document.body.append(box);
  close.focus();
}

function closeHelp() {
  const box = document.getElementById("key-help");
  if (!box) return false;
  box.remove();
  return true;
}

function rows() { return Array.from(document.querySelectorAll("#approvals-pending > .ap-row")); }

function typing(ev) {
  const t = ev.target;
  return ev.ctrlKey || ev.metaKey || ev.altKey || (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)));
}
