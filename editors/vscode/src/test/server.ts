// A small HTTP server that speaks the waits contract (GET /api/v1/waits with its long poll, POST
// /api/v1/waits/{id}/answer), so the client and the watcher are tested over real HTTP. The real
// plandash server is exercised by e2e/vscode_test.go.
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { Wait } from "../api";

/** WaitsServer holds a list; tests add and end waits, and long polls answer as they change. */
export class WaitsServer {
  seq = 1;
  waits: Wait[] = [];
  ended = new Map<string, string>();
  answers: { id: string; action: string }[] = [];
  token = "t0k";
  private polls: (() => void)[] = [];
  private server = http.createServer((req, res) => this.handle(req, res));

  /** listen starts serving on port (0: any free one) and returns the base URL. */
  async listen(port = 0): Promise<string> {
    await new Promise<void>((r) => this.server.listen(port, "127.0.0.1", r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.polls.forEach((p) => p());
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  add(w: Wait): void {
    this.waits.push(w);
    this.bump();
  }

  end(id: string, outcome: string): void {
    this.waits = this.waits.filter((w) => w.id !== id);
    this.ended.set(id, outcome);
    this.bump();
  }

  private bump(): void {
    this.seq++;
    const p = this.polls;
    this.polls = [];
    p.forEach((f) => f());
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const json = (code: number, v: unknown) => {
      res.writeHead(code, { "Content-Type": "application/json" });
      res.end(JSON.stringify(v));
    };
    if (req.headers.authorization !== `Bearer ${this.token}`) return json(401, { title: "Unauthorized", detail: "wrong token" });
    const u = new URL(req.url || "/", "http://x");
    if (req.method === "GET" && u.pathname === "/api/v1/waits") {
      const after = u.searchParams.get("after");
      const reply = () => json(200, { seq: this.seq, waits: this.waits });
      if (after === null || Number(after) < this.seq) return reply();
      const timer = setTimeout(reply, 30000);
      this.polls.push(() => {
        clearTimeout(timer);
        reply();
      });
      return;
    }
    const m = /^\/api\/v1\/waits\/([^/]+)\/answer$/.exec(u.pathname);
    if (req.method === "POST" && m) {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const id = decodeURIComponent(m[1]);
        const { action } = JSON.parse(body) as { action: string };
        const w = this.waits.find((x) => x.id === id);
        if (!w) return json(409, { error: "already ended", outcome: this.ended.get(id) || "gone" });
        this.answers.push({ id, action });
        this.end(id, `${action}d by you`);
        json(200, { wait: w, outcome: `${action}d` });
      });
      return;
    }
    json(404, { title: "Not Found" });
  }
}

/** wait is a plan wait with the given id and directory. */
export function makeWait(id: string, cwd = "/w"): Wait {
  return { id, kind: "plan", title: "Plan " + id, detail: "do it", fits: true, sessionId: "s-" + id, agent: "claude", agentName: "Claude Code",
    cwd, since: new Date().toISOString(), answerable: true, url: "/approvals/" + id,
    actions: [{ id: "approve", label: "Approve" }, { id: "reject", label: "Reject" }] };
}
