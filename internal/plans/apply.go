package plans

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/errs"
)

// Stream is the state of one ACP connection (a proxied stdio session, or a series of ingest
// posts that share a stream id): which requests await answers, which agent is talking, which
// sessions are replaying history. It is not safe for concurrent use; the Service serialises it.
type Stream struct {
	corr       *acp.Correlator
	agent      string
	agentTitle string
	loading    map[string]bool
}

// NewStream starts the state of a new connection.
func NewStream() *Stream {
	return &Stream{corr: acp.NewCorrelator(4096), loading: map[string]bool{}}
}

// SetAgent names the agent on this stream when the transport knows it before initialize does.
func (st *Stream) SetAgent(name string) { st.agent = name }

// Item is one decoded message and the line it came from.
type Item struct {
	Line int
	Msg  acp.Message
}

// ItemError says why one message was not applied.
type ItemError struct {
	Line    int    `json:"line"`
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// MaxReportedIssues is how many errors, and how many warnings, a result lists: a body of a
// million bad lines must not answer with a million messages (it answered 119 MB). The counts
// say how many there were.
const MaxReportedIssues = 100

// Result is the outcome of applying a batch.
type Result struct {
	Applied int `json:"applied"`
	// Errors are the first MaxReportedIssues items refused, of ErrorCount.
	Errors     []ItemError `json:"errors"`
	ErrorCount int         `json:"errorCount"`
	// Warnings are the first MaxReportedIssues warnings, of WarningCount.
	Warnings     []ItemError `json:"warnings,omitempty"`
	WarningCount int         `json:"warningCount,omitempty"`
	Sessions     []string    `json:"-"`
}

// AddIssue counts e in *n and appends it to list while list holds fewer than MaxReportedIssues,
// so collecting issues takes bounded memory however many there are.
func AddIssue(list []ItemError, n *int, e ItemError) []ItemError {
	*n++
	if len(list) >= MaxReportedIssues {
		return list
	}
	return append(list, e)
}

// MergeIssues joins issue lists in line order and keeps the first MaxReportedIssues. Each list
// holds the first issues of its own kind, so together they hold the first of all.
func MergeIssues(lists ...[]ItemError) []ItemError {
	var out []ItemError
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.SortStableFunc(out, func(a, b ItemError) int { return cmp.Compare(a.Line, b.Line) })
	if len(out) > MaxReportedIssues {
		out = out[:MaxReportedIssues]
	}
	return out
}

// maxActivityText bounds how much streamed text one activity row accumulates.
const maxActivityText = 64 << 10

// Apply applies items in order and commits them, as one transaction, together with whatever
// other Apply calls are waiting at that moment (group commit: one fsync for all of them). Items
// that cannot be applied are reported in Result.Errors and skipped; the rest are applied. A nil
// error means the applied items are durable. A failure of the store fails every call that
// shared the transaction, and none of their items is kept.
func (s *Service) Apply(ctx context.Context, st *Stream, items []Item) (Result, error) {
	return s.enqueue(ctx, st, items)
}

// applyItems applies one call's items to the group's batch. An error means the store failed
// and the whole group must be abandoned.
func (b *batch) applyItems(items []Item) (Result, error) {
	var res Result
	for _, it := range items {
		warns, err := b.apply(it.Msg)
		if err != nil {
			// The store failed (or could not take it now: a full disk, the database away, a
			// 503 the client retries whole): nothing of the batch is kept.
			if _, isDecode := err.(interface{ Code() int }); (errs.KindOf(err) == errs.Internal || errs.KindOf(err) == errs.Unavailable) && !isDecode {
				return Result{}, err
			}
			res.Errors = AddIssue(res.Errors, &res.ErrorCount, ItemError{Line: it.Line, Code: codeOf(err), Message: err.Error()})
			continue
		}
		for _, w := range warns {
			res.Warnings = AddIssue(res.Warnings, &res.WarningCount, ItemError{Line: it.Line, Code: acp.CodeInvalidParams, Message: w})
		}
		res.Applied++
	}
	return res, nil
}

// rpcError carries a JSON-RPC error code for an item that was refused.
type rpcError struct {
	code int
	msg  string
}

func (e *rpcError) Error() string { return e.msg }

func codeOf(err error) int {
	var re *rpcError
	if errors.As(err, &re) {
		return re.code
	}
	if c, ok := err.(interface{ Code() int }); ok {
		return c.Code()
	}
	return acp.CodeInvalidParams
}

func refuse(code int, format string, args ...any) error {
	return &errs.Error{Kind: errs.Invalid, Msg: fmt.Sprintf(format, args...), Err: &rpcError{code, fmt.Sprintf(format, args...)}}
}

// batch caches what one Apply touches so each row is read once and written once, however many
// messages of the batch change it.
type batch struct {
	svc    *Service
	ctx    context.Context
	tx     Txn // the batch's reads and its commit
	st     *Stream
	source string    // the current call's SourceOf
	at     time.Time // the current call's TimeOf
	now    time.Time

	sessions     map[string]*Session
	sessionOrder []string
	plans        map[PlanKey]*Plan
	planOrder    []PlanKey
	revisions    []*Plan
	tools        map[PlanKey]*ToolCall
	toolOrder    []PlanKey
	newTools     map[PlanKey]bool // tool calls this batch creates
	lastAct      map[string]*Activity
	queued       map[*Activity]bool
	revised      map[PlanKey]bool
	activity     []*Activity

	// callSessions lists the sessions the current Apply call of the group touched, for its Result.
	callSessions []string
	callSeen     map[string]bool
}

func (b *batch) changes() *Changes {
	c := &Changes{Revisions: b.revisions, Activity: b.activity}
	for _, id := range b.sessionOrder {
		c.Sessions = append(c.Sessions, b.sessions[id])
	}
	for _, k := range b.planOrder {
		// A plan only looked at (a removal of a plan never seen, say) is not written.
		if b.revised[k] {
			c.Plans = append(c.Plans, b.plans[k])
		}
	}
	for _, k := range b.toolOrder {
		c.ToolCalls = append(c.ToolCalls, b.tools[k])
		if b.newTools[k] {
			c.NewToolCalls = append(c.NewToolCalls, k)
		}
	}
	return c
}

// apply applies one message; a domain error refuses just this message.
func (b *batch) apply(m acp.Message) ([]string, error) {
	switch {
	case m.IsResponse():
		return nil, b.response(m)
	case m.Method == acp.MethodSessionUpdate:
		return b.update(m)
	case m.IsRequest():
		b.st.corr.Request(m)
		return nil, b.request(m)
	case m.Method == acp.MethodSessionCancel:
		p, err := acp.DecodeCancelParams(m.Params)
		if err != nil {
			return nil, err
		}
		return nil, b.addActivity(p.SessionID, "cancel", "", "Turn cancelled", nil, false)
	}
	return nil, checkMethod(m.Method)
}

// checkMethod refuses method names that are neither ACP's nor an extension's.
func checkMethod(method string) error {
	if strings.HasPrefix(method, "_") || strings.HasPrefix(method, "$/") || acp.KnownMethod(method) {
		return nil
	}
	return refuse(acp.CodeMethodNotFound, "unknown method %q (not an ACP method, and extension methods start with \"_\")", method)
}

func (b *batch) request(m acp.Message) error {
	switch m.Method {
	case acp.MethodSessionLoad:
		p, err := acp.DecodeLoadSessionParams(m.Params)
		if err != nil {
			return err
		}
		sess, err := b.session(p.SessionID)
		if err != nil {
			return err
		}
		if p.Cwd != "" {
			sess.Cwd = p.Cwd
		}
		b.st.loading[p.SessionID] = true
	case acp.MethodSessionPrompt:
		var p struct {
			SessionID string `json:"sessionId"`
			Prompt    []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"prompt"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil || p.SessionID == "" {
			return refuse(acp.CodeInvalidParams, "session/prompt: params need a sessionId and a prompt array")
		}
		var text []string
		for _, blk := range p.Prompt {
			if blk.Type == "text" {
				text = append(text, blk.Text)
			}
		}
		return b.addActivity(p.SessionID, "prompt", "", strings.Join(text, "\n"), nil, false)
	case "session/close":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.SessionID != "" {
			sess, err := b.session(p.SessionID)
			if err != nil {
				return err
			}
			sess.Ended = true
		}
	case acp.MethodRequestPermission:
		p, err := acp.DecodeRequestPermissionParams(m.Params)
		if err != nil {
			return err
		}
		title := "Permission requested"
		if p.ToolCall.Title != nil {
			title += ": " + *p.ToolCall.Title
		}
		return b.addActivity(p.SessionID, "permission", "", title, m.Params, false)
	default:
		return checkMethod(m.Method)
	}
	return nil
}

func (b *batch) response(m acp.Message) error {
	req, ok := b.st.corr.Response(m)
	if !ok || m.Error != nil {
		return nil
	}
	switch req.Method {
	case acp.MethodInitialize:
		r, err := acp.DecodeInitializeResult(m.Result)
		if err != nil {
			return err
		}
		if r.AgentInfo != nil {
			b.st.agent, b.st.agentTitle = r.AgentInfo.Name, r.AgentInfo.Title
		}
	case acp.MethodSessionNew:
		r, err := acp.DecodeNewSessionResult(m.Result)
		if err != nil || r.SessionID == "" {
			return err
		}
		sess, err := b.session(r.SessionID)
		if err != nil {
			return err
		}
		if p, err := acp.DecodeNewSessionParams(req.Params); err == nil {
			if p.Cwd != "" {
				sess.Cwd = p.Cwd
			}
			b.svc.origin(sess, p.Meta)
		}
	case acp.MethodSessionLoad:
		if p, err := acp.DecodeLoadSessionParams(req.Params); err == nil {
			delete(b.st.loading, p.SessionID)
		}
	}
	return nil
}

// session returns the batch's copy of a session, loading or creating it, and marks it touched.
func (b *batch) session(id string) (*Session, error) {
	if !b.callSeen[id] {
		if b.callSeen == nil {
			b.callSeen = map[string]bool{}
		}
		b.callSeen[id] = true
		b.callSessions = append(b.callSessions, id)
	}
	seen := b.now
	if !b.at.IsZero() && b.at.Before(seen) {
		seen = b.at
	}
	if s, ok := b.sessions[id]; ok {
		s.LastSeen = later(s.LastSeen, seen)
		if b.source != "" {
			s.Source = b.source
		}
		return s, nil
	}
	s, err := b.tx.Session(b.ctx, id)
	switch {
	case isNotFound(err):
		s = Session{ID: id, FirstSeen: seen}
	case err != nil:
		return nil, err
	}
	if s.Agent == "" {
		s.Agent, s.AgentTitle = b.st.agent, b.st.agentTitle
	}
	s.LastSeen = later(s.LastSeen, seen)
	s.Ended = false
	if b.source != "" {
		s.Source = b.source
	}
	if b.sessions == nil {
		b.sessions = map[string]*Session{}
	}
	b.sessions[id] = &s
	b.sessionOrder = append(b.sessionOrder, id)
	return &s, nil
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
