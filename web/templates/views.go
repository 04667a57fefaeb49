package templates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/plandash/plandash/internal/approval"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/plandash/plandash/internal/dag"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates/dagview"
)

// PlanView is a plan with what the server read for it: a file plan's content when the file is
// under an allowed root.
type PlanView struct {
	plans.Plan
	File *FileView
	// DAG is a dag plan's drawing; DAGErr says why there is none. DAGSummaryOnly asks for a
	// summary instead of the drawing (a big graph on a page of many plans).
	DAG            *dagview.View
	DAGErr         string
	DAGSummaryOnly bool
	// Numbered shows each checklist entry's number, where comments and diffs on the same page
	// name entries by it ("entry 3").
	Numbered bool
}

// FileView is what a file plan shows.
type FileView struct {
	Path     string
	Content  string
	Markdown bool
	Err      string // why the content is not shown
}

// Group is one session and its active plans on the overview.
type Group struct {
	Session plans.Session
	Plans   []PlanView
	Waiting []Waiting // what of this session waits for a person
	State   string    // StateActive, StateWaiting, StateDone or StateGone
	// MorePlans counts the session's active plans the overview leaves to the session's page.
	MorePlans int
}

// Waiting is something an agent waits on a person for: a plan at the gate, or a permission it
// asked through plandash acp.
type Waiting struct {
	Title string
	Who   string // the session's agent and directory, for lists of many sessions
	Href  string // where the person answers it
	Since time.Time
	Kind  string // plan, permission, question or input
	// Answered is set when the person answered where the agent asked, outcome not known yet
	// ("answered in the terminal — outcome not known yet"): listed, but waiting no more.
	Answered string
}

// ConnectAgent is how the empty overview tells a newcomer to connect one agent.
type ConnectAgent struct {
	Title   string // "Claude Code"
	Command string // "plandash install claude --gate"
	// Discovered says its sessions show without any command; Restart, that the agent must be
	// restarted after it (a plugin is loaded at start).
	Discovered, Restart bool
}

// connectTail is what follows an agent's command in the empty overview.
func connectTail(c ConnectAgent) string {
	tail := " connects it"
	if c.Discovered {
		tail = " adds the gate and its questions"
	}
	if c.Restart {
		tail = ", then restart " + c.Title + "," + tail
	}
	return tail
}

// Overview is the front page.
type Overview struct {
	// NeedsTotal is how many waits there are; Needs lists the oldest of them.
	NeedsTotal int
	Groups     []Group
	Seq        uint64
	Ingest     string // the ingest URL, for the empty state
	// Connect are the agents plandash connects with a command, for the empty state.
	Connect []ConnectAgent
	Now     time.Time
	Recent  []plans.Session
	Version string
	// Shared are the most recently updated shared plans (docker-agent's), of SharedTotal.
	Shared      []SharedPlan
	SharedTotal int
	// Needs is what waits for a person, every session's, oldest first.
	Needs   []Waiting
	Filter  OverviewFilter
	Options FilterOptions
	// Heard is each agent plandash has recent sessions from, heard from most recently first.
	Heard []HeardFrom
	// Older is the cursor of the next page, "" on the last.
	Older string
}

// InProgressCount is how many plans are being worked on, for the page title.
func (o Overview) InProgressCount() int {
	n := 0
	for _, g := range o.Groups {
		if g.State == StateGone {
			continue // its agent no longer works on anything
		}
		for _, p := range g.Plans {
			if p.InProgress() {
				n++
			}
		}
	}
	return n
}

// SessionPage is one session's page.
type SessionPage struct {
	Detail  plans.SessionDetail
	Plans   []PlanView
	Waiting []Waiting
	Now     time.Time
	// Decisions are the gate's most recent decisions on this session's requests, newest first.
	Decisions []approval.AuditEvent
}

// HistoryPage compares two revisions of a plan, beside one page of its revision list.
type HistoryPage struct {
	Session   plans.Session
	PlanID    string
	Revisions []plans.RevisionInfo // one page, newest first
	Newest    int                  // the newest revision's number
	Older     string               // the URL of the next (older) page of revisions; empty on the last
	Newer     string               // the URL of the first page, when this is a later one
	From, To  int
	Changes   plans.StructuredDiff // what the page shows
	First     bool                 // revision 1 alone: Changes is all of it, added
	DAGDiff   *dag.PlanDiff        // calls added, removed and changed, for tool-call plans
}

// revisionURL is the history page comparing revision rev with the one before it (the first
// revision with itself).
func revisionURL(h HistoryPage, rev int) templ.SafeURL {
	return templ.SafeURL(fmt.Sprintf("/sessions/%s/plans/%s/history?from=%d&to=%d",
		urlPath(h.Session.ID), urlPath(h.PlanID), max(rev-1, 1), rev))
}

// currentRev marks the revision shown, for assistive technology and the page's style.
func currentRev(shown bool) templ.Attributes {
	if shown {
		return templ.Attributes{"aria-current": "true"}
	}
	return nil
}

// Element ids shared by pages and the socket.

// GroupID is the overview element of a session.
func GroupID(sessionID string) string { return "s-" + idSafe(sessionID) }

// PlanID is the element of a plan card.
func PlanID(p plans.Plan) string { return "p-" + idSafe(p.SessionID) + "-" + idSafe(p.ID) }

// ToolCallsID is the element holding a session's tool calls.
func ToolCallsID(sessionID string) string { return "tc-" + idSafe(sessionID) }

// ToolCallsHeadID is the element counting a session's tool calls.
func ToolCallsHeadID(sessionID string) string { return "tch-" + idSafe(sessionID) }

// ToolCallListID is the list a session's new tool calls are appended to.
func ToolCallListID(sessionID string) string { return "tcl-" + idSafe(sessionID) }

// ToolCallRowID is one tool call's row on its session's page.
func ToolCallRowID(sessionID, id string) string { return "tcr-" + idSafe(sessionID) + "-" + idSafe(id) }

// ActivityID is the element holding a session's activity.
func ActivityID(sessionID string) string { return "act-" + idSafe(sessionID) }

// SessionHeadID is the element holding a session's header.
func SessionHeadID(sessionID string) string { return "sh-" + idSafe(sessionID) }

// idSafe maps any string to characters valid in an id and a CSS selector, keeping it unique.
func idSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, ".%x.", r)
		}
	}
	return b.String()
}

func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 5*time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Format("2 Jan 15:04")
}

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func statusIcon(s string) string {
	switch s {
	case plans.StatusCompleted:
		return "✓"
	case plans.StatusInProgress:
		return "◐"
	case plans.StatusCancelled:
		return "⊘"
	case plans.StatusPending:
		return "○"
	case "failed":
		return "✗"
	}
	return "◇"
}

func statusLabel(s string) string {
	switch s {
	case plans.StatusInProgress:
		return "in progress"
	case "":
		return "unknown"
	}
	return strings.TrimPrefix(s, "_")
}

func priorityLabel(p string) string { return strings.TrimPrefix(p, "_") }

func kindLabel(p plans.Plan) string {
	switch p.Kind {
	case plans.KindItems:
		return "checklist"
	}
	return string(p.Kind)
}

// editorJSON is a value a person edits and sends back, so it is never collapsed or cut: indented
// when that stays within the display limits, else compact (its size is the value's own).
func editorJSON(raw json.RawMessage) string {
	if f := plans.FormatJSON(raw); !f.Shortened() {
		return f.Text
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func progressText(pr plans.Progress) string {
	return fmt.Sprintf("%d of %d done", pr.Completed+pr.Cancelled, pr.Total)
}

func itoa(n int) string { return fmt.Sprint(n) }

func seqText(n uint64) string { return fmt.Sprint(n) }

func cwdBase(cwd string) string {
	cwd = strings.TrimRight(cwd, "/")
	if i := strings.LastIndexByte(cwd, '/'); i >= 0 && i < len(cwd)-1 {
		return cwd[i+1:]
	}
	return cwd
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func pageTitle(inProgress int, base string) string {
	if inProgress > 0 {
		return fmt.Sprintf("(%d) %s", inProgress, base)
	}
	return base
}

func urlPath(s string) string { return url.PathEscape(s) }

// WithDAG lays out a dag plan that reached a template without its drawing (a plan under review
// at the gate, say). The web layer normally supplies a cached drawing with live statuses.
func WithDAG(p PlanView) PlanView {
	if p.Kind != plans.KindDAG || p.DAG != nil || p.DAGErr != "" {
		return p
	}
	raw, generic := p.DAGSource()
	id := "dag-" + PlanID(p.Plan)
	if generic {
		g, err := dag.ParseGraph(raw)
		if err != nil {
			p.DAGErr = err.Error()
			return p
		}
		v := dagview.NewGraphView(id, g)
		p.DAG = &v
		return p
	}
	dp, err := dag.Parse(raw)
	if err != nil {
		p.DAGErr = err.Error()
		return p
	}
	v := dagview.NewPlanView(id, dp)
	p.DAG = &v
	return p
}
