// plandash page script: one socket per page, fragments swapped in by element id, catch-up from
// the last change seen after a reconnect. No dependencies.
(function () {
  "use strict";
  var body = document.body;
  var topic = body.dataset.topic;
  var lastSeq = Number(body.dataset.seq || 0);
  var seen = Object.create(null); // element id -> newest seq applied
  var conn = document.getElementById("conn");
  var ws = null, retry = 0, pausedUntil = 0, timer = null;

  function setState(state, text) {
    if (!conn) return;
    conn.dataset.state = state;
    conn.textContent = text;
  }

  function updateTitle() {
    var t = document.querySelector("title");
    if (!t) return;
    var base = t.dataset.base || "plandash";
    base = base.replace(/^\(\d+\)\s*/, "");
    var n = document.querySelectorAll('[data-plan-state="in_progress"]').length;
    document.title = n > 0 ? "(" + n + ") " + base : base;
  }

  function apply(f) {
    if (f.seq && seen[f.id] && seen[f.id] >= f.seq) return;
    if (f.seq) seen[f.id] = f.seq;
    var old = document.getElementById(f.id);
    if (!f.html) {
      if (old) old.remove();
      return;
    }
    var tpl = document.createElement("template");
    tpl.innerHTML = f.html;
    var el = tpl.content.firstElementChild;
    if (!el) return;
    if (old) {
      // Flash only the cards whose revision changed, not everything the fragment replaced.
      var before = {}, nodes = {};
      old.querySelectorAll("[data-revision]").forEach(function (c) { before[c.id] = c.dataset.revision; });
      old.querySelectorAll("[data-testid=dag-node]").forEach(function (n) { nodes[n.id || n.dataset.details] = n.dataset.status; });
      old.replaceWith(el);
      var cards = el.matches("[data-revision]") ? [el] : el.querySelectorAll("[data-revision]");
      cards.forEach(function (c) { if (before[c.id] !== c.dataset.revision) flash(c); });
      // In a diagram, only the nodes that changed status (or appeared) pulse.
      el.querySelectorAll("[data-testid=dag-node]").forEach(function (n) {
        var k = n.id || n.dataset.details;
        if (nodes[k] !== n.dataset.status) n.classList.add("dag-changed");
      });
      return;
    } else {
      var parent = f.parent && document.getElementById(f.parent);
      if (!parent) return;
      if (parent.dataset.insert === "prepend") parent.prepend(el); else parent.append(el);
    }
    flash(el);
  }

  function flash(el) {
    el.classList.remove("flash");
    void el.offsetWidth; // restart the animation
    el.classList.add("flash");
  }

  function connect() {
    if (!topic) return;
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    var url = proto + "//" + location.host + "/ws?topic=" + encodeURIComponent(topic) + "&since=" + lastSeq;
    // In a panel whose browser keeps no third-party cookies the token travels as a subprotocol.
    var token = window.__plandashToken;
    try { token = token || sessionStorage.getItem("plandash.token"); } catch (e) { /* no storage */ }
    ws = token ? new WebSocket(url, ["plandash.v1", "plandash.token." + token]) : new WebSocket(url);
    ws.onopen = function () { retry = 0; setState("live", "live"); };
    ws.onmessage = function (ev) {
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.t === "resync") { location.reload(); return; }
      if (msg.t === "f") {
        apply(msg);
        if (msg.seq > lastSeq) lastSeq = msg.seq;
        updateTitle();
        body.dataset.seq = String(lastSeq);
      }
    };
    ws.onclose = function () {
      ws = null;
      setState("reconnecting", "reconnecting…");
      var wait = Math.max(Math.min(500 * Math.pow(2, retry++), 5000), pausedUntil - Date.now());
      clearTimeout(timer);
      timer = setTimeout(connect, wait);
    };
  }

  // Relative times ("2m ago") stay true while the page is open.
  function refreshTimes() {
    var now = Date.now();
    document.querySelectorAll("time.last, time[data-rel]").forEach(function (t) {
      var d = (now - Date.parse(t.getAttribute("datetime"))) / 1000;
      if (isNaN(d)) return;
      t.textContent = d < 5 ? "just now" : d < 60 ? Math.floor(d) + "s ago" : d < 3600 ? Math.floor(d / 60) + "m ago" :
        d < 86400 ? Math.floor(d / 3600) + "h ago" : t.textContent;
    });
  }

  // plandash.disconnect(ms) drops the socket and stays away for ms: how a page behaves on a flaky
  // network can be seen (and tested) without breaking the network.
  window.plandash = {
    disconnect: function (ms) {
      pausedUntil = Date.now() + (ms || 0);
      if (ws) ws.close();
    },
    seq: function () { return lastSeq; }
  };

  updateTitle();
  setInterval(refreshTimes, 15000);
  connect();
})();

// ---- Shared plans (appended by the shared-plans work) --------------------------------------
// The editor's live preview, the notice that a draft is stale, and confirmations. It only reads
// the DOM the pages and the socket code above produce; nothing above depends on it.
(function () {
  "use strict";

  // <form data-confirm="question"> asks before it submits (deleting a shared plan).
  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    if (f && f.dataset && f.dataset.confirm && !window.confirm(f.dataset.confirm)) ev.preventDefault();
  });

  var form = document.querySelector("form[data-shared-editor]");
  if (!form) return;

  // Preview: the server renders the markdown exactly as the page will, so no markdown code
  // lives here. Typing is debounced; an answer to older text is dropped.
  var area = form.querySelector("textarea[data-preview]");
  var preview = area && document.getElementById(area.dataset.preview);
  if (area && preview) {
    var timer = null, pending = null, shown = area.value;
    var render = function () {
      var text = area.value;
      if (text === shown) return;
      if (pending) pending.abort();
      var ctl = pending = new AbortController();
      fetch("/shared/-/preview", {
        method: "POST", body: text, credentials: "same-origin", signal: ctl.signal,
        headers: { "Content-Type": "text/plain; charset=utf-8" }
      }).then(function (r) {
        if (!r.ok) throw new Error("preview: HTTP " + r.status);
        return r.text();
      }).then(function (html) {
        if (ctl !== pending) return;
        preview.innerHTML = html;
        preview.dataset.state = "ok";
        shown = text;
      }).catch(function (e) {
        if (e.name !== "AbortError") preview.dataset.state = "error";
      });
    };
    area.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(render, 150);
    });
  }

  // A draft is based on the revision the page was opened at. When the live header shows a
  // newer one (or the plan is gone), say so before the person saves.
  var name = form.dataset.name, opened = Number(form.dataset.opened || 0);
  var stale = form.querySelector(".stale");
  var check = function () {
    var head = name && document.getElementById("sphead-" + name);
    if (!head || !stale) return;
    stale.hidden = Number(head.dataset.revision || 0) === opened && head.dataset.removed !== "true";
  };
  new MutationObserver(check).observe(document.getElementById("main") || document.body, { childList: true, subtree: true });
  check();
})();

// ---- The human gate (approvals; appended by the approval work) --------------------------------
// The pending count in the title and the favicon, a notification when the tab is hidden, deadline
// countdowns, keyboard shortcuts (j/k/Enter/a/m/r) and the plan editor.
(function () {
  "use strict";
  var body = document.body;
  var gatePage = /^approvals?(:|$)/.test(body.dataset.topic || "");
  var lastCount = null;
  var baseIcon = null;

  // Title "[3] …" while requests wait. The dashboard's script rewrites the title after fragments,
  // so the prefix is put back whenever the title changes.
  function titleWithCount() {
    if (lastCount === null) return;
    var t = document.title.replace(/^\[\d+\]\s*/, "");
    var want = lastCount > 0 ? "[" + lastCount + "] " + t : t;
    if (document.title !== want) document.title = want;
  }

  function favicon(n) {
    var link = document.querySelector('link[rel="icon"]');
    if (!link) return;
    if (baseIcon === null) baseIcon = link.getAttribute("href");
    if (!n) {
      if (link.getAttribute("href") !== baseIcon) link.setAttribute("href", baseIcon);
      return;
    }
    var label = n > 99 ? "99" : String(n);
    var svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">' +
      '<rect x="1" y="2" width="14" height="3" rx="1.5" fill="#3a5bd9"/><rect x="1" y="7" width="9" height="3" rx="1.5" fill="#3a5bd9"/>' +
      '<rect x="1" y="12" width="5" height="3" rx="1.5" fill="#3a5bd9"/><circle cx="11" cy="11" r="5" fill="#c93b3b"/>' +
      '<text x="11" y="13.6" font-size="' + (label.length > 1 ? 6 : 7.5) + '" text-anchor="middle" fill="#fff" ' +
      'font-family="system-ui,sans-serif" font-weight="700">' + label + "</text></svg>";
    link.setAttribute("href", "data:image/svg+xml," + encodeURIComponent(svg));
    link.dataset.count = String(n);
  }

  function notify(n, latest) {
    if (!document.hidden || !("Notification" in window) || Notification.permission !== "granted") return;
    try {
      var note = new Notification("plandash: a plan waits for your approval", { body: latest || n + " waiting", tag: "plandash-approvals" });
      note.onclick = function () { window.focus(); location.href = "/approvals"; };
    } catch (e) { /* some browsers only notify from a service worker: the title and icon still say it */ }
  }

  // Permission is asked once ever, on the first thing the person does on a gate page.
  function askOnce() {
    if (!("Notification" in window) || Notification.permission !== "default") return;
    try {
      if (localStorage.getItem("plandash.notify.asked")) return;
      localStorage.setItem("plandash.notify.asked", "1");
    } catch (e) { return; }
    Notification.requestPermission();
  }
  if (gatePage) {
    document.addEventListener("pointerdown", askOnce, { once: true });
    document.addEventListener("keydown", askOnce, { once: true });
  }

  function onCount() {
    var el = document.getElementById("pending-count");
    if (!el || el.dataset.count === undefined) return;
    var n = Number(el.dataset.count || 0);
    if (lastCount !== null && n > lastCount) notify(n, el.dataset.latest);
    lastCount = n;
    titleWithCount();
    favicon(n);
  }
  var nav = document.querySelector('[data-testid="nav-approvals"]');
  if (nav) new MutationObserver(onCount).observe(nav, { childList: true, subtree: true, characterData: true });

  // The layout is rendered without the count: it is fetched each time the socket goes live (so
  // also after a reconnect, which may have missed changes) and then kept by the socket's
  // fragments. A fetched count older than the shown one (by the gate's seq) is dropped.
  function refreshCount() {
    fetch("/api/v1/approvals/count", { credentials: "same-origin" }).then(function (r) {
      return r.ok ? r.json() : null;
    }).then(function (c) {
      var el = document.getElementById("pending-count");
      if (!c || !el || Number(el.dataset.gateSeq || 0) > c.seq) return;
      el.dataset.gateSeq = String(c.seq);
      el.dataset.latest = "";
      el.dataset.count = String(c.pending);
      el.textContent = c.pending ? String(c.pending) : "";
      onCount();
    }).catch(function () { /* the socket's next fragment brings it */ });
  }
  var connEl = document.getElementById("conn");
  if (connEl && nav) {
    new MutationObserver(function () { if (connEl.dataset.state === "live") refreshCount(); })
      .observe(connEl, { attributes: true, attributeFilter: ["data-state"] });
  }
  var titleEl = document.querySelector("title");
  if (titleEl) new MutationObserver(titleWithCount).observe(titleEl, { childList: true, characterData: true, subtree: true });

  // Deadlines count down every second; the server applies the default outcome when one passes.
  function pad(n) { return n < 10 ? "0" + n : String(n); }
  function left(s) {
    if (s <= 0) return "now";
    if (s < 3600) return Math.floor(s / 60) + ":" + pad(s % 60);
    if (s < 172800) return Math.floor(s / 3600) + "h " + pad(Math.floor(s / 60) % 60) + "m";
    return Math.floor(s / 86400) + "d";
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("time[data-deadline]").forEach(function (t) {
      var s = Math.round((Date.parse(t.dataset.deadline) - now) / 1000);
      if (isNaN(s)) return;
      t.textContent = left(s);
      var box = t.closest(".countdown");
      if (box) box.classList.toggle("soon", s < 120);
    });
  }
  if (gatePage) setInterval(tick, 1000);

  function randomKey() {
    var a = new Uint8Array(12);
    crypto.getRandomValues(a);
    return Array.prototype.map.call(a, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function showError(form, msg) {
    var p = form.querySelector('[data-testid="form-error"]');
    if (!p) return;
    p.textContent = msg;
    p.hidden = !msg;
  }

  // Decision forms: an idempotency key per form (rows arrive over the socket, shared by every
  // viewer, so the key is made here), a reason before a rejection, and one submission only.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.matches || !form.matches('form[action$="/decide"]')) return;
    var key = form.querySelector('input[name="key"]');
    if (key && !key.value) key.value = randomKey();
    var action = ev.submitter && ev.submitter.value;
    var comment = form.querySelector('textarea[name="comment"]');
    if (action === "reject" && comment && !comment.value.trim()) {
      ev.preventDefault();
      showError(form, "Give a reason: the agent reads it to know what to do instead.");
      comment.focus();
      return;
    }
    if (form.dataset.busy) { ev.preventDefault(); return; }
    form.dataset.busy = "1";
  });

  function submitWith(testid) {
    var b = document.querySelector('[data-testid="' + testid + '"]');
    if (b && b.form && !b.disabled) b.form.requestSubmit(b);
  }

  function openEditor() {
    var ed = document.getElementById("editor");
    if (!ed) return;
    ed.open = true;
    var f = ed.querySelector("input, textarea");
    if (!f) return;
    f.focus();
    if (f.tagName === "TEXTAREA") f.setSelectionRange(f.value.length, f.value.length); // to add at the end
  }

  function startReject() {
    var form = document.getElementById("decide-form");
    var c = form && form.querySelector('textarea[name="comment"]');
    if (!c) return;
    form.dataset.mode = "reject";
    showError(form, "");
    c.placeholder = "Why not? Then press Reject (or Ctrl+Enter).";
    c.focus();
  }

  // Inbox selection for j/k; the row is remembered by id because rows come and go live.
  var selected = null;
  function rows() { return Array.prototype.slice.call(document.querySelectorAll("#approvals-pending > .ap-row")); }
  function select(step) {
    var list = rows();
    if (!list.length) return null;
    var i = list.findIndex(function (r) { return r.dataset.id === selected; });
    i = i < 0 ? (step > 0 ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, i + step));
    list.forEach(function (r) { r.classList.remove("selected"); r.removeAttribute("aria-current"); });
    var row = list[i];
    row.classList.add("selected");
    row.setAttribute("aria-current", "true");
    row.scrollIntoView({ block: "nearest" });
    selected = row.dataset.id;
    return row;
  }
  function current() {
    return rows().find(function (r) { return r.dataset.id === selected; }) || null;
  }

  function typing(ev) {
    var t = ev.target;
    return ev.ctrlKey || ev.metaKey || ev.altKey || (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)));
  }

  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    // Ctrl+Enter in the comment sends a rejection once r was pressed.
    if (t && t.name === "comment" && ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      var form = t.form;
      if (form && form.dataset.mode === "reject") { ev.preventDefault(); submitWith("reject"); }
      return;
    }
    if (ev.defaultPrevented || typing(ev) || !gatePage) return;
    var inbox = document.getElementById("approvals-pending");
    var navEl = document.querySelector('[data-testid="approval-nav"]');
    var row;
    switch (ev.key) {
      case "j":
      case "k":
        if (inbox) { select(ev.key === "j" ? 1 : -1); break; }
        var to = navEl && navEl.dataset[ev.key === "j" ? "next" : "prev"];
        if (to) location.href = "/approvals/" + encodeURIComponent(to);
        break;
      case "Enter":
      case "o":
        row = inbox && current();
        if (!row) return;
        location.href = row.dataset.href;
        break;
      case "a":
        if (inbox) {
          row = current();
          var b = row && row.querySelector('[data-testid="quick-approve"]');
          if (b) b.form.requestSubmit(b);
          break;
        }
        submitWith("approve");
        break;
      case "m":
      case "r":
        if (inbox) {
          row = current();
          if (row) location.href = row.dataset.href + (ev.key === "m" ? "#modify" : "#reject");
          break;
        }
        if (ev.key === "m") openEditor(); else startReject();
        break;
      default:
        return;
    }
    ev.preventDefault();
    swallow = { key: ev.key, until: Date.now() + 500 };
  });
  // A shortcut that moved the focus into a field must not also type its letter there: browsers
  // skip the keypress after a cancelled keydown, but synthetic input (automation, some IMEs)
  // sends it separately.
  var swallow = null;
  document.addEventListener("keypress", function (ev) {
    if (swallow && ev.key === swallow.key && Date.now() < swallow.until) ev.preventDefault();
    swallow = null;
  }, true);

  if (location.hash === "#modify") openEditor();
  if (location.hash === "#reject") startReject();

  // The checklist editor: add, remove and reorder rows (buttons, Enter, or dragging the handle).
  // Fields are posted in document order, so the rows' order is the plan's order.
  function addRow(after) {
    var tpl = document.getElementById("ed-row-template");
    var list = document.querySelector(".ed-rows");
    if (!tpl || !list) return;
    var row = tpl.content.firstElementChild.cloneNode(true);
    if (after && after.parentNode === list) after.after(row); else list.append(row);
    row.querySelector("input").focus();
  }
  document.addEventListener("click", function (ev) {
    var t = ev.target.closest ? ev.target : null;
    if (!t) return;
    if (t.closest("[data-open-editor]")) { openEditor(); return; }
    var b = t.closest("[data-ed]");
    if (!b) return;
    var row = b.closest(".ed-row");
    switch (b.dataset.ed) {
      case "add": addRow(null); break;
      case "up": if (row.previousElementSibling) row.previousElementSibling.before(row); b.focus(); break;
      case "down": if (row.nextElementSibling) row.nextElementSibling.after(row); b.focus(); break;
      case "remove":
        var next = row.nextElementSibling || row.previousElementSibling;
        row.remove();
        if (next) next.querySelector("input").focus();
        break;
    }
  });
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if (ev.key === "Enter" && t && t.name === "content" && t.closest(".ed-row")) {
      ev.preventDefault(); // Enter would submit the first button: approve, unchanged
      addRow(t.closest(".ed-row"));
    }
  });
  var dragged = null;
  document.addEventListener("pointerdown", function (ev) {
    var h = ev.target.closest && ev.target.closest(".ed-handle");
    if (h) h.parentNode.draggable = true;
  });
  document.addEventListener("dragstart", function (ev) {
    dragged = ev.target.closest && ev.target.closest(".ed-row");
    if (dragged) ev.dataTransfer.effectAllowed = "move";
  });
  document.addEventListener("dragover", function (ev) {
    var over = dragged && ev.target.closest && ev.target.closest(".ed-row");
    if (!over || over === dragged) return;
    ev.preventDefault();
    var r = over.getBoundingClientRect();
    if (ev.clientY < r.top + r.height / 2) over.before(dragged); else over.after(dragged);
  });
  document.addEventListener("dragend", function () {
    if (dragged) dragged.draggable = false;
    dragged = null;
  });

  // Tool-call plans are checked as they are typed, by the same rules the server applies.
  var calls = document.querySelector('textarea[data-validate="dag"]');
  if (calls) {
    var timer = null;
    var out = calls.form.querySelector('[data-testid="editor-check"]');
    var submit = calls.form.querySelector('[data-testid="submit-modify"]');
    var show = function (ok, msg) {
      out.textContent = msg;
      out.dataset.ok = ok ? "true" : "false";
      if (submit) submit.disabled = !ok;
    };
    var check = function () {
      var parsed;
      try { parsed = JSON.parse(calls.value); } catch (e) { show(false, "Not valid JSON: " + e.message); return; }
      fetch("/api/v1/approvals/validate", {
        method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ type: "dag", calls: parsed })
      }).then(function (r) {
        return r.json().then(function (b) { show(r.ok, r.ok ? "Valid: " + parsed.length + " calls" : b.detail); });
      }).catch(function () { show(true, ""); });
    };
    calls.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(check, 300); });
    check();
  }
})();
