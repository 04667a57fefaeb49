// Owns the page's one live socket: it subscribes to the page's topic, catches up from the last
// change seen (since=SEQ), reconnects with backoff, reloads the page when the server asks for a
// resync, and shows its state in #conn ("connecting…", "live", "reconnecting…"). A page drawn
// once (countOnly) follows only the pending count, without catching up, and its badge keeps
// saying it is not live. Nothing else touches the socket: the rest of the page hears of it
// through onFragment and onState.
import { hooks } from "./hooks.js";
import { pageToken } from "./token.js";

const LABELS = { live: "live", reconnecting: "reconnecting…" };
const COUNT_ONLY = { live: "not live", reconnecting: "not live" };

// createSocket returns the socket of a page on topic, rendered at change number since. Nothing
// connects until start(); a page without a topic never does.
export function createSocket({ topic, since, conn, countOnly }) {
  const labels = countOnly ? COUNT_ONLY : LABELS;
  const fragments = hooks(), states = hooks();
  let lastSeq = since, state = conn ? conn.dataset.state : "", ws = null, retry = 0, pausedUntil = 0, timer = null;

  function setState(s) {
    if (s === state) return;
    state = s;
    if (conn) {
      conn.dataset.state = s;
      conn.textContent = labels[s];
    }
    states.emit(s);
  }

  // Frames: {t:"f", id, parent, seq, html} (html "" removes the element) and {t:"resync"}.
  function receive(ev) {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    if (msg.t === "resync") { location.reload(); return; }
    if (msg.t !== "f") return;
    fragments.emit(msg);
    if (msg.seq > lastSeq) lastSeq = msg.seq;
    document.body.dataset.seq = String(lastSeq);
  }

  function connect() {
    if (!topic) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const url = proto + "//" + location.host + "/ws?topic=" + encodeURIComponent(topic) + (countOnly ? "" : "&since=" + lastSeq);
    // In a panel whose browser keeps no third-party cookies the token travels as a subprotocol.
    const token = pageToken();
    ws = token ? new WebSocket(url, ["plandash.v1", "plandash.token." + token]) : new WebSocket(url);
    ws.onopen = () => { retry = 0; setState("live"); };
    ws.onmessage = receive;
    ws.onclose = () => {
      ws = null;
      setState("reconnecting");
      const wait = Math.max(Math.min(500 * 2 ** retry++, 5000), pausedUntil - Date.now());
      clearTimeout(timer);
      timer = setTimeout(connect, wait);
    };
  }

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
  };
}
