// Owns the page's one live socket: it subscribes to the page's topic, catches up from the last
// change seen (since=SEQ), reconnects with backoff, reloads the page when the server asks for a
// resync, and shows its state in #conn ("connecting…", "live", "reconnecting…"). A page drawn
// once (countOnly) follows only the pending count, without catching up, and its badge says
// when the page was drawn. Nothing else touches the socket: the rest of the page hears of it
// through onFragment and onState.
//
// Coming back fast matters more than sparing a loopback server a few refused connections: the
// wait between tries doubles from 100 ms but never passes RETRY_CAP (less a random part, so
// many tabs do not knock in step), and the page tries at once when the network comes back or
// the tab is shown again. A hidden tab, and a page the server refuses, wait longer. When tries keep failing, a banner says so
// plainly, and whether the server is down or answering but refusing this page.
import { hooks } from "./hooks.js";
import { pageToken } from "./token.js";

const LABELS = { live: "live", reconnecting: "reconnecting…" };
// A page drawn once says when it was drawn: a fact about the page, not a fault of the connection.
const DRAWN = "as of " + new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
const COUNT_ONLY = { live: DRAWN, reconnecting: DRAWN };
// SLOW_CAP is for a hidden tab and a server that refuses the page: under the server's limit of
// 20 wrong credentials a minute, so the person's own sign-in is not throttled.
const RETRY_CAP = 800, SLOW_CAP = 10000;
// Failed tries before the banner shows: a restart that takes a moment goes unannounced.
const BANNER_AFTER = 3;
const DOWN = "plandash is not answering — retrying…";
const REFUSED = "plandash is answering but refuses this page's live connection — reload the page (it may need the token again).";

// createSocket returns the socket of a page on topic, rendered at change number since. Nothing
// connects until start(); a page without a topic never does.
// shows tells the server which containers the page shows (data-parts: a session's group on the
// overview), so it sends their parts, not each whole; what the page holds unshown it still gets
// whole. At most MAX_SHOWS: past it, the rest come whole.
const MAX_SHOWS = 300;
function shows() {
  const ids = [...document.querySelectorAll("[data-parts][id]")].slice(0, MAX_SHOWS).map((e) => e.id);
  return ids.length ? "&shows=" + encodeURIComponent(ids.join(",")) : "";
}

export function createSocket({ topic, since, conn, countOnly }) {
  const labels = countOnly ? COUNT_ONLY : LABELS;
  const fragments = hooks(), states = hooks();
  let lastSeq = since, state = conn ? conn.dataset.state : "", ws = null, retry = 0, pausedUntil = 0, timer = null;
  // Page-clock times (performance.now) of the last open and the last loss: how fast the page
  // came back can be measured in the page itself.
  let liveAt = 0, downAt = 0, banner = null;
  // suspect: the server answered /healthz while the socket failed; refused: it did twice.
  let suspect = false, refused = false;

  function showBanner(text) {
    if (!banner) {
      banner = document.createElement("div");
      banner.className = "offline-banner";
      banner.setAttribute("role", "status");
      banner.dataset.testid = "offline-banner";
      document.body.prepend(banner);
    }
    banner.textContent = text;
    banner.hidden = false;
  }

  function hideBanner() {
    if (banner) banner.hidden = true;
  }

  // After a few failed tries, ask /healthz (no token needed) whether the server is there at
  // all. Down: say so and keep knocking fast. Answering: it may have only just come back, so
  // try the socket once more at once; if that fails too, the server refuses this page (its
  // token changed, say), and knocking fast would only trip its throttle of wrong credentials.
  function explain() {
    fetch("/healthz", { cache: "no-store" })
      .then((r) => {
        if (ws) return; // a try is under way or has succeeded
        if (!r.ok) { suspect = refused = false; showBanner(DOWN); return; }
        if (!suspect) { suspect = true; retryNow(); return; }
        refused = true;
        showBanner(REFUSED);
      })
      .catch(() => { suspect = refused = false; if (!ws) showBanner(DOWN); });
  }

  function setState(s) {
    if (s === state) return;
    state = s;
    if (conn) {
      conn.dataset.state = s;
      conn.textContent = labels[s];
    }
    states.emit(s);
  }

  // Frames: {t:"f", id, parent, seq, html} (html "" removes the element), {t:"p", id, parent,
  // seq, n, ops} (the same, as edits to the markup the socket last sent of the element) and
  // {t:"resync"}.
  function receive(ev) {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    if (msg.t === "resync") { location.reload(); return; }
    if (msg.t !== "f" && msg.t !== "p") return; // "p": edits to markup the page holds (swap.js)
    fragments.emit(msg);
    if (msg.seq > lastSeq) lastSeq = msg.seq;
    document.body.dataset.seq = String(lastSeq);
  }

  function connect() {
    if (!topic) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const url = proto + "//" + location.host + "/ws?topic=" + encodeURIComponent(topic) + (countOnly ? "" : "&since=" + lastSeq) + shows();
    // In a panel whose browser keeps no third-party cookies the token travels as a subprotocol.
    const token = pageToken();
    ws = token ? new WebSocket(url, ["plandash.v1", "plandash.token." + token]) : new WebSocket(url);
    let opened = false;
    ws.onopen = () => {
      opened = true; retry = 0; suspect = refused = false;
      liveAt = performance.now();
      hideBanner();
      setState("live");
    };
    ws.onmessage = receive;
    ws.onclose = () => {
      ws = null;
      if (opened) downAt = performance.now();
      setState("reconnecting");
      if (!opened && ++retry >= BANNER_AFTER) explain();
      const cap = document.hidden || refused ? SLOW_CAP : RETRY_CAP;
      const backoff = Math.min(100 * 2 ** retry, cap) * (0.6 + 0.4 * Math.random());
      const wait = Math.max(backoff, pausedUntil - Date.now());
      clearTimeout(timer);
      timer = setTimeout(connect, wait);
    };
  }

  // Try now rather than at the next turn of the backoff: the network or the tab is back.
  function retryNow() {
    if (ws || !topic || pausedUntil > Date.now()) return;
    clearTimeout(timer);
    connect();
  }
  addEventListener("online", retryNow);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) retryNow(); });

  return {
    /** onFragment(fn): fn(frame) for every fragment, in the order the hooks were added. */
    onFragment: fragments.add,
    /** onState(fn): fn("live" | "reconnecting") each time the state changes. */
    onState: states.add,
    start: connect,
    // disconnect(ms) drops the socket and stays away for ms: how a page behaves on a flaky
    // network can be seen (and tested) without breaking the network.
    disconnect(ms) {
      pausedUntil = Date.now() + (ms || 0);
      if (ws) ws.close();
    },
    // resume() ends a disconnect(ms) early and connects now, so a test decides when the page
    // comes back instead of racing a timer.
    resume() {
      pausedUntil = 0;
      clearTimeout(timer);
      if (!ws) connect();
    },
    seq: () => lastSeq,
    // times() is {liveAt, downAt}: page-clock times of the last open and the last loss.
    times: () => ({ liveAt, downAt }),
  };
}
