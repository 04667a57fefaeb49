// Review comments on a request's page: a reviewer comments on an entry, a markdown line, a
// tool call or the whole plan, then sends them all with "Request changes". Drafts live in the
// form as hidden fields (so the form posts them) and in localStorage under the request's id (so
// a reload keeps them); they are dropped once the request is decided. Each entry, rendered
// markdown block and DAG node details gets a "Comment" button that points the composer at it.

const STORE = "plandash:review:";

// startReview binds the review composer of a request's page, if it has one; on a decided
// request's page it forgets the drafts that were kept for it.
export function startReview() {
  const panel = document.querySelector('[data-testid="approval-panel"]');
  if (!panel) return;
  const box = panel.querySelector('[data-testid="review"]');
  if (!box) {
    if (panel.dataset.status && panel.dataset.status !== "pending") forgetAll();
    return;
  }
  const key = STORE + box.dataset.request;
  const list = box.querySelector('[data-testid="review-drafts"]');
  const target = box.querySelector('[data-testid="review-target"]');
  const text = box.querySelector('[data-testid="review-text"]');
  const tpl = document.getElementById("review-draft-template");

  const save = () => {
    const drafts = Array.from(list.children, (li) => ({ target: li.dataset.target, text: li.querySelector('input[name="c_text"]').value }));
    try {
      if (drafts.length) localStorage.setItem(key, JSON.stringify(drafts));
      else localStorage.removeItem(key);
    } catch (_) { /* storage full or blocked: the drafts still post with the form */ }
  };
  const labelOf = (value) => {
    const o = Array.from(target.options).find((x) => x.value === value);
    return o ? o.textContent.replace(/:.*$/, "") : value;
  };
  const add = (value, body) => {
    const li = tpl.content.firstElementChild.cloneNode(true);
    li.dataset.target = value;
    li.querySelector('input[name="c_target"]').value = value;
    li.querySelector('input[name="c_text"]').value = body;
    li.querySelector('[data-testid="review-where"]').textContent = labelOf(value);
    li.querySelector(".review-text").textContent = body;
    list.appendChild(li);
  };

  // A refused submission comes back with its drafts in the page: they win over stored ones.
  if (list.children.length) save();
  else {
    let stored = [];
    try { stored = JSON.parse(localStorage.getItem(key) || "[]"); } catch (_) { stored = []; }
    if (Array.isArray(stored)) stored.forEach((d) => { if (d && typeof d.text === "string" && hasTarget(target, d.target)) add(d.target, d.text); });
  }
  count(box, list);

  const addFromComposer = () => {
    const body = text.value.trim();
    if (!body) { text.focus(); return false; }
    add(target.value, body);
    text.value = "";
    save();
    count(box, list);
    text.focus();
    return true;
  };
  box.addEventListener("click", (ev) => {
    const t = ev.target.closest && ev.target.closest("[data-review-add], [data-review-remove]");
    if (!t) return;
    if (t.matches("[data-review-add]")) addFromComposer();
    else {
      t.closest("li").remove();
      save();
      count(box, list);
      text.focus();
    }
  });
  text.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); ev.stopPropagation(); addFromComposer(); }
  });
  // The plan's parts get a button that points the composer at them.
  markTargets(target, (value) => { target.value = value; text.focus(); });
}

/** startComment puts the cursor in the review composer (the c key). */
export function startComment() {
  const t = document.querySelector('[data-testid="review-text"]');
  if (!t) return;
  t.scrollIntoView({ block: "nearest" });
  t.focus();
}

// count tells the Request changes button how many comments it sends.
function count(box, list) {
  const b = document.querySelector('[data-testid="request-changes"]');
  if (!b) return;
  const n = list.children.length;
  b.dataset.count = String(n);
  // The count shows on the button itself, so the reviewer sees what the key sends.
  let c = b.querySelector(".review-count");
  if (!c) {
    c = document.createElement("span");
    c.className = "review-count";
    c.dataset.testid = "review-count";
    b.insertBefore(c, b.querySelector("kbd"));
  }
  c.textContent = n ? "(" + n + ") " : "";
}

function hasTarget(select, value) {
  return Array.from(select.options).some((o) => o.value === value);
}

function forgetAll() {
  const m = location.pathname.match(/\/approvals\/([^/]+)$/);
  if (!m) return;
  try { localStorage.removeItem(STORE + decodeURIComponent(m[1])); } catch (_) { /* nothing kept */ }
}

// markTargets adds a Comment button to each entry, markdown block and DAG node of the plan
// under review that the composer offers as a target.
function markTargets(select, pick) {
  const plan = document.querySelector('[data-testid="plan-shown"]');
  if (!plan) return;
  const button = (value, what) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "btn btn-small review-pin";
    b.dataset.testid = "comment-on";
    b.dataset.target = value;
    b.textContent = "Comment";
    b.setAttribute("aria-label", "Comment on " + what);
    b.addEventListener("click", () => pick(value));
    return b;
  };
  plan.querySelectorAll('[data-testid="plan-entry"]').forEach((li, i) => {
    const v = "entry:" + (i + 1);
    if (hasTarget(select, v)) li.appendChild(button(v, "entry " + (i + 1)));
  });
  plan.querySelectorAll('details[data-testid="dag-node-details"]').forEach((d) => {
    const v = "call:" + d.dataset.nodeId;
    if (hasTarget(select, v)) d.appendChild(button(v, "call " + d.dataset.nodeId));
  });
  const md = plan.querySelector('[data-testid="plan-markdown"]');
  if (!md) return;
  // Rendered blocks are matched to the source lines the composer lists by their text.
  const lines = Array.from(select.options).filter((o) => o.value.startsWith("line:"))
    .map((o) => ({ value: o.value, text: norm(o.textContent.replace(/^Line \d+[^:]*: /, "")) }));
  let from = 0;
  md.querySelectorAll("h1, h2, h3, h4, h5, h6, p, li, pre, blockquote > p, td").forEach((el) => {
    if (el.tagName === "P" && el.closest("li")) return; // a loose list item's paragraph: the item has the button
    const own = norm(firstLine(el));
    if (!own) return;
    for (let i = from; i < lines.length; i++) {
      if (lines[i].text && (lines[i].text.startsWith(own.slice(0, 40)) || own.startsWith(lines[i].text.slice(0, 40)))) {
        const b = button(lines[i].value, lines[i].value.replace(":", " "));
        const nested = Array.from(el.children).find((c) => c.tagName === "UL" || c.tagName === "OL");
        if (el.tagName === "PRE") el.insertAdjacentElement("afterend", b); // not inside the code
        else if (nested) el.insertBefore(b, nested); // beside the item's own text, above its sub-list
        else el.appendChild(b);
        from = i + 1;
        return;
      }
    }
  });
}

// firstLine is an element's own first line of text, without nested lists.
function firstLine(el) {
  let s = "";
  for (const n of el.childNodes) {
    if (n.nodeType === 1 && /^(UL|OL|BUTTON)$/.test(n.tagName)) continue;
    s += n.textContent;
  }
  return s.split("\n")[0];
}

// norm strips what markdown adds around text (markers, emphasis, links' brackets) and spacing.
function norm(s) {
  return s.replace(/^\s*(#{1,6}\s+|[-*+]\s+(\[[ xX]\]\s+)?|\d+[.)]\s+|>\s*)/, "")
    .replace(/\]\([^)]*\)/g, "").replace(/[*_`~[\]]/g, "").replace(/\s+/g, " ").trim().toLowerCase();
}
