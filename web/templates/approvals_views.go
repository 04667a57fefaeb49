package templates

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
)

// ApprovalsPage is the gate's inbox.
type ApprovalsPage struct {
	Acp     []AcpPermission // relayed by `plandash acp`
	Waits   []waits.Wait    // the one list of waits: its length is the page's count
	Pending []approval.Summary
	Decided []approval.Request
	Rules   []approval.Rule
	Choices RuleChoices // what the rule form suggests
	Now     time.Time
	Seq     uint64
	Notice  Notice
}

// RuleChoices are what plandash has seen, for the rule form to suggest: agents by canonical id
// with their display names, sessions with their agent, machine and directory.
type RuleChoices struct {
	Agents, Sessions, Machines, Dirs []Choice
}

// Choice is one suggestion: the value a field takes and the words that explain it.
type Choice struct {
	Value, Label string
}

// ApprovalPage is one request with its plan and the decision form.
type ApprovalPage struct {
	Request    approval.Request
	Now        time.Time
	Seq        uint64
	Prev, Next string // neighbouring pending requests, for j and k
	Notice     Notice
	// Edit is the person's own change that was refused, shown again so nothing typed is lost.
	Edit    *approval.PlanBody
	Comment string
	Key     string // this page's idempotency key for its decision
	// Seen is the proof that this page showed the plan, which a plain approval must carry.
	Seen string
	// Drafts are the review comments of a refused "request changes", shown again.
	Drafts []approval.Comment
	// Previous is the request whose requested changes this one answers, if any.
	Previous *approval.Request
	// SessionKnown: plandash has seen the request's session, so its page exists to link to.
	SessionKnown bool
}

// AuditPage is the gate's audit trail.
type AuditPage struct {
	Events           []approval.AuditEvent
	SessionID, Agent string
	Now              time.Time
	Seq              uint64
}

// Notice tells a person what became of their last action.
type Notice struct {
	Kind string // "error" (fix and retry) or "conflict" (someone or something else decided)
	Text string
}

// Element ids of the gate, shared by pages and the socket.

// PendingCountID is the navigation's count of pending requests, on every page.
const PendingCountID = "pending-count"

// Containers of the inbox.
const (
	ApprovalsPendingID = "approvals-pending"
	ApprovalsDecidedID = "approvals-decided"
	ApprovalRulesID    = "approval-rules"
	RuleAgentsID       = "rule-agents"
	RuleSessionsID     = "rule-sessions"
	RuleMachinesID     = "rule-machines"
	RuleDirsID         = "rule-dirs"
)

// ApprovalRowID is a pending request's row in the inbox.
func ApprovalRowID(id string) string { return "ap-" + idSafe(id) }

// RowPlanID is the box in a pending request's inbox row where its plan is shown.
func RowPlanID(id string) string { return "apl-" + idSafe(id) }

// DecidedRowID is a decided request's row in the inbox.
func DecidedRowID(id string) string { return "ad-" + idSafe(id) }

// ApprovalPanelID is the decision panel of a request's page.
func ApprovalPanelID(id string) string { return "ax-" + idSafe(id) }

func approvalURL(id string) templ.SafeURL { return templ.SafeURL("/approvals/" + urlPath(id)) }

func urlQuery(s string) string { return url.QueryEscape(s) }

// planView is the request's plan as its page shows it, entries numbered as its comments and
// diffs name them.
func planView(r approval.Request) PlanView {
	return PlanView{Plan: r.Plan.Plan(r.SessionID), Numbered: true}
}

func planSummary(typ string, n int) string {
	switch typ {
	case approval.TypeItems:
		return plural(n, "entry", "entries")
	case approval.TypeMarkdown:
		return plural(n, "line", "lines")
	case approval.TypeDAG:
		return plural(n, "tool call", "tool calls")
	}
	return typ
}

func typeLabel(t string) string {
	switch t {
	case approval.TypeItems:
		return "checklist"
	case approval.TypeDAG:
		return "tool calls"
	}
	return t
}

func origin(agent, session string) string {
	var parts []string
	if a := agentid.Of(agent); a.Name != "" {
		parts = append(parts, a.Name) // one name per agent: claude-agent-acp reads Claude Code
	}
	if session != "" {
		parts = append(parts, "session "+session)
	}
	if len(parts) == 0 {
		return "unnamed agent"
	}
	return strings.Join(parts, " · ")
}

// countdown is the server's rendering of the time left; the page script keeps it ticking.
func countdown(now, deadline time.Time) string {
	d := deadline.Sub(now).Round(time.Second)
	switch {
	case d <= 0:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours())/24)
}

func outcomeAfter(def approval.Action, then string) string {
	if then != "" {
		return "left, then " + then
	}
	if def == approval.Approve {
		return "left, then approved"
	}
	return "left, then rejected"
}

// auditWhat is an audit row's event in words; a request that ran out of time says the outcome
// its deadline applied ("expired: rejected"), which the event's note records.
func auditWhat(e approval.AuditEvent) string {
	if e.Event == approval.EventElsewhere {
		// The hand-over's note: "answered in the terminal — outcome not known yet", or at the
		// deadline, what the agent's dialog does then.
		if _, then, ok := strings.Cut(e.Comment, "before the deadline ("); ok {
			if _, then, ok = strings.Cut(then, "): "); ok && len(then) <= approval.MaxName {
				return "expired: " + then
			}
		}
		if e.Comment != "" && len(e.Comment) <= approval.MaxName {
			return e.Comment
		}
		return approval.Elsewhere.Words()
	}
	what := approval.Status(e.Event).Words()
	if e.Event != approval.EventExpired {
		return what
	}
	for _, s := range []approval.Status{approval.Approved, approval.Rejected} {
		if strings.HasSuffix(e.Comment, "applies: "+s.Words()) {
			return what + ": " + s.Words()
		}
	}
	if _, then, ok := strings.Cut(e.Comment, "before the deadline ("); ok {
		if _, then, ok = strings.Cut(then, "): "); ok && len(then) <= approval.MaxName {
			return what + ": " + then // the agent's own channel decided ("the terminal decides")
		}
	}
	return what + ": the default outcome"
}

// statusWords is where a request stands, in words: its status, or for a request the agent's
// own dialog has, the hand-over's note ("answered in the terminal — outcome not known yet").
func statusWords(r approval.Request) string {
	if r.Status == approval.Elsewhere && r.Handover != nil && r.Handover.Note != "" {
		return r.Handover.Note
	}
	return r.Status.Words()
}

func decidedBy(r approval.Request) string {
	d := r.Decision
	switch {
	case d == nil:
		return ""
	case d.Expired:
		return "the deadline (default outcome)"
	case d.Rule != "":
		return "auto-approve rule"
	}
	return d.By
}

// planDiff is what the person changed: the plan as submitted against the plan as decided.
func planDiff(r approval.Request) plans.StructuredDiff {
	if r.Decision == nil || r.Decision.Plan == nil {
		return plans.StructuredDiff{}
	}
	return plans.StructDiff(r.Plan.Plan(r.SessionID), r.Decision.Plan.Plan(r.SessionID))
}

func afterView(r approval.Request) PlanView {
	p := r.Decision.Plan.Plan(r.SessionID)
	p.ID = "plan-as-decided"
	return PlanView{Plan: p, Numbered: true}
}

// editPlan is what the editor starts from: the person's refused edit, or the request's plan.
func editPlan(p ApprovalPage) approval.PlanBody {
	if p.Edit != nil {
		return *p.Edit
	}
	return p.Request.Plan
}

// choices are the editor's options for a field, keeping an unusual current value selectable.
func choices(standard []string, current string) []string {
	for _, s := range standard {
		if s == current {
			return standard
		}
	}
	return append(append([]string(nil), standard...), current)
}

func pendingText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

func auditQuery(p AuditPage) string {
	q := []string{}
	if p.SessionID != "" {
		q = append(q, "session="+urlQuery(p.SessionID))
	}
	if p.Agent != "" {
		q = append(q, "agent="+urlQuery(p.Agent))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + strings.Join(q, "&")
}

func approvalTitle(n int, base string) string {
	if n > 0 {
		return fmt.Sprintf("[%d] %s", n, base)
	}
	return base
}

func orText(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}

func filterNote(p AuditPage) string {
	if p.SessionID == "" && p.Agent == "" {
		return ""
	}
	return " for this filter"
}
