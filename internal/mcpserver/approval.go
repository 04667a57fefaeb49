package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
)

// Approver is what the approval tool needs from the gate. The server at /mcp passes its own
// gate; `plandash mcp` passes an HTTP client of a running server's.
type Approver interface {
	// Submit creates a request, or returns the one a client-chosen ID already names.
	Submit(ctx context.Context, s approval.Submission) (approval.Request, error)
	// Wait returns the request once decided, or as it stands after at most d.
	Wait(ctx context.Context, id string, d time.Duration) (approval.Request, error)
}

// progressEvery is how often a waiting call tells the client it is still waiting. Clients that
// time out idle requests reset their timers on progress, so a person may take their time.
const progressEvery = 10 * time.Second

type toolEntry struct {
	Content  string `json:"content" jsonschema:"what the step does"`
	Priority string `json:"priority,omitempty" jsonschema:"high, medium or low (default medium)"`
	Status   string `json:"status,omitempty" jsonschema:"pending, in_progress, completed or cancelled (default pending)"`
}

type toolPlan struct {
	Type     string           `json:"type" jsonschema:"items (a checklist), markdown, or dag (a tool-call plan)"`
	Entries  []toolEntry      `json:"entries,omitempty" jsonschema:"the checklist, for type items"`
	Markdown string           `json:"markdown,omitempty" jsonschema:"the plan's text, for type markdown"`
	Calls    []map[string]any `json:"calls,omitempty" jsonschema:"the tool calls, for type dag: objects with _tool, optional _id and _outputPath, and the call's arguments"`
}

type approvalIn struct {
	Title          string   `json:"title" jsonschema:"what the plan is for, in a few words"`
	Context        string   `json:"context,omitempty" jsonschema:"why this plan, and what the person deciding should know (markdown)"`
	Plan           toolPlan `json:"plan" jsonschema:"the plan to approve"`
	SessionID      string   `json:"session_id,omitempty" jsonschema:"your session id, to group requests"`
	Agent          string   `json:"agent,omitempty" jsonschema:"your name, as people know it"`
	Options        []string `json:"options,omitempty" jsonschema:"what the person may do: approve, modify, reject (default all three)"`
	TimeoutSeconds int      `json:"timeout_seconds,omitempty" jsonschema:"how long to wait for a person (default 3600)"`
	DefaultOutcome string   `json:"default_outcome,omitempty" jsonschema:"approve or reject: what happens when nobody decides in time (default reject)"`
	RequestID      string   `json:"request_id,omitempty" jsonschema:"your own id for this request: calling again with it waits on the same request instead of asking twice"`
	Revises        string   `json:"revises,omitempty" jsonschema:"the request_id of the request whose requested changes this plan answers (found by itself within a session_id)"`
}

// toolComment is one comment of a review, as the agent reads it.
type toolComment struct {
	Target  string `json:"target" jsonschema:"what the comment is on: plan, entry, line or call"`
	Entry   int    `json:"entry,omitempty" jsonschema:"the entry's number, from 1 (target entry)"`
	Line    int    `json:"line,omitempty" jsonschema:"the markdown line's number, from 1 (target line)"`
	CallID  string `json:"call_id,omitempty" jsonschema:"the call's _id, or its position from 0 (target call)"`
	Quote   string `json:"quote,omitempty" jsonschema:"the text the comment was made on, as you submitted it"`
	Comment string `json:"comment" jsonschema:"what the reviewer said"`
}

type approvalOut struct {
	RequestID string        `json:"request_id"`
	Decision  string        `json:"decision" jsonschema:"approved, modified, rejected or changes_requested"`
	Plan      *toolPlan     `json:"plan,omitempty" jsonschema:"the plan to run: as submitted when approved, as the person changed it when modified; absent when rejected"`
	Comment   string        `json:"comment,omitempty" jsonschema:"what the person said; the reason when rejected"`
	DecidedBy string        `json:"decided_by"`
	DecidedAt time.Time     `json:"decided_at"`
	Expired   bool          `json:"expired,omitempty" jsonschema:"nobody decided in time, so the default outcome applied"`
	Feedback  []toolComment `json:"feedback,omitempty" jsonschema:"changes_requested: the reviewer's comments on your plan; revise it and call again with revises set to request_id"`
}

const approvalDescription = `Ask a person to approve your plan before you run it, and wait for the decision.
The person may approve it, change it (then run the changed plan you get back, not yours), reject it with a reason (then do not run it),
or request changes: then the result lists their comments on your entries, lines or calls; revise the plan and call again with revises set to the request_id.
This call blocks until someone decides or the deadline passes; progress notifications are sent while it waits.`

// registerApproval adds request_plan_approval.
func registerApproval(srv *mcp.Server, a Approver) {
	mcp.AddTool(srv, &mcp.Tool{Name: "request_plan_approval", Title: "Request plan approval", Description: approvalDescription},
		func(ctx context.Context, req *mcp.CallToolRequest, in approvalIn) (*mcp.CallToolResult, approvalOut, error) {
			sub, err := in.submission()
			if err != nil {
				return nil, approvalOut{}, err
			}
			r, err := a.Submit(ctx, sub)
			if err != nil {
				return nil, approvalOut{}, err
			}
			start := time.Now()
			total := r.Deadline.Sub(start).Seconds()
			progress := func() {
				tok := req.Params.GetProgressToken()
				if tok == nil || req.Session == nil {
					return
				}
				left := time.Until(r.Deadline).Round(time.Second)
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: tok, Progress: time.Since(start).Seconds(), Total: total,
					Message: fmt.Sprintf("waiting for a person to decide approval request %s (%s left, then %s)", r.ID, left, r.Default.Status()),
				})
			}
			for !r.Decided() {
				progress()
				if r, err = a.Wait(ctx, r.ID, progressEvery); err != nil {
					return nil, approvalOut{}, err
				}
			}
			out := outcome(r)
			b, _ := json.MarshalIndent(out, "", "  ")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary(r) + "\n\n" + string(b)}}}, out, nil
		})
}

func (in approvalIn) submission() (approval.Submission, error) {
	sub := approval.Submission{
		ID: in.RequestID, SessionID: in.SessionID, Agent: in.Agent, Title: in.Title, Context: in.Context,
		Default: approval.Action(in.DefaultOutcome), Timeout: approval.Duration(time.Duration(in.TimeoutSeconds) * time.Second),
		Plan: approval.PlanBody{Type: in.Plan.Type, Markdown: in.Plan.Markdown}, Revises: in.Revises,
	}
	for _, o := range in.Options {
		sub.Options = append(sub.Options, approval.Action(o))
	}
	for _, e := range in.Plan.Entries {
		sub.Plan.Entries = append(sub.Plan.Entries, plans.Entry{Content: e.Content, Priority: e.Priority, Status: e.Status})
	}
	if len(in.Plan.Calls) > 0 {
		b, err := json.Marshal(in.Plan.Calls)
		if err != nil {
			return sub, err
		}
		sub.Plan.Calls = b
	}
	return sub, nil
}

func outcome(r approval.Request) approvalOut {
	d := r.Decision
	out := approvalOut{RequestID: r.ID, Decision: string(r.Status), Comment: d.Comment, DecidedBy: d.By, DecidedAt: d.At, Expired: d.Expired}
	if p := d.Plan; p != nil {
		tp := &toolPlan{Type: p.Type, Markdown: p.Markdown}
		for _, e := range p.Entries {
			tp.Entries = append(tp.Entries, toolEntry{Content: e.Content, Priority: e.Priority, Status: e.Status})
		}
		if len(p.Calls) > 0 {
			_ = json.Unmarshal(p.Calls, &tp.Calls)
		}
		out.Plan = tp
	}
	for _, c := range d.Feedback {
		out.Feedback = append(out.Feedback, toolComment{Target: c.Target, Entry: c.Entry, Line: c.Line, CallID: c.CallID, Quote: c.Quote, Comment: c.Comment})
	}
	return out
}

// summary says the outcome in words, for clients that show the model only the text.
func summary(r approval.Request) string {
	d := r.Decision
	var s string
	switch {
	case d.Expired && r.Status == approval.Approved:
		s = "Nobody decided before the deadline, so the default outcome applies: approved. Run the plan as you submitted it."
	case d.Expired:
		s = "Nobody decided before the deadline, so the default outcome applies: rejected. Do not run this plan."
	case r.Status == approval.Approved:
		s = fmt.Sprintf("Approved by %s. Run the plan as you submitted it.", d.By)
	case r.Status == approval.Modified:
		s = fmt.Sprintf("Approved with changes by %s. Run the changed plan below, not the one you submitted.", d.By)
	case r.Status == approval.ChangesRequested:
		// The review in words, then how to answer it: the same text every channel gives.
		return fmt.Sprintf("Changes requested by %s. Do not run this plan.\n%s\n\nWhen the plan is revised, call request_plan_approval again with revises %q.",
			d.By, d.Reason(), r.ID)
	default:
		s = fmt.Sprintf("Rejected by %s. Do not run this plan.", d.By)
	}
	if d.Comment != "" && !d.Expired {
		s += "\nComment: " + d.Comment
	}
	return s
}
