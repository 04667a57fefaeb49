// Package plans is plandash's domain: sessions, their plans with full revision history, tool
// calls and activity, and the rules that turn decoded ACP updates into stored state.
package plans

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// Kind says how a plan is shown.
type Kind string

// Plan kinds. Custom is any plan type plandash does not draw specially; it is kept whole.
const (
	KindItems    Kind = "items"
	KindMarkdown Kind = "markdown"
	KindFile     Kind = "file"
	KindDAG      Kind = "dag"
	KindCustom   Kind = "custom"
)

// Entry statuses plandash counts. Anything else (custom "_…") is counted as Other.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusCancelled  = "cancelled"
)

// Entry is one checklist item of an items plan.
type Entry struct {
	Content  string          `json:"content"`
	Priority string          `json:"priority"`
	Status   string          `json:"status"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// Equal reports whether e and f are the same entry, every field compared: revision history
// stores only the entries that are not Equal to the revision before, so a field left out here
// is lost from history. TestEntryFields holds it to the struct.
func (e Entry) Equal(f Entry) bool {
	return e.SameShown(f) && bytes.Equal(e.Meta, f.Meta)
}

// SameShown reports whether e and f look the same to a person: every field but _meta, which
// is the agent's own and no page shows (nor the plan editor carries). A reviewer's comment on
// an entry is addressed, and an edited plan differs, only by what SameShown compares.
func (e Entry) SameShown(f Entry) bool {
	return e.Content == f.Content && e.Priority == f.Priority && e.Status == f.Status
}

// Plan is one plan of a session in its current (or a past) revision. An update replaces it whole.
type Plan struct {
	SessionID string          `json:"sessionId"`
	ID        string          `json:"id"`
	Kind      Kind            `json:"kind"`
	Type      string          `json:"type"` // the wire type as sent: items, markdown, file, _dag, …
	Revision  int             `json:"revision"`
	Created   time.Time       `json:"created"`
	Updated   time.Time       `json:"updated"`
	Removed   bool            `json:"removed,omitempty"`
	Agent     string          `json:"agent,omitempty"`
	Entries   []Entry         `json:"entries,omitempty"`
	Markdown  string          `json:"markdown,omitempty"`
	URI       string          `json:"uri,omitempty"`
	Raw       json.RawMessage `json:"raw,omitempty"` // custom and dag plans: the plan object as sent
	Meta      json.RawMessage `json:"_meta,omitempty"`
	Warnings  []string        `json:"warnings,omitempty"`
	Replayed  bool            `json:"replayed,omitempty"` // arrived while the agent replayed history
	Seq       uint64          `json:"seq"`
}

// Key is the plan's identity across sessions.
func (p Plan) Key() PlanKey { return PlanKey{p.SessionID, p.ID} }

// PlanKey identifies a plan.
type PlanKey struct{ SessionID, PlanID string }

// Progress counts a plan's entries by status.
type Progress struct {
	Total, Pending, InProgress, Completed, Cancelled, Other int
}

// Progress derives the counts from the entries; it is cheap enough not to be stored.
func (p Plan) Progress() Progress {
	var pr Progress
	for _, e := range p.Entries {
		pr.Total++
		switch e.Status {
		case StatusPending:
			pr.Pending++
		case StatusInProgress:
			pr.InProgress++
		case StatusCompleted:
			pr.Completed++
		case StatusCancelled:
			pr.Cancelled++
		default:
			pr.Other++
		}
	}
	return pr
}

// Percent is the share of entries that are finished (completed or cancelled), 0–100.
func (pr Progress) Percent() int {
	if pr.Total == 0 {
		return 0
	}
	return (pr.Completed + pr.Cancelled) * 100 / pr.Total
}

// InProgress reports whether the plan is being worked on: something started and not all done.
func (p Plan) InProgress() bool {
	pr := p.Progress()
	return pr.InProgress > 0 || (pr.Completed+pr.Cancelled > 0 && pr.Completed+pr.Cancelled < pr.Total)
}

// Title is a short human label for the plan: "Plan" for a session's v1 plan, otherwise its id
// made readable ("plan-mode" → "Plan mode"). A markdown plan's own heading is shown in its body.
func (p Plan) Title() string {
	if p.ID == "main" && p.Type == "items" {
		return "Plan"
	}
	t := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' {
			return ' '
		}
		return r
	}, p.ID)
	t = strings.TrimSpace(t)
	if t == "" {
		return p.ID
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// Session is one ACP session as plandash has seen it.
type Session struct {
	ID         string `json:"id"`
	Agent      string `json:"agent,omitempty"`
	AgentTitle string `json:"agentTitle,omitempty"`
	Cwd        string `json:"cwd,omitempty"`
	// Host is the machine the agent runs on, when that is not plandash's own machine.
	Host string `json:"host,omitempty"`
	// Source is the per-agent token that last reported on the session, "token:NAME" (see
	// WithSource); changes made with the server's own token leave it as it is.
	Source string `json:"source,omitempty"`
	// AgentSessionID is the agent's own id for the session (Claude Code's session_id, Codex's
	// thread id), when plandash's id is not it.
	AgentSessionID string `json:"agentSessionId,omitempty"`
	// Via lists how plandash heard of the session, in the order first heard (ViaHooks,
	// ViaTranscript…), as the adapter that announced it said; empty for ACP agents.
	Via []string `json:"via,omitempty"`
	// Usage is what the session costs, as the agent last reported it; nil when it reports
	// nothing.
	Usage     *Usage    `json:"usage,omitempty"`
	Title     string    `json:"title,omitempty"`
	Mode      string    `json:"mode,omitempty"`
	FirstSeen time.Time `json:"firstSeen"`
	LastSeen  time.Time `json:"lastSeen"`
	Ended     bool      `json:"ended,omitempty"`
	// Streaming is the kind of message chunk the agent's last update was ("" when it was
	// anything else): only a chunk right after one of its kind continues that message.
	Streaming string `json:"streaming,omitempty"`
	Seq       uint64 `json:"seq"`
}

// Ways plandash hears of a session (Session.Via).
const (
	ViaHooks      = "hooks"      // the agent's hooks post its events
	ViaTranscript = "transcript" // read from the agent's own transcript or session files
)

// maxVia bounds Session.Via: a few ways, not a list an adapter can grow.
const maxVia = 4

// Usage is a session's cost as its agent reports it: ACP's usage_update, or what an adapter
// read from the agent's own records. Zero fields were not reported; nothing is estimated.
type Usage struct {
	// Used is the tokens in the context window now; Size the window's size (0: not reported).
	Used int64 `json:"used,omitempty"`
	Size int64 `json:"size,omitempty"`
	// InputTokens and OutputTokens are the session's totals so far.
	InputTokens  int64 `json:"inputTokens,omitempty"`
	OutputTokens int64 `json:"outputTokens,omitempty"`
	// Model is the model the agent used last.
	Model string `json:"model,omitempty"`
	// Cost is the cumulative cost, when reported.
	Cost *Cost `json:"cost,omitempty"`
}

// Cost is an amount of money.
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// Fill is the share of the context window in use, 0 to 1, and whether it is known (the agent
// reported both the tokens in context and the window's size).
func (u Usage) Fill() (float64, bool) {
	if u.Size <= 0 || u.Used < 0 {
		return 0, false
	}
	return min(float64(u.Used)/float64(u.Size), 1), true
}

// Active reports whether the session still counts as live at now.
func (s Session) Active(now time.Time, idle time.Duration) bool {
	return !s.Ended && now.Sub(s.LastSeen) < idle
}

// Name is the best human label for the session's agent.
func (s Session) Name() string {
	switch {
	case s.AgentTitle != "":
		return s.AgentTitle
	case s.Agent != "":
		return s.Agent
	}
	return "Unknown agent"
}

// ToolCall is the merged state of one tool call.
type ToolCall struct {
	SessionID string          `json:"sessionId"`
	ID        string          `json:"id"`
	Title     string          `json:"title"`
	Kind      string          `json:"kind,omitempty"`
	Status    string          `json:"status"`
	Name      string          `json:"name,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	Locations json.RawMessage `json:"locations,omitempty"`
	RawInput  json.RawMessage `json:"rawInput,omitempty"`
	RawOutput json.RawMessage `json:"rawOutput,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
	Created   time.Time       `json:"created"`
	Updated   time.Time       `json:"updated"`
}

// Activity is one thing that happened in a session besides plans and tool calls: a message, a
// mode change, an update variant plandash does not know (kept raw).
type Activity struct {
	ID        int64           `json:"id"`
	SessionID string          `json:"sessionId"`
	At        time.Time       `json:"at"`
	Kind      string          `json:"kind"`
	MessageID string          `json:"messageId,omitempty"`
	Text      string          `json:"text,omitempty"`
	Raw       json.RawMessage `json:"raw,omitempty"`
}

// Revision is one stored version of a plan.
type Revision struct {
	Revision int       `json:"revision"`
	At       time.Time `json:"at"`
	Plan     Plan      `json:"plan"`
}

// SessionPlans is a session with its active plans, as the overview shows it: the newest first,
// perhaps only some of them (SessionFilter.PlansPer), and a tally of them all.
type SessionPlans struct {
	Session Session
	Plans   []Plan
	Tally   Tally
}

// Tally counts a session's active plans and their entries, the open ones (pending or in
// progress) apart: what the overview needs of the plans it does not show.
type Tally struct {
	Plans, Entries, Open int
}

func (t *Tally) count(p Plan) {
	t.Plans++
	t.Entries += len(p.Entries)
	t.Open += p.OpenEntries()
}

// Add appends p to the session's plans and counts it in the tally.
func (g *SessionPlans) Add(p Plan) {
	g.Plans = append(g.Plans, p)
	g.Tally.count(p)
}

// OpenEntries counts the entries still to do: pending or in progress.
func (p Plan) OpenEntries() int {
	n := 0
	for _, e := range p.Entries {
		if e.Status == StatusPending || e.Status == StatusInProgress {
			n++
		}
	}
	return n
}

// DAGSource is what a dag plan's graph is parsed from: the plan object of a "_dag" or "_graph"
// plan, or the "plandash" object in the _meta of an items plan that carries calls. generic is
// true for "_graph" plans (maps that may have cycles, not executable calls).
func (p Plan) DAGSource() (raw json.RawMessage, generic bool) {
	if p.Kind != KindDAG {
		return nil, false
	}
	if p.Type == "_dag" || p.Type == "_graph" {
		return p.Raw, p.Type == "_graph"
	}
	var m struct {
		Plandash json.RawMessage `json:"plandash"`
	}
	if json.Unmarshal(p.Meta, &m) != nil {
		return nil, false
	}
	return m.Plandash, false
}
