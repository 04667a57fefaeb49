// The embed's conversation with the host page that frames it (README "Embedding in an IDE
// panel"). It accepts messages only from the configured frame ancestors (data-embed-origins):
// plandash:theme and plandash:focus-session. It tells the host plandash:ready,
// plandash:connection, plandash:pending and plandash:approval-arrived. Links to pages that have
// a panel view stay in the panel.
import { pageToken } from "./token.js";

// VS Code's colours and fonts, and the names they take in plandash's stylesheet.
const VSCODE = {
  "--vscode-editor-background": "--bg", "--vscode-sideBar-background": "--panel",
  "--vscode-foreground": "--text", "--vscode-descriptionForeground": "--muted",
  "--vscode-panel-border": "--border", "--vscode-focusBorder": "--accent",
  "--vscode-textCodeBlock-background": "--code",
  "--vscode-font-family": "--font", "--vscode-font-size": "--font-size", "--vscode-editor-font-family": "--mono",
};
const OWN = ["--bg", "--panel", "--text", "--muted", "--border", "--accent", "--accent-soft", "--done", "--doing", "--fail", "--code",
  "--font", "--font-size", "--mono"];
// A font list is longer than a colour; neither may be long enough to carry anything else.
const MAX_VALUE = 300;

// startEmbed talks to the host about socket's state and pending's count.
export function startEmbed({ socket, pending }) {
  const patterns = (document.body.dataset.embedOrigins || "").split(/\s+/).filter(Boolean);
  const post = (msg) => {
    const to = hostOrigin(patterns);
    if (to && window.parent !== window) window.parent.postMessage(msg, to);
  };

  window.addEventListener("message", (ev) => {
    if (!allowed(patterns, ev.origin) || !ev.data || typeof ev.data !== "object") return;
    const msg = ev.data;
    if (msg.type === "plandash:theme") setTheme(msg);
    if (msg.type === "plandash:focus-session" && typeof msg.session === "string") {
      location.href = "/embed/sessions/" + encodeURIComponent(msg.session);
    }
  });
  document.addEventListener("click", keepInPanel);
  document.addEventListener("submit", postWithToken);

  // The host hears the count once the page is ready (0 while it is not known yet), then each
  // change; a rise is also an arrival.
  let last = -1;
  const report = (n) => {
    if (n === last) return;
    if (last >= 0 && n > last) post({ type: "plandash:approval-arrived", pending: n });
    last = n;
    post({ type: "plandash:pending", pending: n });
  };
  // The host learns whether the panel is live, and how it signed in: "cookie", or "token" where
  // the browser keeps no third-party cookies and the page carries the token itself.
  socket.onState((state) => post({ type: "plandash:connection", state, via: pageToken() ? "token" : "cookie" }));
  whenReady(() => {
    report(pending.count() || 0);
    pending.subscribe(report);
    post({ type: "plandash:ready", path: location.pathname });
  });
}

function whenReady(fn) {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn);
  else fn();
}

// An origin matches "http://localhost:*", "vscode-webview:" (any origin of that scheme) or an
// exact origin.
function allowed(patterns, origin) {
  if (origin === location.origin) return true;
  return patterns.some((p) => {
    if (/^[a-z][a-z0-9+.-]*:$/i.test(p)) return origin.indexOf(p) === 0;
    if (p.slice(-2) === ":*") return origin.indexOf(p.slice(0, -1)) === 0 && /^\d+$/.test(origin.slice(p.length - 1));
    return origin === p;
  });
}

// Where to send news: the origin that framed us, when the browser tells and it is allowed.
function hostOrigin(patterns) {
  const a = location.ancestorOrigins;
  if (a && a.length && allowed(patterns, a[0])) return a[0];
  const exact = patterns.filter((p) => /^https?:\/\/[^*]+$/.test(p));
  return exact.length === 1 ? exact[0] : null;
}

function setTheme(msg) {
  const root = document.documentElement;
  if (msg.theme === "light" || msg.theme === "dark") root.dataset.theme = msg.theme;
  else if (msg.theme === "system") delete root.dataset.theme;
  const vars = msg.vars || {};
  Object.keys(vars).forEach((k) => {
    const name = VSCODE[k] || (OWN.includes(k) ? k : null);
    if (name && typeof vars[k] === "string" && vars[k].length < MAX_VALUE) root.style.setProperty(name, vars[k]);
  });
}

// embedScope is the swap's hold hook on a panel overview narrowed to one directory (/embed?dir=):
// a session arriving live from elsewhere is kept out, as the server kept it out of the page.
// null on any other page.
export function embedScope() {
  const list = document.getElementById("sessions");
  const dir = ((list && document.body.classList.contains("embed") && list.dataset.dir) || "").replace(/\/+$/, "");
  if (!dir) return null;
  return (f, el, old) => {
    // A restarted server sends the whole first page, unnarrowed: load this page's own instead.
    if (f.id === "sessions" && el) { location.reload(); return true; }
    if (f.parent !== "sessions" || !el || old) return false;
    const cwd = el.dataset.cwd || "";
    return cwd !== dir && !cwd.startsWith(dir + "/");
  };
}

function keepInPanel(ev) {
  const a = ev.target.closest && ev.target.closest("a[href]");
  if (!a || a.target || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
  const u = new URL(a.href, location.href);
  if (u.origin !== location.origin || /^\/embed(\/|$)/.test(u.pathname)) return;
  const panel = panelPath(u);
  if (!panel) return;
  ev.preventDefault();
  location.href = panel + u.search + u.hash;
}

// panelPath is the panel view of a page of this server (/sessions/ID: /embed/sessions/ID), or
// null when the panel has none.
function panelPath(u) {
  if (/^\/embed(\/|$)/.test(u.pathname)) return u.pathname;
  if (u.pathname === "/") return "/embed";
  return /^\/(sessions\/[^/]+|approvals(\/[^/]+)?)$/.test(u.pathname) && !/^\/approvals\/audit$/.test(u.pathname) ? "/embed" + u.pathname : null;
}

// postWithToken sends a form of a panel that keeps no third-party cookies: posted by the browser
// it would reach plandash without credentials. The token goes as a header instead; where the
// answer moves on (a decision recorded), the panel loads that page's panel view, else it shows
// the answer (a refusal and why).
function postWithToken(ev) {
  const form = ev.target;
  const token = pageToken();
  if (!token || ev.defaultPrevented || !(form instanceof HTMLFormElement)) return;
  // Attributes, not form.action and form.method: a field named "action" shadows those.
  const attr = (name) => (ev.submitter && ev.submitter.getAttribute("form" + name)) || form.getAttribute(name) || "";
  if (attr("method").toLowerCase() !== "post") return;
  const u = new URL(attr("action") || location.href, location.href);
  if (u.origin !== location.origin) return;
  ev.preventDefault();
  const data = new FormData(form, ev.submitter);
  const body = attr("enctype").toLowerCase() === "multipart/form-data" ? data : new URLSearchParams(data);
  fetch(u, { method: "POST", body, headers: { Authorization: "Bearer " + token } })
    .then((r) => r.text().then((html) => {
      const next = new URL(r.url);
      const panel = r.redirected && r.ok ? panelPath(next) : null;
      if (panel) {
        location.href = panel + next.search + next.hash;
        return;
      }
      document.open();
      document.write(html);
      document.close();
    }))
    // Not reachable: the page stays as it is, with what was typed; the socket's state says why.
    .catch(() => {});
}
