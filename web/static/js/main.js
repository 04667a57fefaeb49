// The page script of every plandash page: it builds each part once and hands it what it needs.
// Each shared thing has one owner: socket.js the live socket and #conn, swap.js the fragments'
// way into the page, pending.js the pending count, title.js document.title, favicon.js the
// icon. The others hear of changes through the owners' hooks, never by watching the DOM; a
// module that puts HTML on the page itself (the inbox's plans, the overview's held sessions)
// dispatches dag.js's INSERTED event on it.
import { createSocket } from "./socket.js";
import { createSwap } from "./swap.js";
import { createPending } from "./pending.js";
import { startTitle } from "./title.js";
import { startFavicon } from "./favicon.js";
import { startNotify } from "./notify.js";
import { startTimes } from "./times.js";
import { startCountdown } from "./countdown.js";
import { startKeys } from "./keys.js";
import { startGate } from "./gate.js";
import { startEditor } from "./editor.js";
import { startEdits } from "./edits.js";
import { startReview } from "./review.js";
import { startInbox } from "./inbox.js";
import { startShared } from "./shared.js";
import { startDag } from "./dag.js";
import { startEmbed, embedScope } from "./embed.js";
import { startOverview } from "./overview.js";
import { startPush } from "./push.js";

const body = document.body;
const topic = body.dataset.topic || "";
const gatePage = /^approvals?(:|$)/.test(topic);

const socket = createSocket({ topic, since: Number(body.dataset.seq || 0), conn: document.getElementById("conn"), countOnly: body.dataset.live === "count" });
// First hook: every later one sees the page with the fragment already in it. The overview holds
// new sessions back (it announces them) instead of inserting them under the reader's eyes.
let hold = null;
socket.onFragment(createSwap((f, el, old) => hold !== null && hold(f, el, old)));
// Document listeners run in the order they are added: the diagram's first, so a focused node
// takes its Enter before the gate's shortcuts look at it.
startDag(socket);
hold = startOverview(socket) || embedScope();
const pending = createPending(socket);

if (body.classList.contains("embed")) startEmbed({ socket, pending });
startTitle({ socket, pending });
startFavicon(pending);
startNotify(pending, gatePage);
startTimes();
if (gatePage) startCountdown();
startShared(socket);
startGate();
startKeys(gatePage);
startEditor();
startEdits();
startReview();
startInbox();
startPush();

// window.plandash.disconnect(ms), .resume() and .seq() let a test (or a curious person) see how the page
// behaves on a flaky network without breaking the network.
window.plandash = { disconnect: socket.disconnect, resume: socket.resume, seq: socket.seq, times: socket.times };
socket.start();
