package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/web/templates"
)

// A shared plan sent to the gate becomes a request whose id names the plan and the revision it
// was sent at. The id is the whole link: whenever a decision lands (even after a restart, or by
// the deadline) the plan's status follows it, and a modified plan is written back, guarded by
// that revision so a newer write by an agent is never overwritten.
const sharedRequestPrefix = "shared-"

func sharedRequestID(name string, revision int) string {
	return sharedRequestPrefix + name + "-r" + strconv.Itoa(revision)
}

func parseSharedRequestID(id string) (name string, revision int, ok bool) {
	rest, ok := strings.CutPrefix(id, sharedRequestPrefix)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndex(rest, "-r")
	if i <= 0 {
		return "", 0, false
	}
	rev, err := strconv.Atoi(rest[i+2:])
	if err != nil || sharedplans.ValidateName(rest[:i]) != nil {
		return "", 0, false
	}
	return rest[:i], rev, true
}

// Statuses a decision gives the shared plan.
const (
	sharedStatusApproved = "approved"
	sharedStatusRejected = "rejected"
	sharedStatusWaiting  = "awaiting-approval"
)

// sharedApprovalRoutes adds the page route that sends a shared plan to the gate.
func (s *Server) sharedApprovalRoutes(r chi.Router) {
	r.Post("/shared/{name}/approval", s.sharedRequestApproval)
}

// sharedRequestApproval serves POST /shared/{name}/approval: submit the plan as it is at the
// revision the page showed, mark it as waiting, and open the request.
func (s *Server) sharedRequestApproval(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "name")
	rev, err := strconv.Atoi(r.FormValue("revision"))
	if err != nil {
		s.errorPage(w, r, invalid("the form lacks the plan's revision"))
		return
	}
	p, ok, err := s.sharedStore.Get(r.Context(), name)
	switch {
	case err != nil:
		s.errorPage(w, r, err)
		return
	case !ok:
		s.errorPage(w, r, sharedplans.ErrPlanNotFound)
		return
	case p.Revision != rev:
		s.errorPage(w, r, invalid(fmt.Sprintf("the plan changed since you opened it (revision %d, now %d): reload and look again before asking for approval", rev, p.Revision)))
		return
	}
	title := p.Title
	if title == "" {
		title = p.Name
	}
	req, _, err := s.gate.Submit(r.Context(), approval.Submission{
		ID: sharedRequestID(name, rev), Agent: "shared plans", Title: "Shared plan: " + title,
		Context: fmt.Sprintf("The shared plan **%s** at revision %d. Approving sets its status to `%s` (a modified plan is written back first); rejecting sets it to `%s`.",
			name, rev, sharedStatusApproved, sharedStatusRejected),
		Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: p.Content},
	})
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	if req.Status == approval.Pending {
		s.setSharedStatus(r.Context(), name, rev, sharedStatusWaiting)
	}
	http.Redirect(w, r, "/approvals/"+url.PathEscape(req.ID), http.StatusSeeOther)
}

// linkSharedToGate makes decisions on shared-plan requests land on the plans.
func (s *Server) linkSharedToGate() {
	s.gate.OnChange(func(c approval.Change) {
		if c.Request == nil || c.Request.Status == approval.Pending || c.Request.Decision == nil {
			return
		}
		name, rev, ok := parseSharedRequestID(c.Request.ID)
		if !ok {
			return
		}
		// The gate's writer lock is held here: the file work happens elsewhere.
		go s.applySharedDecision(name, rev, *c.Request)
	})
}

func (s *Server) applySharedDecision(name string, rev int, req approval.Request) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := req.Decision
	status := sharedStatusRejected
	if d.Action != approval.Reject {
		status = sharedStatusApproved
	}
	expected := rev
	if cur, ok, err := s.sharedStore.Get(ctx, name); err == nil && ok && cur.Status == sharedStatusWaiting && cur.Revision == rev+1 {
		expected = cur.Revision // our own "awaiting-approval" write is the only change since
	}
	up := sharedplans.UpsertRequest{Name: name, Status: &status, ExpectedRevision: &expected, MustExist: true}
	if d.Action == approval.Modify && d.Plan != nil {
		up.Content = &d.Plan.Markdown
	}
	if _, err := s.sharedStore.Upsert(ctx, up); err != nil {
		s.log.Warn("the decision on a shared plan could not be written back", "plan", name, "revision", rev, "decision", d.Action, "err", err)
		return
	}
	s.observeShared(ctx, name, "approval")
}

// setSharedStatus marks the plan, guarded by the revision the person saw.
func (s *Server) setSharedStatus(ctx context.Context, name string, rev int, status string) {
	if _, err := s.sharedStore.Upsert(ctx, sharedplans.UpsertRequest{Name: name, Status: &status, ExpectedRevision: &rev, MustExist: true}); err != nil {
		s.log.Warn("could not mark the shared plan", "plan", name, "status", status, "err", err)
		return
	}
	s.observeShared(ctx, name, "approval")
}

// sharedStripSize is how many shared plans the overview lists.
const sharedStripSize = 8

// sharedStrip is the overview's view of the shared plans: the most recently updated, and how many
// there are. Listing reads summaries only, never contents.
func (s *Server) sharedStrip(ctx context.Context) ([]templates.SharedPlan, int) {
	list, err := s.sharedStore.List(ctx)
	if err != nil {
		s.log.Warn("overview: listing shared plans", "err", err)
		return nil, 0
	}
	sums := list.Plans
	sort.SliceStable(sums, func(i, j int) bool { return sums[i].UpdatedAt > sums[j].UpdatedAt })
	out := make([]templates.SharedPlan, 0, min(len(sums), sharedStripSize))
	for _, p := range sums[:min(len(sums), sharedStripSize)] {
		out = append(out, templates.SharedPlan{Name: p.Name, Title: p.Title, Author: p.Author, Status: p.Status, Revision: p.Revision, UpdatedAt: p.UpdatedAt})
	}
	return out, len(sums)
}
