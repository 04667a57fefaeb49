// plandash-opencode-plugin: written by `plandash install opencode`; `plandash install opencode
// --uninstall` removes it. It shows this OpenCode's todo lists in plandash and holds plan_exit's
// "switch to the build agent?" question at plandash's gate: whoever answers first, a person in
// plandash or you in OpenCode, wins. It never blocks or breaks OpenCode: every failure is silent.
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { hostname } from "node:os";
import { isAbsolute, join } from "node:path";

const CONFIG = {}; // plandash:config (server, tokenFile, hook, planQuestion), filled in at install time

// Events plandash reads; session.diff carries whole file diffs plandash has no use for.
const FORWARD = /^(todo\.updated|session\.|question\.|permission\.)/;
const SKIP = new Set(["session.diff"]);
// Events that wait for a person: plandash answers when it holds them, at once otherwise.
const ASK = new Set(["question.asked", "permission.asked"]);
const ANSWERED = new Set(["question.replied", "question.rejected", "permission.replied"]);
// Only replies to OpenCode's own question and permission requests are ever sent on plandash's word.
const REPLY_PATH = /^\/(question|permission)\/[A-Za-z0-9_-]+\/(reply|reject)$/;
const POST_TIMEOUT_MS = 3000;
// plan_exit's question names the plan file (packages/opencode/src/tool/plan.ts).
const PLAN_AT = /^Plan at (.+) is complete\. Would you like to switch to the build agent/;
const MAX_PLAN = 512 * 1024;
const MAX_QUEUE = 256;
// A fork's plan hand-off question may reach no plugin (Kilo 7.7 asks it on its own event
// stream only): the plugin then looks for it on the agent's server after plan_exit, every
// POLL_MS for up to POLL_FOR_MS, and afterwards until it is answered.
const POLL_MS = 500;
const POLL_FOR_MS = 120000;

function target() {
  const env = (globalThis.process && process.env) || {};
  const server = String(CONFIG.server || env.PLANDASH_SERVER || "http://127.0.0.1:7420").replace(/\/+$/, "");
  let token = env.PLANDASH_TOKEN || "";
  if (!token && CONFIG.tokenFile) {
    try {
      token = readFileSync(CONFIG.tokenFile, "utf8").trim();
    } catch {}
  }
  // An OpenCode fork (Kilo Code's CLI) posts to its own route.
  return { url: server + "/api/v1/hooks/" + (CONFIG.hook || "opencode"), token };
}

// post sends one event and returns plandash's answer (null when there is none).
async function post(body, signal) {
  const { url, token } = target();
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  // timeout:false lifts Bun's default fetch timeout: a held question may wait for hours.
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal, timeout: false });
  const text = await res.text();
  if (!res.ok || !text) return null;
  return JSON.parse(text);
}

// planName is the plan file a plan hand-off question is about: the one plan_exit's question
// names (OpenCode), or for a fork whose question names none (Kilo's "Ready to implement?",
// CONFIG.planQuestion), the one the session's last plan_exit call reported (planFiles).
function planName(props, planFiles) {
  const qs = props && props.questions;
  if (!Array.isArray(qs) || qs.length !== 1 || typeof qs[0].question !== "string") return null;
  const m = PLAN_AT.exec(qs[0].question);
  if (m) return m[1].trim();
  if (CONFIG.planQuestion && qs[0].question === CONFIG.planQuestion) return planFiles.get(props.sessionID) || null;
  return null;
}

// readPlan reads the plan file of a plan hand-off question, here where the file is OpenCode's
// own, so plandash shows the plan without reading any file an event names. It never waits on a
// FIFO (O_NONBLOCK, regular files only) and reads at most MAX_PLAN bytes; null when unreadable.
function readPlan(props, base, planFiles) {
  const name = planName(props, planFiles);
  if (!name) return null;
  const file = isAbsolute(name) ? name : join(base || "/", name);
  if (!file.toLowerCase().endsWith(".md")) return null;
  let fd = -1;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK || 0));
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const buf = Buffer.alloc(Math.min(st.size, MAX_PLAN));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return { plan: buf.subarray(0, n).toString("utf8"), planPath: file };
  } catch {
    return null;
  } finally {
    if (fd >= 0) {
      try {
        closeSync(fd);
      } catch {}
    }
  }
}

// answerOpenCode sends plandash's answer through the plugin's client, which reaches OpenCode's
// server in-process even when the TUI listens on no port.
async function answerOpenCode(client, serverUrl, answer) {
  const r = answer && answer.reply;
  if (!r || typeof r.path !== "string" || !REPLY_PATH.test(r.path)) return;
  const body = r.body || {};
  const raw = client && client._client;
  if (raw && typeof raw.post === "function") {
    await raw.post({ url: r.path, body, headers: { "Content-Type": "application/json" } });
    return;
  }
  if (serverUrl) {
    await fetch(new URL(r.path, serverUrl), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  }
}

export const PlandashPlugin = async ({ client, directory, worktree, serverUrl }) => {
  let host = "";
  try {
    host = hostname();
  } catch {}
  const waiting = new Map(); // OpenCode request id → the AbortController of its held post
  const planFiles = new Map(); // session id → the plan file its last plan_exit call reported
  let queue = Promise.resolve(); // posts go one at a time, so plandash sees events in order
  let queued = 0;

  function enqueue(fn) {
    if (queued >= MAX_QUEUE) return queue; // plandash is unreachable: drop rather than pile up
    queued++;
    queue = queue.then(fn).catch(() => {}).finally(() => queued--);
    return queue;
  }

  function forward(event) {
    const body = { type: event.type, properties: event.properties, directory, host };
    if (event.type === "question.asked") {
      // OpenCode names the plan relative to the worktree ("/" outside git).
      const plan = readPlan(event.properties, worktree || directory, planFiles);
      if (plan) Object.assign(body, plan);
    }
    if (ASK.has(event.type)) {
      const id = event.properties && event.properties.id;
      const ctl = new AbortController();
      if (id) waiting.set(id, ctl);
      // Held beside the queue, so later events (OpenCode's own answer) still get through.
      enqueue(async () => {
        post(body, ctl.signal)
          .then((answer) => (ctl.signal.aborted ? null : answerOpenCode(client, serverUrl, answer)))
          .catch(() => {})
          .finally(() => id && waiting.delete(id));
      });
      return;
    }
    enqueue(() => post(body, AbortSignal.timeout(POST_TIMEOUT_MS))).then(() => {
      // Answered in OpenCode: plandash has heard (and closed its request); stop waiting.
      const id = ANSWERED.has(event.type) && event.properties && event.properties.requestID;
      const ctl = id && waiting.get(id);
      if (ctl) ctl.abort();
    });
  }

  // notePlanExit remembers the plan file a finished plan_exit call reported (Kilo's
  // state.metadata.plan, or its path argument), for the hand-off question that follows it.
  function notePlanExit(props) {
    const part = props && props.part;
    if (!part || part.tool !== "plan_exit" || !part.state || part.state.status !== "completed") return;
    const file = (part.state.metadata && part.state.metadata.plan) || (part.state.input && part.state.input.path);
    if (typeof file !== "string" || !part.sessionID) return;
    if (planFiles.size >= MAX_QUEUE) planFiles.clear();
    planFiles.set(part.sessionID, file);
    if (CONFIG.planQuestion) watchPlanQuestion(part.sessionID);
  }

  // pendingQuestions lists the questions the agent's server waits on (GET /question).
  async function pendingQuestions() {
    const raw = client && client._client;
    if (!raw || typeof raw.get !== "function") return [];
    const res = await raw.get({ url: "/question" });
    const list = res && (res.data !== undefined ? res.data : res);
    return Array.isArray(list) ? list : [];
  }

  const seenQuestions = new Set(); // ids of hand-off questions already forwarded
  // watchPlanQuestion forwards the session's plan hand-off question once the server asks it,
  // as the question.asked event it would have been, and once it is answered (by anyone) the
  // question.replied event, so plandash closes its request.
  async function watchPlanQuestion(sessionID) {
    let found = null;
    for (const end = Date.now() + POLL_FOR_MS; !found && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      try {
        found = (await pendingQuestions()).find((q) => q && q.sessionID === sessionID && !seenQuestions.has(q.id) &&
          Array.isArray(q.questions) && q.questions.length === 1 && q.questions[0].question === CONFIG.planQuestion);
      } catch {}
    }
    if (!found) return;
    if (seenQuestions.size >= MAX_QUEUE) seenQuestions.clear();
    seenQuestions.add(found.id);
    forward({ type: "question.asked", properties: found });
    for (;;) {
      await new Promise((r) => setTimeout(r, POLL_MS * 4));
      let open = true;
      try {
        open = (await pendingQuestions()).some((q) => q && q.id === found.id);
      } catch {}
      if (!open) break;
    }
    forward({ type: "question.replied", properties: { sessionID, requestID: found.id } });
  }

  return {
    // OpenCode calls this without awaiting it: it must neither throw nor reject.
    event: ({ event }) => {
      try {
        if (event && event.type === "message.part.updated") notePlanExit(event.properties);
        if (event && typeof event.type === "string" && FORWARD.test(event.type) && !SKIP.has(event.type)) forward(event);
      } catch {}
    },
  };
};
