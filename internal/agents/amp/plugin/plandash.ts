// plandash-amp-plugin: written by `plandash install amp`; `plandash install amp --uninstall`
// removes it. It shows this Amp's todo lists and turns in plandash and, when the gate is on in
// plandash, holds the end of a turn that wrote a todo list until a person approved the plan
// there. It never blocks or breaks Amp: every failure is silent, and the turn goes on.
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'

const CONFIG: { server?: string; tokenFile?: string; gate?: boolean } = {} // plandash:config (server, tokenFile, gate), filled in at install time

export const description = 'Shows your Amp todo lists and turns in plandash, and holds a plan for approval there.'

const CAPTURE_TIMEOUT_MS = 3000
const MAX_MESSAGE = 16 * 1024

function target(): { url: string; token: string } {
	const env = (globalThis.process && process.env) || {}
	const server = String(CONFIG.server || env.PLANDASH_SERVER || 'http://127.0.0.1:7420').replace(/\/+$/, '')
	let token = env.PLANDASH_TOKEN || ''
	if (!token && CONFIG.tokenFile) {
		try {
			token = readFileSync(CONFIG.tokenFile, 'utf8').trim()
		} catch {}
	}
	return { url: server + '/api/v1/hooks/amp', token }
}

// post sends one event and returns plandash's answer (null when there is none or it failed).
// wait lifts the time limit: a held turn may wait for a person for hours.
async function post(body: Record<string, unknown>, wait: boolean): Promise<any> {
	const { url, token } = target()
	const headers: Record<string, string> = { 'Content-Type': 'application/json' }
	if (token) headers.Authorization = 'Bearer ' + token
	const payload = { ...body, cwd: workspace, plandash_host: hostname() }
	try {
		const res = await fetch(url, {
			method: 'POST',
			headers,
			body: JSON.stringify(payload),
			signal: wait ? undefined : AbortSignal.timeout(CAPTURE_TIMEOUT_MS),
			// Bun's own fetch timeout would end a held turn's wait.
			timeout: false,
		} as RequestInit)
		const text = await res.text()
		if (!res.ok || !text) return null
		return JSON.parse(text)
	} catch {
		return null
	}
}

function cut(s: unknown): string {
	const t = typeof s === 'string' ? s : ''
	return t.length > MAX_MESSAGE ? t.slice(0, MAX_MESSAGE) + '…' : t
}

// workspace is the directory Amp works in: its workspace root, else the shell's $PWD that Amp
// was started from (the plugin runtime's own working directory is the plugin's, and
// `amp plugins exec` gives no workspace root).
let workspace = (globalThis.process && process.env && process.env.PWD) || ''

export default function (amp: any) {
	try {
		const root = amp.system && amp.system.workspaceRoot
		if (root) workspace = amp.helpers.filePathFromURI(root)
	} catch {}
	amp.on('session.start', async (event: any) => {
		await post({ event: 'session.start', thread: event.thread }, false)
	})
	amp.on('agent.start', async (event: any) => {
		await post({ event: 'agent.start', thread: event.thread, id: event.id, message: cut(event.message) }, false)
		return {}
	})
	amp.on('tool.call', async (event: any) => {
		if (/todo/i.test(String(event.tool))) {
			await post({ event: 'tool.call', thread: event.thread, tool: event.tool, toolUseID: event.toolUseID, input: event.input }, false)
		}
		return { action: 'allow' }
	})
	amp.on('tool.result', async (event: any) => {
		if (/todo/i.test(String(event.tool))) {
			await post({ event: 'tool.result', thread: event.thread, tool: event.tool, toolUseID: event.toolUseID, input: event.input, status: event.status }, false)
		}
	})
	amp.on('agent.end', async (event: any) => {
		// The only answer plandash gives is a follow-up message (a plan sent back with feedback);
		// anything else ends the turn as Amp would.
		// Without the gate (plandash install amp, no --gate) plandash answers at once.
		const gate = CONFIG.gate === true
		const answer = await post({ event: 'agent.end', thread: event.thread, id: event.id, status: event.status, gate }, gate)
		if (answer && answer.action === 'continue' && typeof answer.userMessage === 'string' && answer.userMessage) {
			return { action: 'continue', userMessage: answer.userMessage }
		}
	})
}
