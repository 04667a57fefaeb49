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
      var before = {};
      old.querySelectorAll("[data-revision]").forEach(function (c) { before[c.id] = c.dataset.revision; });
      old.replaceWith(el);
      var cards = el.matches("[data-revision]") ? [el] : el.querySelectorAll("[data-revision]");
      cards.forEach(function (c) { if (before[c.id] !== c.dataset.revision) flash(c); });
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
