// plandash-pi-extension: written by `plandash install pi`; `plandash install pi --uninstall`
// removes it. Pi has no todo list and no plan mode of its own, so this extension gives the model
// three tools: todo_write (its checklist, shown live in plandash), submit_plan (a plan held at
// plandash's gate until a person approves, edits or rejects it) and ask_user (a question a
// person answers in plandash, or here when plandash has no answer). It also tells plandash when
// a session starts, a prompt begins and a turn ends. Failures never break Pi: a capture that
// cannot be sent is dropped, and a plan or question plandash cannot answer is asked here.
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { hostname } from "node:os";
import { Type } from "typebox";

const CONFIG: { server?: string; tokenFile?: string } = {}; // plandash:config

const POST_TIMEOUT_MS = 3000;
const MAX_TEXT = 64 * 1024;
const MAX_QUEUE = 256;
const MAX_ANSWER = 1024 * 1024;

function target() {
  const env = process.env;
  const server = String(CONFIG.server || env.PLANDASH_SERVER || "http://127.0.0.1:7420").replace(/\/+$/, "");
  let token = env.PLANDASH_TOKEN || "";
  if (!token && CONFIG.tokenFile) {
    try {
      token = readFileSync(CONFIG.tokenFile, "utf8").trim();
    } catch {}
  }
  return { url: server + "/api/v1/hooks/pi", token };
}

// post sends one event and returns plandash's answer: an object, or null when there is none.
// It uses node:http, not fetch: fetch gives up on an answer after five minutes, and a plan may
// wait at the gate for hours. timeoutMs 0 waits as long as the person takes.
function post(body: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<any> {
  const { url, token } = target();
  const data = Buffer.from(JSON.stringify(body));
  const headers: Record<string, string | number> = { "Content-Type": "application/json", "Content-Length": data.length };
  if (token) headers.Authorization = "Bearer " + token;
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = (u.protocol === "https:" ? httpsRequest : httpRequest)(u, { method: "POST", headers, signal }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size <= MAX_ANSWER) chunks.push(c);
      });
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8").trim();
        if ((res.statusCode || 0) >= 300) return reject(new Error(`plandash answered ${res.statusCode}: ${text.slice(0, 200)}`));
        if (size > MAX_ANSWER) return reject(new Error("plandash's answer is too large"));
        try {
          resolve(text ? JSON.parse(text) : null);
        } catch (e) {
          reject(e);
        }
      });
      res.on("error", reject);
    });
    if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy(new Error("plandash did not answer in time")));
    req.on("error", reject);
    req.end(data);
  });
}

function cut(s: unknown): string {
  const t = typeof s === "string" ? s : "";
  return t.length > MAX_TEXT ? t.slice(0, MAX_TEXT) + "…" : t;
}

// lastText is the text of the turn's last assistant message.
function lastText(messages: any[]): string {
  for (let i = (messages || []).length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m && m.role === "assistant" && Array.isArray(m.content)) {
      return m.content.filter((c: any) => c && c.type === "text").map((c: any) => c.text).join("\n");
    }
  }
  return "";
}

export default function plandash(pi: ExtensionAPI) {
  let host = "";
  try {
    host = hostname();
  } catch {}
  let queue: Promise<unknown> = Promise.resolve();
  let queued = 0;

  function where(ctx: ExtensionContext) {
    const sm: any = ctx.sessionManager;
    return { sessionId: sm.getSessionId(), sessionFile: sm.getSessionFile() || "", cwd: ctx.cwd, host };
  }

  // capture posts an event nobody waits on, in order, dropping it when plandash is unreachable.
  function capture(ctx: ExtensionContext, type: string, extra: Record<string, unknown> = {}) {
    if (queued >= MAX_QUEUE) return queue;
    const body = { type, ...where(ctx), ...extra };
    queued++;
    queue = queue
      .then(() => post(body, POST_TIMEOUT_MS))
      .catch(() => {})
      .finally(() => queued--);
    return queue;
  }

  // hold posts an event a person answers, after the captures before it, and returns the answer
  // (null when plandash gave none).
  async function hold(ctx: ExtensionContext, type: string, extra: Record<string, unknown>, signal?: AbortSignal) {
    await queue.catch(() => {});
    try {
      return await post({ type, ...where(ctx), ...extra }, 0, signal);
    } catch {
      return null;
    }
  }

  pi.on("session_start", async (event: any, ctx) => {
    capture(ctx, "session_start", { reason: event && event.reason });
  });
  pi.on("before_agent_start", async (event: any, ctx) => {
    capture(ctx, "prompt", { prompt: cut(event && event.prompt) });
  });
  pi.on("agent_end", async (event: any, ctx) => {
    capture(ctx, "agent_end", { text: cut(lastText(event && event.messages)) });
  });
  pi.on("session_shutdown", async (_event, ctx) => {
    await capture(ctx, "session_shutdown");
  });

  pi.registerTool({
    name: "todo_write",
    label: "Todo list",
    description:
      "Write your todo list for the task. Each call replaces the whole list. Use it for any task of several steps: " +
      "list the steps, keep exactly one in_progress while you work on it, and mark each completed as soon as it is done.",
    parameters: Type.Object({
      todos: Type.Array(
        Type.Object({
          content: Type.String({ description: "What the step does" }),
          status: Type.String({ description: "pending, in_progress or completed" }),
        }),
      ),
    }),
    async execute(_id, params: any, _signal, _onUpdate, ctx) {
      const todos = Array.isArray(params.todos) ? params.todos : [];
      await capture(ctx, "todos", { todos });
      const done = todos.filter((t: any) => t && t.status === "completed").length;
      return { content: [{ type: "text", text: `Todo list saved (${done}/${todos.length} completed).` }], details: { todos } };
    },
  });

  pi.registerTool({
    name: "submit_plan",
    label: "Submit plan",
    description:
      "Submit your plan for the user's approval before you change anything. Pass the whole plan as Markdown. " +
      "Wait for the answer: implement only an approved plan; when it is rejected or edited, revise it as the answer says and submit again.",
    parameters: Type.Object({ plan: Type.String({ description: "The plan, in Markdown" }) }),
    async execute(id, params: any, signal, _onUpdate, ctx) {
      const plan = cut(params.plan);
      const answer = await hold(ctx, "plan", { callId: id, plan }, signal);
      const decision = answer && typeof answer.decision === "string" ? answer.decision : "";
      const message = answer && typeof answer.message === "string" ? answer.message : "";
      if (decision === "approved") return { content: [{ type: "text", text: message || "The user approved the plan. Implement it now." }], details: { decision } };
      if (decision === "rejected") throw new Error(message || "The user rejected the plan.");
      // No decision from plandash (unreachable, or nobody decided in time): ask here.
      if (ctx.hasUI) {
        const choice = await ctx.ui.select("Approve this plan? (plandash had no decision)", ["Approve", "Reject"]);
        if (choice === "Approve") return { content: [{ type: "text", text: "The user approved the plan. Implement it now." }], details: { decision: "approved" } };
      }
      throw new Error(message || "Nobody approved the plan. Do not implement it; ask the user how to proceed.");
    },
  });

  pi.registerTool({
    name: "ask_user",
    label: "Ask the user",
    description: "Ask the user a question and wait for the answer. Offer options when the choices are known.",
    parameters: Type.Object({
      question: Type.String(),
      options: Type.Optional(Type.Array(Type.String())),
    }),
    async execute(id, params: any, signal, _onUpdate, ctx) {
      const question = cut(params.question);
      const options = Array.isArray(params.options) ? params.options.filter((o: unknown) => typeof o === "string") : [];
      const answer = await hold(ctx, "question", { callId: id, question, options }, signal);
      const got = answer && Array.isArray(answer.answers) ? answer.answers.filter((a: unknown) => typeof a === "string") : [];
      if (got.length > 0) return { content: [{ type: "text", text: "The user answered: " + got.join(", ") }], details: { answers: got } };
      if (ctx.hasUI) {
        const a = options.length > 0 ? await ctx.ui.select(question, options) : await ctx.ui.input(question, "");
        if (a) {
          capture(ctx, "answered", { callId: id, answers: [a] });
          return { content: [{ type: "text", text: "The user answered: " + a }], details: { answers: [a] } };
        }
      }
      throw new Error("The user did not answer.");
    },
  });
}
