// The overview's page script: an order that does not jump while you read, filters that apply
// as they change, and sessions collapsed by the reader (remembered in this browser).
//
// Order: a session already on the page is replaced where it is (swap.js). On a page with sessions
// on it, a session the page does not show yet is held, not inserted, and announced ("3 new sessions — show"); "show" puts them in
// their places, newest first, or on an older page opens the newest one. A session older than the
// page's oldest belongs to a later page and is left there; one that does not pass the page's
// filters is not announced.
//
// Filters: the form is a plain GET form (the URL holds them, so they survive a reload and can be
// shared). A menu applies as soon as it changes; the search box narrows the sessions shown as
// you type, and Enter searches every stored session.
import { INSERTED } from "./dag.js";

const COLLAPSED = "plandash.collapsed";
const MAX_REMEMBERED = 500;

// startOverview enhances the overview when this page is one; it returns the hold hook for the
// swap (see createSwap), or null on any other page.
export function startOverview(socket) {
  let list = document.getElementById("sessions"); // replaced whole after a server restart
  const form = document.querySelector('[data-testid="overview-filters"]');
  const banner = document.getElementById("new-sessions");
  if (!list || !form || !banner) return null;

  const query = new URLSearchParams(location.search);
  const first = list.dataset.first === "true";
  const held = new Map(); // element id -> the group, newest version
  const collapsed = new Set(load());

  function matches(g, text) {
    const agent = query.get("agent"), host = query.get("host"), dir = (query.get("dir") || "").replace(/\/+$/, ""), state = query.get("state");
    if (agent && g.dataset.agent !== agent && g.dataset.agentTitle !== agent) return false;
    if (host && (host === "." ? g.dataset.host !== "" : g.dataset.host !== host)) return false;
    if (dir && g.dataset.cwd !== dir && !(g.dataset.cwd || "").startsWith(dir + "/")) return false;
    if (state && g.dataset.state !== state && !(state === "active" && g.dataset.state === "waiting")) return false;
    return !text || g.textContent.toLowerCase().includes(text);
  }

  // A page that shows a filter or an older page cannot take the whole first page a restarted
  // server sends: it reloads its own address instead.
  const narrowed = [...query.keys()].some((k) => k !== "density");

  function hold(f, el, old) {
    if (f.id === "sessions" && el) {
      if (narrowed) { location.reload(); return true; }
      el.classList.toggle("compact", list.classList.contains("compact"));
      held.clear();
      announce();
      return false;
    }
    if (f.parent !== "sessions" || !f.id.startsWith("s-") || old) return false;
    if (!el) {
      if (held.delete(f.id)) announce();
      return false;
    }
    held.delete(f.id);
    // An empty list has nothing to read yet: the first sessions go straight in.
    if (!list.querySelector('[data-testid="session-group"]')) return false;
    const older = !!list.dataset.bottom && BigInt(el.dataset.firstSeen || "0") < BigInt(list.dataset.bottom);
    if (!older && matches(el, (query.get("q") || "").toLowerCase())) held.set(f.id, el);
    announce();
    return true;
  }

  function announce() {
    const n = held.size;
    banner.hidden = n === 0;
    banner.querySelector('[data-testid="new-sessions-text"]').textContent =
      n === 1 ? "1 new session" : n + " new sessions";
  }

  // before says group a comes before b: newer start first, then the greater id (the server's order).
  function before(a, b) {
    const fa = BigInt(a.dataset.firstSeen || "0"), fb = BigInt(b.dataset.firstSeen || "0");
    return fa !== fb ? fa > fb : a.dataset.sessionId > b.dataset.sessionId;
  }

  function show() {
    if (!first) {
      const q = new URLSearchParams(location.search);
      q.delete("before");
      location.assign("/" + (q.size ? "?" + q : ""));
      return;
    }
    for (const el of held.values()) {
      const next = [...list.children].find((c) => before(el, c));
      if (next) next.before(el); else list.append(el);
      el.dispatchEvent(new Event(INSERTED, { bubbles: true }));
      enhance(el);
      el.classList.add("flash");
    }
    held.clear();
    announce();
    list.scrollIntoView({ block: "start" });
    list.querySelector('[data-testid="session-group"]')?.querySelector("a")?.focus({ preventScroll: true });
  }
  banner.querySelector("button").addEventListener("click", show);

  // Collapse: the button is hidden until this script can honour it.
  function load() {
    try { return JSON.parse(localStorage.getItem(COLLAPSED) || "[]"); } catch { return []; }
  }
  function save() {
    try { localStorage.setItem(COLLAPSED, JSON.stringify([...collapsed].slice(-MAX_REMEMBERED))); } catch { /* private mode: this page only */ }
  }
  function enhance(g) {
    const b = g.querySelector('[data-testid="collapse"]');
    if (!b) return;
    const shut = collapsed.has(g.dataset.sessionId), name = g.querySelector(".agent")?.textContent || "session";
    b.hidden = false;
    g.toggleAttribute("data-collapsed", shut);
    b.setAttribute("aria-expanded", String(!shut));
    b.setAttribute("aria-label", (shut ? "Expand " : "Collapse ") + name);
  }
  document.addEventListener("click", (e) => {
    const b = e.target.closest('#sessions [data-testid="collapse"]');
    if (!b) return;
    const g = b.closest('[data-testid="session-group"]'), id = g.dataset.sessionId;
    if (collapsed.has(id)) collapsed.delete(id); else collapsed.add(id);
    save();
    enhance(g);
  });
  list.querySelectorAll('[data-testid="session-group"]').forEach(enhance);
  socket.onFragment((f) => {
    if (f.id === "sessions") {
      list = document.getElementById("sessions");
      list.querySelectorAll('[data-testid="session-group"]').forEach(enhance);
      narrow();
      return;
    }
    // A group replaced whole, or its head (which holds the collapse button) on its own.
    const el = document.getElementById(f.id);
    const g = el && (f.parent === "sessions" ? el : f.id.endsWith("-head") && el.closest('[data-testid="session-group"]'));
    if (g) {
      enhance(g);
      narrow();
    }
  });

  // Filters: a menu applies at once; the search box narrows what is shown as you type.
  form.addEventListener("change", (e) => {
    if (!e.target.matches("select")) return;
    if (e.target.name === "density") {
      // Remembered for the overview's plain address; the server reads it (Lax: it only shapes a page).
      document.cookie = "plandash_density=" + e.target.value + "; path=/; max-age=31536000; samesite=lax";
    }
    form.requestSubmit();
  });
  form.addEventListener("submit", (e) => {
    // Empty fields stay out of the URL, so a shared link says only what it filters by.
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v !== "" && !(k === "density" && v === "comfortable")) q.set(k, String(v));
    location.assign("/" + (q.size ? "?" + q : ""));
  });
  const search = form.querySelector('[name="q"]');
  const typed = form.querySelector('[data-testid="search-hint"]');
  function narrow() {
    const text = search.value.trim().toLowerCase();
    list.querySelectorAll('[data-testid="session-group"]').forEach((g) => { g.hidden = !matches(g, text); });
    if (typed) typed.hidden = text === (query.get("q") || "").toLowerCase();
  }
  search.addEventListener("input", narrow);
  return hold;
}
