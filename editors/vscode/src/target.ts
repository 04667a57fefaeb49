// Where the dashboard is and which token it takes: the same order `plandash url` follows
// (internal/client/resolve.go), so the extension finds whatever the command line finds. This file
// imports nothing from VS Code, so node's test runner checks it directly.
import * as path from "node:path";

/** The default address of `plandash serve`. */
export const DEFAULT_SERVER = "http://127.0.0.1:7420";

/** A dashboard to talk to: its base URL (no trailing slash) and its token. */
export interface Target {
  server: string;
  token: string;
  /** Where the server and the token were found, in words, for messages. */
  source: string;
}

/** What resolving needs from the outside world, so tests hand in their own. */
export interface Env {
  getenv(name: string): string | undefined;
  readFile(file: string): string | undefined;
}

/** The settings and the stored secret that bear on the target. */
export interface Settings {
  /** plandash.server: empty for the local dashboard. */
  server: string;
  /** plandash.dataDir: empty for the default. */
  dataDir: string;
  /** The token kept in SecretStorage for `server`, when one is configured. */
  secretToken?: string;
}

/** The local dashboard's data directory, as DefaultDataDir in internal/client computes it. */
export function dataDir(env: Env, configured: string): string {
  if (configured) return configured;
  const xdg = env.getenv("XDG_DATA_HOME");
  if (xdg) return path.join(xdg, "plandash");
  const home = env.getenv("HOME") || env.getenv("USERPROFILE");
  if (home) return path.join(home, ".local", "share", "plandash");
  return ".plandash";
}

/**
 * The address a running server recorded in its data directory, or "" when there is none or it is
 * not an http(s) URL: the file is outside input, and a stray edit must not send the token to
 * something that is not a plandash server's scheme (ReadAddr in internal/client does the same).
 */
export function readAddr(env: Env, dir: string): string {
  const raw = env.readFile(path.join(dir, "addr"));
  if (raw === undefined || raw.length > 512) return "";
  const s = raw.trim();
  return isHttpURL(s) ? s : "";
}

/** isHttpURL says s is an absolute http:// or https:// URL with a host. */
export function isHttpURL(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.host !== "";
  } catch {
    return false;
  }
}

/**
 * resolveTarget decides the server and token. A configured server URL takes its token from secret
 * storage (never from settings.json); the local dashboard is $PLANDASH_SERVER, else the data
 * directory's addr file, else the default address, with $PLANDASH_TOKEN, else the data directory's
 * token file. The token is "" when none was found: the caller says so.
 */
export function resolveTarget(env: Env, s: Settings): Target {
  if (s.server.trim()) {
    return { server: trimSlash(s.server.trim()), token: s.secretToken || "", source: "the plandash.server setting" };
  }
  const dir = dataDir(env, s.dataDir);
  let server = env.getenv("PLANDASH_SERVER") || "";
  let source = "$PLANDASH_SERVER";
  if (!server) {
    server = readAddr(env, dir);
    source = `the address recorded in ${dir}`;
  }
  if (!server) {
    server = DEFAULT_SERVER;
    source = "the default address";
  }
  let token = env.getenv("PLANDASH_TOKEN") || "";
  if (!token) token = (env.readFile(path.join(dir, "token")) || "").trim();
  return { server: trimSlash(server), token, source };
}

function trimSlash(s: string): string {
  return s.replace(/\/+$/, "");
}

/** Where the extension runs, as far as the panel's address is concerned. */
export interface Host {
  /** vscode.env.remoteName: "ssh-remote", "dev-container", "wsl", …; undefined in a local window. */
  remoteName?: string;
  /** vscode.env.uiKind is Desktop (the window is desktop VS Code or a fork, not a browser). */
  desktop: boolean;
}

/** isLoopback says the URL's host is this machine's loopback address. */
export function isLoopback(server: string): boolean {
  try {
    const h = new URL(server).hostname;
    return h === "localhost" || h === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(h);
  } catch {
    return false;
  }
}

/**
 * viewServer is the address the panel's page loads plandash from, for a server the extension
 * reaches at server. In a remote window of desktop VS Code the extension runs on the remote
 * machine and the page on the laptop: a loopback address of the remote machine is forwarded with
 * asExternal (vscode.env.asExternalUri), which says where it landed on the laptop. A local window
 * needs nothing (asExternalUri would change nothing there), nor does another host name, which
 * the laptop resolves itself. In a browser (code-server) the page loads the address as it is:
 * code-server's asExternalUri would send it through its /proxy/PORT/ path, where plandash's
 * pages, which use absolute paths, do not load.
 */
export async function viewServer(server: string, host: Host, asExternal: (url: string) => Promise<string>): Promise<string> {
  if (!host.remoteName || !host.desktop || !isLoopback(server)) return server;
  return trimSlash(await asExternal(server));
}

/**
 * mixedContent says the panel's page in desktop VS Code (a secure vscode-webview:// origin) may
 * not load server: plain http is allowed only from a loopback address.
 */
export function mixedContent(server: string, desktop: boolean): boolean {
  return desktop && server.startsWith("http:") && !isLoopback(server);
}
