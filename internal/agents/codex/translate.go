package codex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Names Codex sessions carry in plandash.
const (
	// SessionPrefix starts every plandash session id that comes from Codex; the rest is Codex's
	// thread id, so ids of other agents never collide with it.
	SessionPrefix = "codex:"
	AgentName     = "codex"
	AgentTitle    = "Codex"
)

// Plan ids of the plans a Codex session shows.
const (
	PlanItems    = "plan"     // update_plan's checklist, replaced whole by each call
	PlanProposed = "proposed" // plan mode's <proposed_plan> markdown
	// PlanGoal ("goal", goal.go) is the thread's goal (create_goal, update_goal).
)

// SessionKey is the plandash session id of a Codex thread.
func SessionKey(threadID string) string { return SessionPrefix + threadID }

// Bounds on what one line puts into activity and tool calls.
const (
	maxText     = 16 << 10
	maxToolJSON = 16 << 10
	maxRaw      = 32 << 10
	maxPlanIDs  = 1024
)

// Translator turns the lines of one rollout file, in order, into ACP JSON-RPC messages for
// plans.Service.Apply. It remembers what later lines need: the thread id and cwd, which calls
// were update_plan (their outputs are not tool results), and the last proposed plan (plan mode
// writes it twice). It is not safe for concurrent use; use one per file.
type Translator struct {
	host, path string
	threadID   string
	cwd        string
	model      string // the model of the newest turn, for usage
	announced  bool
	planCalls  map[string]bool
	goalCalls  map[string]bool // calls of the goal tools, whose outputs are the goal
	proposed   string
	prompt     string
}

// NewTranslator starts translating the rollout file at path (recorded with the session; may be
// empty). host names the machine Codex runs on.
func NewTranslator(path, host string) *Translator {
	return &Translator{host: host, path: path, threadID: ThreadIDFromPath(path), planCalls: map[string]bool{}, goalCalls: map[string]bool{}}
}

// Resume restores what a Translator learned from the lines before offset, for a file read again
// from the middle after a restart: the thread id (when not empty) and cwd.
func (t *Translator) Resume(threadID, cwd string) {
	if threadID != "" {
		t.threadID = threadID
	}
	t.cwd = cwd
}

// ThreadID is Codex's id of the thread, from session_meta or the file name ("" until known).
func (t *Translator) ThreadID() string { return t.threadID }

// Cwd is the session's working directory as last reported.
func (t *Translator) Cwd() string { return t.cwd }

// Translate returns the ACP messages for lines as one batch, to be applied on a fresh stream:
// an initialize exchange naming Codex, session/new when the session was not announced yet by
// this Translator (or its cwd changed), then the updates. It returns nil when the lines carry
// nothing to show, or while the thread id is unknown.
func (t *Translator) Translate(lines []Line) []json.RawMessage {
	b := &batch{t: t}
	for _, l := range lines {
		b.line(l)
	}
	if len(b.updates) == 0 && (t.announced || t.threadID == "") {
		return nil
	}
	if t.threadID == "" {
		return nil
	}
	head := &batch{t: t}
	head.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"plan": map[string]any{}},
		"clientInfo": map[string]any{"name": "plandash-codex"}},
		map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": AgentName, "title": AgentTitle}})
	if !t.announced {
		meta := map[string]any{"host": t.host, "agentSessionId": t.threadID}
		if t.path != "" {
			meta["via"] = plans.ViaTranscript
			meta["rolloutPath"] = t.path
		}
		head.request("session/new", map[string]any{"cwd": t.cwd, "mcpServers": []any{}, "_meta": map[string]any{"plandash": meta}},
			map[string]any{"sessionId": SessionKey(t.threadID)})
		t.announced = true
	}
	// Requests inside the batch take ids after the head's.
	out := head.out
	for _, u := range b.updates {
		out = append(out, u.render(head, SessionKey(t.threadID)))
	}
	return out
}

// pending is one message of a batch, rendered once the session id is known (a session_meta
// line may come after lines that were held).
type pending struct {
	method string
	params map[string]any // session/update's update, or a request's params
}

func (p pending) render(b *batch, sid string) json.RawMessage {
	if p.method == "session/update" {
		return marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update",
			"params": map[string]any{"sessionId": sid, "update": p.params}})
	}
	b.n++
	p.params["sessionId"] = sid
	return marshal(map[string]any{"jsonrpc": "2.0", "id": "codex-" + strconv.Itoa(b.n), "method": p.method, "params": p.params})
}

// batch builds the messages of one Translate call.
type batch struct {
	t       *Translator
	n       int
	out     []json.RawMessage
	updates []pending
}

func marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil // only plain maps, strings and valid raw JSON go in
	}
	return b
}

// request adds a request and, when result is not nil, its response; ids need only be unique
// within the batch, which is applied on a stream of its own.
func (b *batch) request(method string, params, result any) {
	b.n++
	id := "codex-" + strconv.Itoa(b.n)
	b.out = append(b.out, marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
	if result != nil {
		b.out = append(b.out, marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result}))
	}
}

func (b *batch) update(u map[string]any) { b.updates = append(b.updates, pending{"session/update", u}) }

func (b *batch) prompt(text string) {
	text = strings.TrimSpace(text)
	if text == "" || text == b.t.prompt {
		return // the same prompt recorded by two event kinds
	}
	b.t.prompt = text
	b.updates = append(b.updates, pending{"session/prompt", map[string]any{
		"prompt": []any{map[string]any{"type": "text", "text": hookkit.Truncate(text, maxText)}}}})
}

func (b *batch) chunk(kind, id, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	b.update(map[string]any{"sessionUpdate": kind, "messageId": id,
		"content": map[string]any{"type": "text", "text": hookkit.Truncate(text, maxText)}})
}

// raw keeps a line plandash does not interpret, bounded, as an extension update.
func (b *batch) raw(kind string, l Line) {
	b.update(map[string]any{"sessionUpdate": "_codex_rollout", "rolloutType": l.Type, "payloadType": kind,
		"payload": bounded(l.Payload, maxRaw)})
}

// line translates one rollout line.
func (b *batch) line(l Line) {
	switch l.Type {
	case TypeSessionMeta:
		var p struct {
			ID        string `json:"id"`
			SessionID string `json:"session_id"`
			Cwd       string `json:"cwd"`
		}
		_ = json.Unmarshal(l.Payload, &p)
		id := p.ID
		if id == "" {
			id = p.SessionID
		}
		if id != "" && id != b.t.threadID {
			b.t.threadID, b.t.announced = id, false
		}
		b.setCwd(p.Cwd)
	case TypeTurnContext:
		var p struct {
			Cwd   string `json:"cwd"`
			Model string `json:"model"`
		}
		_ = json.Unmarshal(l.Payload, &p)
		b.setCwd(p.Cwd)
		if len(p.Model) <= 128 {
			b.t.model = p.Model
		}
	case TypeResponseItem:
		b.responseItem(l)
	case TypeEventMsg:
		b.eventMsg(l)
	case TypeCompacted:
		b.update(map[string]any{"sessionUpdate": "_codex_turn", "event": "compacted"})
	}
}

// setCwd records a new cwd; a change re-announces the session so its page shows it.
func (b *batch) setCwd(cwd string) {
	if cwd != "" && cwd != b.t.cwd {
		b.t.cwd, b.t.announced = cwd, false
	}
}

// lineID names a line's activity when Codex gave it no id: the same line always gets the same
// id, and two lines do not share one (activity merges chunks that share an id).
func lineID(l Line) string {
	h := sha256.Sum256(append([]byte(l.Timestamp), l.Payload...))
	return "codex-" + hex.EncodeToString(h[:6])
}

// bounded returns v when it is at most max bytes, else a small object saying what was cut.
func bounded(v json.RawMessage, max int) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	if len(v) <= max && json.Valid(v) {
		return v
	}
	return marshal(map[string]any{"truncated": true, "bytes": len(v), "preview": hookkit.Truncate(string(v), max/2)})
}
