package sharedplans

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// A shared plan sent to the gate becomes a request whose id names the plan and the revision it
// was sent at. The id is the whole link: whenever a decision lands (even after a restart, or by
// the deadline) the plan's status follows it, and a modified plan is written back, guarded by
// that revision so a newer write by an agent is never overwritten.
const requestPrefix = "shared-"

// RequestID is the gate's id for plan name sent at revision.
func RequestID(name string, revision int) string {
	return requestPrefix + name + "-r" + strconv.Itoa(revision)
}

// ParseRequestID is RequestID's inverse; false for ids of other requests.
func ParseRequestID(id string) (name string, revision int, ok bool) {
	rest, ok := strings.CutPrefix(id, requestPrefix)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndex(rest, "-r")
	if i <= 0 {
		return "", 0, false
	}
	rev, err := strconv.Atoi(rest[i+2:])
	if err != nil || ValidateName(rest[:i]) != nil {
		return "", 0, false
	}
	return rest[:i], rev, true
}

// Statuses a decision gives the shared plan.
const (
	StatusApproved = "approved"
	StatusRejected = "rejected"
	StatusWaiting  = "awaiting-approval"
)

// Submitter is the gate as RequestApproval uses it.
type Submitter interface {
	Submit(ctx context.Context, sub approval.Submission) (approval.Request, bool, error)
}

// RequestApproval sends the plan, as it is at the revision the person saw, to the gate, and marks
// it as waiting. A plan that changed since is refused: the person must look again.
func (s *Service) RequestApproval(ctx context.Context, gate Submitter, name string, rev int) (approval.Request, error) {
	p, ok, err := s.store.Get(ctx, name)
	switch {
	case err != nil:
		return approval.Request{}, err
	case !ok:
		return approval.Request{}, notFound(name)
	case p.Revision != rev:
		return approval.Request{}, errs.Errorf(errs.Unprocessable, "the plan changed since you opened it (revision %d, now %d): reload and look again before asking for approval", rev, p.Revision)
	}
	title := p.Title
	if title == "" {
		title = p.Name
	}
	req, _, err := gate.Submit(ctx, approval.Submission{
		ID: RequestID(name, rev), Agent: "shared plans", Title: "Shared plan: " + title,
		Context: fmt.Sprintf("The shared plan **%s** at revision %d. Approving sets its status to `%s` (a modified plan is written back first); rejecting sets it to `%s`.",
			name, rev, StatusApproved, StatusRejected),
		Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: p.Content},
	})
	if err != nil {
		return req, err
	}
	if req.Status == approval.Pending {
		status := StatusWaiting
		if _, err := s.Write(ctx, UpsertRequest{Name: name, Status: &status, ExpectedRevision: &rev, MustExist: true}, "approval"); err != nil {
			s.log.Warn("could not mark the shared plan", "plan", name, "status", status, "err", err)
		}
	}
	return req, nil
}

// GateChanged is the gate's listener: a decision on a shared plan's request lands on the plan.
// The gate calls it with its writer lock held, so the file work happens on a goroutine that Run
// waits for.
func (s *Service) GateChanged(c approval.Change) {
	if c.Request == nil || c.Request.Status == approval.Pending || c.Request.Decision == nil {
		return
	}
	name, rev, ok := ParseRequestID(c.Request.ID)
	if !ok {
		return
	}
	req := *c.Request
	s.work.Go(func() { s.applyDecision(name, rev, req) })
}

func (s *Service) applyDecision(name string, rev int, req approval.Request) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := req.Decision
	status := StatusRejected // reject, and request changes: the plan is not to run as it is
	if d.Action == approval.Approve || d.Action == approval.Modify {
		status = StatusApproved
	}
	expected := rev
	if cur, ok, err := s.store.Get(ctx, name); err == nil && ok && cur.Status == StatusWaiting && cur.Revision == rev+1 {
		expected = cur.Revision // our own "awaiting-approval" write is the only change since
	}
	up := UpsertRequest{Name: name, Status: &status, ExpectedRevision: &expected, MustExist: true}
	if d.Action == approval.Modify && d.Plan != nil {
		up.Content = &d.Plan.Markdown
	}
	if _, err := s.Write(ctx, up, "approval"); err != nil {
		s.log.Warn("the decision on a shared plan could not be written back", "plan", name, "revision", rev, "decision", d.Action, "err", err)
	}
}
