// plandash embed: talks to the host page that frames it. Messages are accepted only from the
// configured frame ancestors (data-embed-origins); see README "Embedding" for the protocol.
(function () {
  "use strict";
  var body = document.body;
  var patterns = (body.dataset.embedOrigins || "").split(/\s+/).filter(Boolean);

  // An origin matches "http://localhost:*", "vscode-webview:" (any origin of that scheme) or an
  // exact origin.
  function allowed(origin) {
    if (origin === location.origin) return true;
    return patterns.some(function (p) {
      if (/^[a-z][a-z0-9+.-]*:$/i.test(p)) return origin.indexOf(p) === 0;
      if (p.slice(-2) === ":*") return origin.indexOf(p.slice(0, -1)) === 0 && /^\d+$/.test(origin.slice(p.length - 1));
      return origin === p;
    });
  }

  // Where to send news: the origin that framed us, when the browser tells and it is allowed.
  function hostOrigin() {
    var a = location.ancestorOrigins;
    if (a && a.length && allowed(a[0])) return a[0];
    var exact = patterns.filter(function (p) { return /^https?:\/\/[^*]+$/.test(p); });
    return exact.length === 1 ? exact[0] : null;
  }

  var themeVars = {
    "--vscode-editor-background": "--bg", "--vscode-sideBar-background": "--panel",
    "--vscode-foreground": "--text", "--vscode-descriptionForeground": "--muted",
    "--vscode-panel-border": "--border", "--vscode-focusBorder": "--accent",
    "--vscode-textCodeBlock-background": "--code"
  };
  var own = ["--bg", "--panel", "--text", "--muted", "--border", "--accent", "--accent-soft", "--done", "--doing", "--fail", "--code"];

  function setTheme(msg) {
    var root = document.documentElement;
    if (msg.theme === "light" || msg.theme === "dark") root.dataset.theme = msg.theme;
    else if (msg.theme === "system") delete root.dataset.theme;
    var vars = msg.vars || {};
    Object.keys(vars).forEach(function (k) {
      var name = themeVars[k] || (own.indexOf(k) >= 0 ? k : null);
      if (name && typeof vars[k] === "string" && vars[k].length < 100) root.style.setProperty(name, vars[k]);
    });
  }

  // Links to the dashboard's pages that have a panel view stay in the panel.
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest && ev.target.closest("a[href]");
    if (!a || a.target || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    var u = new URL(a.href, location.href);
    if (u.origin !== location.origin || /^\/embed(\/|$)/.test(u.pathname)) return;
    var panel = u.pathname === "/" ? "/embed" :
      /^\/(sessions\/[^/]+|approvals(\/[^/]+)?)$/.test(u.pathname) && !/^\/approvals\/audit$/.test(u.pathname) ? "/embed" + u.pathname : null;
    if (!panel) return;
    ev.preventDefault();
    location.href = panel + u.search + u.hash;
  });

  window.addEventListener("message", function (ev) {
    if (!allowed(ev.origin) || !ev.data || typeof ev.data !== "object") return;
    var msg = ev.data;
    if (msg.type === "plandash:theme") setTheme(msg);
    if (msg.type === "plandash:focus-session" && typeof msg.session === "string") {
      location.href = "/embed/sessions/" + encodeURIComponent(msg.session);
    }
  });

  function post(msg) {
    var to = hostOrigin();
    if (to && window.parent !== window) window.parent.postMessage(msg, to);
  }

  // The pending-approvals count lives in #pending-count; the socket keeps it current.
  var last = -1;
  function reportPending() {
    var el = document.getElementById("pending-count");
    var n = el ? parseInt(el.textContent || "0", 10) || 0 : 0;
    if (n === last) return;
    if (last >= 0 && n > last) post({ type: "plandash:approval-arrived", pending: n });
    last = n;
    post({ type: "plandash:pending", pending: n });
  }
  new MutationObserver(reportPending).observe(body, { subtree: true, childList: true, characterData: true });

  // The host learns whether the panel is live, and how it signed in: "cookie", or "token" where
  // the browser keeps no third-party cookies and the page carries the token itself.
  var conn = document.getElementById("conn"), lastState = "";
  function reportConnection() {
    if (!conn || conn.dataset.state === lastState) return;
    lastState = conn.dataset.state;
    var token = window.__plandashToken;
    try { token = token || sessionStorage.getItem("plandash.token"); } catch (e) { /* no storage */ }
    post({ type: "plandash:connection", state: lastState, via: token ? "token" : "cookie" });
  }
  if (conn) new MutationObserver(reportConnection).observe(conn, { attributes: true, attributeFilter: ["data-state"] });
  document.addEventListener("DOMContentLoaded", function () {
    reportPending();
    post({ type: "plandash:ready", path: location.pathname });
  });
})();
