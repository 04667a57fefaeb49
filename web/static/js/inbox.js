// The inbox's rows show their plan inline, and only then may they be approved from the list:
// the row's Approve stays disabled (its reason beside it) until the plan has been on screen.
// The plan is the request page's own drawing, fetched whole, so nothing is rendered twice; the
// page also carries the proof (data-seen) the server asks of an approval from the list.
import { pageToken } from "./token.js";
import { INSERTED } from "./dag.js";

// startInbox binds the rows' "Show plan" buttons by delegation: rows arrive over the socket.
export function startInbox() {
  document.addEventListener("click", (ev) => {
    const b = ev.target.closest && ev.target.closest("[data-show-plan]");
    if (!b) return;
    const row = b.closest(".ap-row");
    if (row) togglePlan(row);
  });
}

/** togglePlan shows the row's plan, or hides it again (the approval stays allowed). */
export function togglePlan(row) {
  const box = row.querySelector('[data-testid="row-plan"]');
  if (box && !box.hidden) {
    box.hidden = true;
    setExpanded(row, false);
    return;
  }
  showPlan(row);
}

/** showPlan puts the row's plan on screen, then allows approving it from the list. */
export function showPlan(row) {
  const box = row.querySelector('[data-testid="row-plan"]');
  if (!box || row.dataset.loading) return;
  if (box.childElementCount) {
    box.hidden = false;
    setExpanded(row, true);
    return;
  }
  row.dataset.loading = "1";
  const token = pageToken();
  fetch(row.dataset.href, { credentials: "same-origin", headers: token ? { Authorization: "Bearer " + token } : {} })
    .then((r) => {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    })
    .then((html) => {
      const doc = new DOMParser().parseFromString(html, "text/html");
      const shown = doc.querySelector('[data-testid="plan-shown"]');
      const card = shown && shown.querySelector('[data-testid="plan-card"]');
      if (!card) throw new Error("the request's page has no plan");
      box.replaceChildren(document.importNode(card, true));
      box.dispatchEvent(new Event(INSERTED, { bubbles: true }));
      box.hidden = false;
      setExpanded(row, true);
      const seen = row.querySelector('input[name="seen"]');
      if (seen) seen.value = shown.dataset.seen || "";
      const approve = row.querySelector('[data-testid="quick-approve"]');
      if (approve) approve.disabled = false;
      const why = row.querySelector('[data-testid="approve-why"]');
      if (why) why.hidden = true;
    })
    .catch((e) => {
      box.textContent = "The plan could not be loaded (" + e.message + "): open the request instead.";
      box.hidden = false;
    })
    .finally(() => { delete row.dataset.loading; });
}

function setExpanded(row, open) {
  const b = row.querySelector("[data-show-plan]");
  if (!b) return;
  b.setAttribute("aria-expanded", String(open));
  b.firstChild.textContent = open ? "Hide plan " : "Show plan ";
}
