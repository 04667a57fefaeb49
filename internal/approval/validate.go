package approval

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// Limits on what the gate stores. They keep one request readable by a person and cheap to
// store and render; anything larger is refused with a clear message, not truncated.
const (
	MaxPlanBytes = 1 << 20 // a plan, as JSON
	MaxEntries   = 1000
	MaxEntryText = 4000 // characters
	MaxComment   = 4000 // characters
	MaxTitle     = 200  // characters
	MaxContext   = 16 << 10
	MaxName      = 256 // agent and session names
	MaxID        = 128
)

// reservedIDs would shadow routes under /approvals/.
var reservedIDs = map[string]bool{"audit": true, "rules": true, "validate": true, "count": true}

var (
	priorities = []string{"high", "medium", "low"}
	statuses   = []string{plans.StatusPending, plans.StatusInProgress, plans.StatusCompleted, plans.StatusCancelled}
)

// Priorities are the entry priorities the editor offers.
func Priorities() []string { return priorities }

// Statuses are the entry statuses the editor offers.
func Statuses() []string { return statuses }

func invalid(format string, args ...any) error { return errs.Errorf(errs.Invalid, format, args...) }

func tooLarge(format string, args ...any) error { return errs.Errorf(errs.TooLarge, format, args...) }

// checkText refuses text over max characters or that is not UTF-8.
func checkText(what, s string, max int) error {
	if !utf8.ValidString(s) {
		return invalid("%s is not valid UTF-8", what)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return tooLarge("%s is %d characters; the limit is %d", what, n, max)
	}
	return nil
}

// checkPlan normalises p in place (default priority and status) and says what is wrong with it.
// validateDAG, when set, checks a DAG's calls beyond their JSON shape.
func checkPlan(p *PlanBody, validateDAG func(json.RawMessage) error) error {
	switch p.Type {
	case "":
		switch {
		case len(p.Entries) > 0:
			p.Type = TypeItems
		case p.Markdown != "":
			p.Type = TypeMarkdown
		case len(p.Calls) > 0:
			p.Type = TypeDAG
		default:
			return invalid("the plan is empty: send entries (a checklist), markdown, or calls (a tool-call plan)")
		}
	case TypeItems, TypeMarkdown, TypeDAG:
	default:
		return invalid("plan type %q is not one the gate takes: use items, markdown or dag", p.Type)
	}
	if b, _ := json.Marshal(p); len(b) > MaxPlanBytes {
		return tooLarge("the plan is %d bytes; the limit is %d", len(b), MaxPlanBytes)
	}
	switch p.Type {
	case TypeItems:
		return checkEntries(p)
	case TypeMarkdown:
		p.Entries, p.Calls, p.State = nil, nil, nil
		if strings.TrimSpace(p.Markdown) == "" {
			return invalid("the markdown plan has no text")
		}
		return checkText("the markdown plan", p.Markdown, MaxPlanBytes)
	}
	p.Entries, p.Markdown = nil, ""
	return checkDAG(p, validateDAG)
}

func checkEntries(p *PlanBody) error {
	p.Markdown, p.Calls, p.State = "", nil, nil
	if len(p.Entries) == 0 {
		return invalid("the checklist has no entries")
	}
	if len(p.Entries) > MaxEntries {
		return tooLarge("the checklist has %d entries; the limit is %d", len(p.Entries), MaxEntries)
	}
	for i := range p.Entries {
		e := &p.Entries[i]
		n := i + 1
		if strings.TrimSpace(e.Content) == "" {
			return invalid("entry %d has no text", n)
		}
		if err := checkText(fmt.Sprintf("entry %d", n), e.Content, MaxEntryText); err != nil {
			return err
		}
		if e.Priority == "" {
			e.Priority = "medium"
		}
		if e.Status == "" {
			e.Status = plans.StatusPending
		}
		// "_"-prefixed values are ACP's extension point; anything else unknown is a mistake.
		if !contains(priorities, e.Priority) && !strings.HasPrefix(e.Priority, "_") {
			return invalid("entry %d has priority %q: use high, medium or low", n, e.Priority)
		}
		if !contains(statuses, e.Status) && !strings.HasPrefix(e.Status, "_") {
			return invalid("entry %d has status %q: use pending, in_progress, completed or cancelled", n, e.Status)
		}
	}
	return nil
}

func checkDAG(p *PlanBody, validateDAG func(json.RawMessage) error) error {
	calls := bytes.TrimSpace(p.Calls)
	if len(calls) == 0 || calls[0] != '[' {
		return invalid("a dag plan needs \"calls\": an array of tool calls")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(calls, &items); err != nil {
		return invalid("the calls are not valid JSON: %v", err)
	}
	if len(items) == 0 {
		return invalid("the dag plan has no calls")
	}
	for i, it := range items {
		if t := bytes.TrimSpace(it); len(t) == 0 || t[0] != '{' {
			return invalid("call %d is not an object", i)
		}
	}
	if st := bytes.TrimSpace(p.State); len(st) > 0 && st[0] != '{' && !bytes.Equal(st, []byte("null")) {
		return invalid("\"_state\" must be an object")
	}
	if validateDAG != nil {
		if err := validateDAG(p.DAG()); err != nil {
			return invalid("the tool-call plan is not valid: %v", err)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// checkID refuses ids that would not survive a URL path segment or a log line.
func checkID(id string) error {
	if len(id) > MaxID {
		return tooLarge("the id is %d bytes; the limit is %d", len(id), MaxID)
	}
	if reservedIDs[id] {
		return invalid("the id %q is reserved", id)
	}
	for _, r := range id {
		if !(r == '-' || r == '_' || r == '.' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return invalid("the id %q may use only letters, digits and - _ . :", id)
		}
	}
	return nil
}

// newRequest turns a submission into a pending request, or says what is wrong with it.
func (g *Gate) newRequest(sub Submission) (Request, error) {
	fp := fingerprint(sub)
	now := g.cfg.Now()
	r := Request{
		ID: sub.ID, Status: Pending, SessionID: strings.TrimSpace(sub.SessionID), Agent: strings.TrimSpace(sub.Agent),
		Title: strings.TrimSpace(sub.Title), Context: sub.Context, Plan: sub.Plan, Default: sub.Default, Then: strings.TrimSpace(sub.Then),
		Created: now, Fingerprint: fp,
	}
	if r.ID == "" {
		r.ID = NewRequestID()
	} else if err := checkID(r.ID); err != nil {
		return r, err
	}
	if r.Title == "" {
		return r, invalid("the request has no title: say in a few words what the plan is for")
	}
	for _, f := range []struct {
		what, v string
		max     int
	}{{"the title", r.Title, MaxTitle}, {"the context", r.Context, MaxContext}, {"the agent name", r.Agent, MaxName}, {"the session id", r.SessionID, MaxName}, {"then (what happens at the deadline)", r.Then, MaxName}} {
		if err := checkText(f.what, f.v, f.max); err != nil {
			return r, err
		}
	}
	if err := checkPlan(&r.Plan, g.cfg.ValidateDAG); err != nil {
		return r, err
	}
	opts, err := options(sub.Options)
	if err != nil {
		return r, err
	}
	r.Options = opts
	switch r.Default {
	case "":
		r.Default = Reject
	case Approve, Reject:
	default:
		return r, invalid("the default outcome %q is not one: use approve or reject", r.Default)
	}
	switch {
	case !sub.Deadline.IsZero() && sub.Timeout != 0:
		return r, invalid("give a deadline or a timeout, not both")
	case !sub.Deadline.IsZero():
		r.Deadline = sub.Deadline
	case sub.Timeout != 0:
		r.Deadline = now.Add(time.Duration(sub.Timeout))
	default:
		r.Deadline = now.Add(g.cfg.DefaultTimeout)
	}
	if d := r.Deadline.Sub(now); d < time.Second || d > g.cfg.MaxTimeout {
		return r, invalid("the deadline must be between 1s and %s from now", g.cfg.MaxTimeout)
	}
	return r, nil
}

func options(in []Action) ([]Action, error) {
	if len(in) == 0 {
		return []Action{Approve, Modify, Reject}, nil
	}
	var out []Action
	for _, a := range []Action{Approve, Modify, Reject} {
		for _, o := range in {
			if o == a {
				out = append(out, a)
				break
			}
		}
	}
	for _, o := range in {
		if o != Approve && o != Modify && o != Reject {
			return nil, invalid("option %q is not one: use approve, modify and reject", o)
		}
	}
	return out, nil
}

// checkDecision says what is wrong with a decision on r before anything is stored.
func (g *Gate) checkDecision(r Request, in *DecisionInput) error {
	if err := checkText("the comment", in.Comment, MaxComment); err != nil {
		return err
	}
	if len(in.Key) > MaxID {
		return tooLarge("the decision key is longer than %d bytes", MaxID)
	}
	switch in.Action {
	case Approve, Modify, Reject, RequestChanges:
	default:
		return invalid("the decision %q is not one: use approve, modify, reject or request_changes", in.Action)
	}
	if len(in.Feedback) > 0 && in.Action != RequestChanges {
		return invalid("comments on the plan go with request_changes, not %s", in.Action)
	}
	if !r.Allows(in.Action) {
		return invalid("this request does not allow %s (it allows %s)", in.Action, joinActions(r.Options))
	}
	switch in.Action {
	case Reject:
		if strings.TrimSpace(in.Comment) == "" {
			return invalid("a rejection needs a reason: the agent reads it to know what to do instead")
		}
	case RequestChanges:
		fb, err := checkFeedback(r.Plan, in.Feedback)
		if err != nil {
			return err
		}
		in.Feedback = fb
		if len(fb) == 0 && strings.TrimSpace(in.Comment) == "" {
			return invalid("requesting changes needs a comment: on an entry, a line, a call or the whole plan")
		}
	case Modify:
		if in.Plan == nil {
			return invalid("a modification needs the changed plan")
		}
		if in.Plan.Type == "" {
			in.Plan.Type = r.Plan.Type
		}
		if in.Plan.Type != r.Plan.Type {
			return invalid("the modified plan is a %s plan; the request's is a %s plan", in.Plan.Type, r.Plan.Type)
		}
		if err := checkPlan(in.Plan, g.cfg.ValidateDAG); err != nil {
			return err
		}
	}
	return nil
}

func joinActions(as []Action) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// CheckPlan normalises p and says what is wrong with it, as the gate would at submission; the
// plan editor uses it for live validation.
func (g *Gate) CheckPlan(p *PlanBody) error { return checkPlan(p, g.cfg.ValidateDAG) }

func fingerprint(sub Submission) string {
	b, _ := json.Marshal(sub)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

// NewRequestID is a fresh request id, as the gate makes one: a client that chooses its own
// before submitting can send the submission again safely.
func NewRequestID() string { return newID("apr") }

func newID(prefix string) string {
	b := make([]byte, 9)
	rand.Read(b)
	return prefix + "_" + hex.EncodeToString(b)
}
