package acpproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/plandash/plandash/internal/acp"
)

// Approvals says who may answer the agent's permission requests.
type Approvals int

const (
	// ApprovalsIDE leaves them to the IDE; the proxy only watches. The default.
	ApprovalsIDE Approvals = iota
	// ApprovalsBoth shows them in the IDE and on the dashboard; the first answer wins.
	ApprovalsBoth
	// ApprovalsDashboard shows them on the dashboard only, for IDE panels that embed it.
	ApprovalsDashboard
)

// ParseApprovals reads --approvals: ide, both or dashboard.
func ParseApprovals(s string) (Approvals, error) {
	switch s {
	case "", "ide":
		return ApprovalsIDE, nil
	case "both":
		return ApprovalsBoth, nil
	case "dashboard":
		return ApprovalsDashboard, nil
	}
	return 0, fmt.Errorf("approvals must be ide, both or dashboard, not %q", s)
}

// PermissionRequest is an agent's session/request_permission, offered to the dashboard.
type PermissionRequest struct {
	ID        json.RawMessage // the agent's request id, as sent
	SessionID string
	Params    json.RawMessage // as sent: the tool call, the options, _meta
	Options   []acp.PermissionOption
	InIDE     bool // the IDE was asked too (ApprovalsBoth)
}

// Who resolved a permission request.
const (
	ByIDE       = "ide"
	ByDashboard = "dashboard"
	ByAgent     = "agent" // the agent withdrew it ($/cancel_request) or exited
	ByProxy     = "proxy" // the IDE cancelled the turn while only the dashboard was asked
)

// Resolution says how a permission request ended.
type Resolution struct {
	By      string
	Outcome acp.PermissionOutcome // what the agent was told; empty when it was told nothing
}

// ErrPermissionResolved is what answering a request that has already ended returns.
var ErrPermissionResolved = errors.New("the permission request was already resolved")

// PermissionBroker is the dashboard's side of permission requests. The proxy calls it from one
// goroutine of its own, in order (Offer before Resolved for each request), never from the
// forwarding path: a slow broker delays the dashboard, not the IDE or the agent.
type PermissionBroker interface {
	// Offer shows a request. answer delivers the dashboard's decision from any goroutine; it
	// returns ErrPermissionResolved when the request ended first, or an error when the outcome
	// does not fit the request (an option it did not offer).
	Offer(req PermissionRequest, answer func(acp.PermissionOutcome) error)
	// Resolved says an offered request ended, whoever ended it (the dashboard included), so the
	// dashboard can close it and show who.
	Resolved(id json.RawMessage, r Resolution)
}

// callQueue runs functions in order on its own goroutine; adding never blocks.
type callQueue struct {
	mu     sync.Mutex
	q      []func()
	closed bool
	wake   chan struct{}
}

func (c *callQueue) add(f func()) {
	c.mu.Lock()
	c.q = append(c.q, f)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// close stops the goroutine once what was added has run.
func (c *callQueue) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.add(func() {})
}

func (c *callQueue) run() {
	for range c.wake {
		c.mu.Lock()
		q, closed := c.q, c.closed
		c.q = nil
		c.mu.Unlock()
		for _, f := range q {
			f()
		}
		if closed {
			return
		}
	}
}
