package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/dag"
	"github.com/plandash/plandash/internal/mcpserver"
)

// approvalState is the gate's part of the Server.
type approvalState struct {
	gate *approval.Gate
}

// openApprovals builds the gate on the database's approval store and starts announcing its
// changes.
func (s *Server) openApprovals(ctx context.Context) error {
	g, err := approval.New(ctx, s.db.Approvals(), approval.Config{Now: s.cfg.Now, Log: s.log, ValidateDAG: validateDAG})
	if err != nil {
		return err
	}
	s.gate = g
	g.OnChange(s.gateChanged)
	return nil
}

// runApprovals applies default outcomes as deadlines pass.
func (s *Server) runApprovals(ctx context.Context) { s.gate.Run(ctx) }

// approvalPages are the gate's pages and their forms (session cookie; CSRF is checked globally).
func (s *Server) approvalPages(r chi.Router) {
	r.Get("/approvals", s.approvalsInbox)
	r.Get("/approvals/audit", s.approvalsAudit)
	r.Post("/approvals/rules", s.approvalRuleForm)
	r.Post("/approvals/rules/{rule}/revoke", s.approvalRevokeForm)
	r.Get("/approvals/{id}", s.approvalPage)
	r.Post("/approvals/{id}/decide", s.approvalDecideForm)
}

// approvalAPI is the gate's JSON API (bearer token or cookie).
func (s *Server) approvalAPI(r chi.Router) {
	r.Post("/api/v1/approvals", s.apiCreateApproval)
	r.Get("/api/v1/approvals", s.apiListApprovals)
	r.Get("/api/v1/approvals/audit", s.apiApprovalAudit)
	r.Get("/api/v1/approvals/count", s.apiApprovalCount)
	r.Get("/api/v1/approvals/rules", s.apiApprovalRules)
	r.Post("/api/v1/approvals/rules", s.apiAddApprovalRule)
	r.Delete("/api/v1/approvals/rules/{rule}", s.apiRevokeApprovalRule)
	r.Post("/api/v1/approvals/validate", s.apiValidatePlan)
	r.Get("/api/v1/approvals/{id}", s.apiGetApproval)
	r.Post("/api/v1/approvals/{id}/decision", s.apiDecideApproval)
}

// approver is the gate as the MCP approval tool sees it.
func (s *Server) approver() mcpserver.Approver { return gateApprover{s.gate} }

type gateApprover struct{ g *approval.Gate }

func (a gateApprover) Submit(ctx context.Context, sub approval.Submission) (approval.Request, error) {
	r, _, err := a.g.Submit(ctx, sub)
	return r, err
}

func (a gateApprover) Wait(ctx context.Context, id string, d time.Duration) (approval.Request, error) {
	return a.g.Wait(ctx, id, d)
}

// decider is who decides: the name a trusted proxy puts in the configured header, else --user.
func (s *Server) decider(r *http.Request) string {
	if h := s.cfg.UserHeader; h != "" {
		if v := strings.TrimSpace(r.Header.Get(h)); v != "" {
			return v
		}
	}
	if s.cfg.User != "" {
		return s.cfg.User
	}
	return "local user"
}

// validateDAG refuses tool-call plans that cannot run as written: a person should not approve
// a plan whose calls form a cycle or read state nobody writes.
func validateDAG(raw json.RawMessage) error {
	p, err := dag.Parse(raw)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), dag.ErrInvalid.Error()+": "))
	}
	if len(p.Problems) == 0 {
		return nil
	}
	msgs := make([]string, len(p.Problems))
	for i, pr := range p.Problems {
		msgs[i] = pr.Message
	}
	return errors.New(strings.Join(msgs, "; "))
}

// maxApprovalBody bounds a submission or decision body: the plan limit plus room for the rest.
const maxApprovalBody = 2 * approval.MaxPlanBytes

// newKey is a page's idempotency key for its decision form.
func newKey() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
