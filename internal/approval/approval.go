// Package approval is plandash's human gate: an agent submits a plan and waits; a person
// approves it, modifies it or rejects it; exactly one decision wins, a deadline applies a
// default outcome when nobody decides, and every step is written to an audit trail.
package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/plans"
)

// Action is what a person (or a deadline, or a rule) does with a request.
type Action string

// Actions.
const (
	Approve Action = "approve"
	Modify  Action = "modify"
	Reject  Action = "reject"
	// RequestChanges rejects the plan with a review: comments on its entries, lines or calls
	// that the agent reads to revise it. A request that allows Reject allows it.
	RequestChanges Action = "request_changes"
)

// Status is where a request stands.
type Status string

// Statuses. Every status but Pending and Elsewhere is final.
const (
	Pending Status = "pending"
	// Elsewhere: the agent's own dialog has the request (Request.Handover says how): the person
	// answered there, or nobody decided here before the deadline of a request whose agent then
	// decides by itself (Then). What was answered is not known yet. Nobody can decide it here
	// any more; the agent's adapter settles it (Gate.Settle) once an event shows the outcome.
	Elsewhere Status = "elsewhere"
	Approved  Status = "approved"
	Modified  Status = "modified"
	Rejected  Status = "rejected"
	// ChangesRequested is a rejection with a review: the agent revises the plan and submits it
	// again; the next request of the session shows which comments it addressed.
	ChangesRequested Status = "changes_requested"
)

// Words is the status as a sentence says it: "changes requested".
func (s Status) Words() string {
	if s == Elsewhere {
		return "answered elsewhere, outcome not known yet"
	}
	return strings.ReplaceAll(string(s), "_", " ")
}

// Refused reports whether the status tells the agent not to run its plan.
func (s Status) Refused() bool { return s == Rejected || s == ChangesRequested }

// Status is the status a decision with this action leaves the request in.
func (a Action) Status() Status {
	switch a {
	case Approve:
		return Approved
	case Modify:
		return Modified
	case RequestChanges:
		return ChangesRequested
	}
	return Rejected
}

// Plan types a request may carry.
const (
	TypeItems    = "items"
	TypeMarkdown = "markdown"
	TypeDAG      = "dag"
)

// PlanBody is a plan as agents send and receive it: a checklist, markdown text, or the calls
// of a tool-call plan (a DAG).
type PlanBody struct {
	Type     string          `json:"type"`
	Entries  []plans.Entry   `json:"entries,omitempty"`
	Markdown string          `json:"markdown,omitempty"`
	Calls    json.RawMessage `json:"calls,omitempty"`
	State    json.RawMessage `json:"_state,omitempty"`
}

// UnmarshalJSON also takes ACP's spellings, so an agent can send the plan it already has:
// markdown as "content", and the type "_dag".
func (p *PlanBody) UnmarshalJSON(b []byte) error {
	type plain PlanBody
	var v struct {
		plain
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = PlanBody(v.plain)
	if p.Markdown == "" && v.Content != nil {
		p.Markdown = *v.Content
	}
	if p.Type == "_dag" {
		p.Type = TypeDAG
	}
	return nil
}

// Plan is the body as the dashboard's plan model, so pages draw it as they draw any plan.
func (p PlanBody) Plan(sessionID string) plans.Plan {
	out := plans.Plan{SessionID: sessionID, ID: "plan", Type: p.Type, Revision: 1}
	switch p.Type {
	case TypeItems:
		out.Kind = plans.KindItems
		out.Entries = p.Entries
	case TypeMarkdown:
		out.Kind = plans.KindMarkdown
		out.Markdown = p.Markdown
	case TypeDAG:
		out.Kind, out.Type = plans.KindDAG, "_dag"
		out.Raw = p.DAG()
	}
	return out
}

// DAG is a DAG body as the object the DAG parser reads: {"calls": […], "_state": {…}}.
func (p PlanBody) DAG() json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"calls":`)
	b.Write(orNull(p.Calls))
	if len(p.State) > 0 {
		b.WriteString(`,"_state":`)
		b.Write(p.State)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// Equal reports whether two plans say the same thing (JSON compared after compaction).
func (p PlanBody) Equal(q PlanBody) bool {
	a, _ := json.Marshal(p)
	b, _ := json.Marshal(q)
	return bytes.Equal(a, b)
}

// Request is one plan held at the gate.
type Request struct {
	ID        string   `json:"id"`
	Status    Status   `json:"status"`
	SessionID string   `json:"sessionId,omitempty"`
	Agent     string   `json:"agent,omitempty"`
	Title     string   `json:"title"`
	Context   string   `json:"context,omitempty"`
	Plan      PlanBody `json:"plan"`
	Options   []Action `json:"options"`
	Default   Action   `json:"default"` // what the deadline decides: approve or reject
	// Then says what happens at the deadline when the agent's own channel decides rather than
	// the gate's default ("the terminal decides"); "" when the default outcome is what happens.
	Then     string    `json:"then,omitempty"`
	Created  time.Time `json:"created"`
	Deadline time.Time `json:"deadline"`
	Decision *Decision `json:"decision,omitempty"`
	// Handover is how the request went to the agent's own dialog (status Elsewhere); it stays
	// once that dialog's outcome settles the request, so the record says where it was answered.
	Handover *Handover `json:"handover,omitempty"`
	// Seq is the gate's change number of the request's last change; pages catch up by it.
	Seq uint64 `json:"seq"`
	// Fingerprint identifies the submission, so a retry with the same id is recognised.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Revises is the request whose review this one answers: named by the agent, or the
	// session's previous request when that one ended with changes requested.
	Revises string `json:"revises,omitempty"`
	// SubmittedBy is the per-agent token that submitted the request ("token:<name>"), empty
	// for the server's own token. Stored with the request, so the token may wait for the
	// decision even when the server stopped the moment after it created the request.
	SubmittedBy string `json:"submittedBy,omitempty"`
	// SubmitterID is that token's identity (see Submitter): what ownership is checked by, since
	// a new token may take a revoked token's name.
	SubmitterID string `json:"submitterId,omitempty"`
}

// Allows reports whether the request lets a person take action a.
func (r Request) Allows(a Action) bool { return allows(r.Options, a) }

func allows(options []Action, a Action) bool {
	if a == RequestChanges {
		a = Reject // a review is a rejection that says more
	}
	for _, o := range options {
		if o == a {
			return true
		}
	}
	return false
}

// Summary is a request as lists show it: everything but the plan's content, so a long inbox is
// read without decoding every plan.
type Summary struct {
	ID        string
	Title     string
	Agent     string
	SessionID string
	PlanType  string
	PlanSize  int // entries, lines or calls
	Options   []Action
	Default   Action
	Then      string // what happens at the deadline, when not the default (see Request.Then)
	Created   time.Time
	Deadline  time.Time
	Seq       uint64
}

// Allows reports whether the request lets a person take action a.
func (s Summary) Allows(a Action) bool { return allows(s.Options, a) }

// Summary is the request as lists show it.
func (r Request) Summary() Summary {
	return Summary{ID: r.ID, Title: r.Title, Agent: r.Agent, SessionID: r.SessionID, PlanType: r.Plan.Type, PlanSize: r.Plan.Size(),
		Options: r.Options, Default: r.Default, Then: r.Then, Created: r.Created, Deadline: r.Deadline, Seq: r.Seq}
}

// Size is how long the plan is: its entries, lines or calls.
func (p PlanBody) Size() int {
	switch p.Type {
	case TypeItems:
		return len(p.Entries)
	case TypeMarkdown:
		return strings.Count(strings.TrimRight(p.Markdown, "\n"), "\n") + 1
	case TypeDAG:
		var calls []json.RawMessage
		json.Unmarshal(p.Calls, &calls)
		return len(calls)
	}
	return 0
}

// Decided reports whether the gate is done waiting for a decision here: the request has its
// decision, or it went to the agent's own dialog (Elsewhere, when Decision is still nil).
func (r Request) Decided() bool { return r.Status != Pending }

// Handover is how a request left the gate for the agent's own dialog.
type Handover struct {
	By   string    `json:"by"` // the channel that took it ("terminal"), or "deadline"
	At   time.Time `json:"at"`
	Note string    `json:"note"` // in words: "answered in the terminal — outcome not known yet"
}

// Decision is how a request was decided. Plan is what the agent runs: the request's plan as it
// was (approve) or as the person changed it (modify); it is absent on reject and on request
// changes, whose Feedback lists the reviewer's comments and FeedbackText renders them (with the
// overall Comment) for agents that read only text.
type Decision struct {
	Action  Action    `json:"action"`
	By      string    `json:"by"`
	At      time.Time `json:"at"`
	Comment string    `json:"comment,omitempty"`
	Plan    *PlanBody `json:"plan,omitempty"`
	Expired bool      `json:"expired,omitempty"` // nobody decided in time: the default outcome
	Rule    string    `json:"rule,omitempty"`    // the auto-approve rule that decided
	Key     string    `json:"key,omitempty"`     // the decider's idempotency key

	Feedback     []Comment `json:"feedback,omitempty"`
	FeedbackText string    `json:"feedbackText,omitempty"`
}

// Submission is what an agent sends to create a request.
type Submission struct {
	// ID is optional and chosen by the client: submitting the same ID again returns the same
	// request instead of creating a second one, so a client may retry safely.
	ID        string    `json:"id,omitempty"`
	SessionID string    `json:"sessionId,omitempty"`
	Agent     string    `json:"agent,omitempty"`
	Title     string    `json:"title"`
	Context   string    `json:"context,omitempty"`
	Plan      PlanBody  `json:"plan"`
	Options   []Action  `json:"options,omitempty"` // default: all three
	Deadline  time.Time `json:"deadline,omitzero"` // absolute; or Timeout
	Timeout   Duration  `json:"timeout,omitempty"` // relative: "15m" or seconds
	Default   Action    `json:"default,omitempty"` // approve or reject (the default: fail closed)
	// Then, for an agent whose own dialog decides once the deadline passes, says so in words
	// ("the terminal decides"): the pages say it instead of the default outcome.
	Then string `json:"then,omitempty"`
	// Revises names the request whose requested changes this plan answers; optional within a
	// session, where the session's previous request is found by itself.
	Revises string `json:"revises,omitempty"`
}

// DecisionInput is a person's decision as the gate receives it.
type DecisionInput struct {
	Action  Action    `json:"action"`
	Plan    *PlanBody `json:"plan,omitempty"` // the modified plan (modify only)
	Comment string    `json:"comment,omitempty"`
	// Feedback is the review's comments (request changes only).
	Feedback []Comment `json:"feedback,omitempty"`
	// Key makes a decision idempotent: repeating a decision with the key of the one that won
	// returns it again instead of a conflict (a double-click, a retried request).
	Key string `json:"key,omitempty"`
	By  string `json:"-"` // set by the server from the signed-in user, never by the client
}

// Rule approves matching requests without asking anyone. Every field that is set must match.
type Rule struct {
	ID        string `json:"id"`
	Agent     string `json:"agent,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	Kind      string `json:"kind,omitempty"` // plan type: items, markdown or dag
	// Machine limits the rule to sessions on one machine (compared case-insensitively), and
	// Cwd to sessions working in one directory or below it: both as plandash saw the session.
	Machine   string    `json:"machine,omitempty"`
	Cwd       string    `json:"cwd,omitempty"`
	Note      string    `json:"note,omitempty"`
	CreatedBy string    `json:"createdBy"`
	Created   time.Time `json:"created"`
	RevokedBy string    `json:"revokedBy,omitempty"`
	Revoked   time.Time `json:"revoked,omitzero"`
	Seq       uint64    `json:"seq"`
}

// Active reports whether the rule still decides.
func (r Rule) Active() bool { return r.Revoked.IsZero() }

// Place is where a request's session runs, as plandash saw it: its machine and working
// directory; empty when plandash never saw the session.
type Place struct{ Machine, Cwd string }

// Matches reports whether the rule covers the request, whose session runs at at. Agents match
// by canonical id, not by spelling: Claude Code's hook submits as "Claude Code", the rule form
// suggests "claude-code" and its ACP adapter is "claude-agent-acp", so a rule written any of
// those ways, in any case, matches all three. Rules stay stored as written, so rules added
// before ids existed keep working. A rule limited to a machine or a directory never matches a
// request whose session plandash has not seen there.
func (r Rule) Matches(q Request, at Place) bool {
	return r.Active() && (r.Agent != "" || r.SessionID != "" || r.Kind != "" || r.Machine != "" || r.Cwd != "") &&
		(r.Agent == "" || agentid.Same(r.Agent, q.Agent)) &&
		(r.SessionID == "" || r.SessionID == q.SessionID) &&
		(r.Kind == "" || r.Kind == q.Plan.Type) &&
		(r.Machine == "" || at.Machine != "" && strings.EqualFold(r.Machine, at.Machine)) &&
		(r.Cwd == "" || at.Cwd != "" && within(at.Cwd, r.Cwd))
}

// Placed reports whether the rule needs to know where a request's session runs.
func (r Rule) Placed() bool { return r.Machine != "" || r.Cwd != "" }

// within reports whether dir is root or below it, comparing cleaned slash paths (a Windows
// agent's backslashes too).
func within(dir, root string) bool {
	clean := func(p string) string { return path.Clean(strings.ReplaceAll(p, `\`, "/")) }
	dir, root = clean(dir), clean(root)
	return dir == root || strings.HasPrefix(dir, strings.TrimSuffix(root, "/")+"/")
}

// Describe says in words what the rule matches.
func (r Rule) Describe() string {
	s := ""
	add := func(k, v string) {
		if v == "" {
			return
		}
		if s != "" {
			s += ", "
		}
		s += k + " " + strconv.Quote(v)
	}
	add("agent", r.Agent)
	add("session", r.SessionID)
	add("plan type", r.Kind)
	add("machine", r.Machine)
	if r.Cwd != "" {
		add("directory", r.Cwd)
		s += " and below"
	}
	return s
}

// Audit events.
const (
	EventRequested    = "requested"
	EventApproved     = "approved"
	EventModified     = "modified"
	EventRejected     = "rejected"
	EventChanges      = "changes_requested"
	EventExpired      = "expired"
	EventElsewhere    = "elsewhere" // the agent's own dialog took the request (Handover)
	EventAutoApproved = "auto-approved"
	EventRuleAdded    = "rule-added"
	EventRuleRevoked  = "rule-revoked"
)

// AuditEvent is one line of the audit trail.
type AuditEvent struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	Event     string    `json:"event"`
	RequestID string    `json:"requestId,omitempty"`
	RuleID    string    `json:"ruleId,omitempty"`
	SessionID string    `json:"sessionId,omitempty"`
	Agent     string    `json:"agent,omitempty"`
	Title     string    `json:"title,omitempty"`
	By        string    `json:"by,omitempty"`
	Comment   string    `json:"comment,omitempty"`
	Before    *PlanBody `json:"before,omitempty"` // modify: the plan as submitted
	After     *PlanBody `json:"after,omitempty"`  // modify: the plan as decided
}

// AuditFilter narrows the audit trail. Empty fields match everything.
type AuditFilter struct {
	SessionID, Agent string
	Limit            int
}

// Duration is a JSON duration: a Go duration string ("90s", "15m") or a number of seconds.
type Duration time.Duration

// UnmarshalJSON reads either form.
func (d *Duration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("timeout %q: use a duration such as \"15m\" or a number of seconds", s)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("timeout: use a duration such as \"15m\" or a number of seconds")
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// MarshalJSON writes the duration string form.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }
