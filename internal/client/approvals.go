package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Approval is an approval request as the server returns it. The client reads only what it needs
// to act on; Raw is the whole answer, for callers that decode it into approval.Request (this
// package stays free of the domain's types so that every room may use it).
type Approval struct {
	ID      string          `json:"id"`
	Status  string          `json:"status"` // pending, approved, modified or rejected
	Title   string          `json:"title"`
	PageURL string          `json:"pageUrl"` // where a person decides it
	Raw     json.RawMessage `json:"-"`
}

// Decided reports whether a person (or the deadline) has decided the request.
func (a Approval) Decided() bool { return a.Status != "" && a.Status != "pending" }

// Decode decodes the whole request into v, typically an *approval.Request.
func (a Approval) Decode(v any) error { return json.Unmarshal(a.Raw, v) }

// approval sends cl and reads its answer as an Approval, keeping the raw text.
func (c *Client) approval(ctx context.Context, cl call) (Approval, error) {
	var raw json.RawMessage
	if err := c.do(ctx, cl, &raw); err != nil {
		return Approval{}, err
	}
	var a Approval
	if err := json.Unmarshal(raw, &a); err != nil {
		return Approval{}, fmt.Errorf("%s %s: the answer is not an approval request: %w", cl.method, cl.path, err)
	}
	a.Raw = raw
	return a, nil
}

// CreateApproval submits sub (an approval.Submission, or anything that encodes as one) to the
// gate. created is false when sub's client-chosen "id" named a request that already existed;
// such a submission is idempotent and so is tried again after a broken connection, one without
// an id only when it never reached the server.
func (c *Client) CreateApproval(ctx context.Context, sub any) (a Approval, created bool, err error) {
	body, err := jsonBody(sub)
	if err != nil {
		return Approval{}, false, err
	}
	var status int
	a, err = c.approval(ctx, call{
		method: http.MethodPost, path: "/api/v1/approvals", body: bytes.NewReader(body), ctype: "application/json",
		idempotent: member(body, "id") != "", status: &status,
	})
	return a, status == http.StatusCreated, err
}

// Approval returns the request as it stands.
func (c *Client) Approval(ctx context.Context, id string) (Approval, error) {
	return c.approval(ctx, call{method: http.MethodGet, path: approvalPath(id), idempotent: true})
}

// WaitApproval long-polls the request: it returns as soon as it is decided, or as it stands once
// wait has passed (the server holds a poll for at most 5 minutes; ask again). A poll cut by a
// restarting server is sent again for what is left of wait.
func (c *Client) WaitApproval(ctx context.Context, id string, wait time.Duration) (Approval, error) {
	if wait <= 0 {
		return c.Approval(ctx, id)
	}
	return c.approval(ctx, call{method: http.MethodGet, path: approvalPath(id), idempotent: true, wait: wait})
}

// DecideApproval decides the request the way a person does: decision is an
// approval.DecisionInput ({"action","plan","comment","key"}). With a "key" it is idempotent (the
// same decision again returns the one that won) and is tried again after a broken connection.
// The server records the decision under its own user, whoever calls.
func (c *Client) DecideApproval(ctx context.Context, id string, decision any) (Approval, error) {
	body, err := jsonBody(decision)
	if err != nil {
		return Approval{}, err
	}
	return c.approval(ctx, call{
		method: http.MethodPost, path: approvalPath(id) + "/decision", body: bytes.NewReader(body), ctype: "application/json",
		idempotent: member(body, "key") != "",
	})
}

// ApprovalCount is what the navigation shows: requests waiting at the gate and agents' open
// permission requests, together.
type ApprovalCount struct {
	Pending int    `json:"pending"`
	Seq     uint64 `json:"seq"` // the gate's change number
}

// ApprovalCount counts what waits for a person.
func (c *Client) ApprovalCount(ctx context.Context) (ApprovalCount, error) {
	var n ApprovalCount
	err := c.do(ctx, call{method: http.MethodGet, path: "/api/v1/approvals/count", idempotent: true}, &n)
	return n, err
}

func approvalPath(id string) string { return "/api/v1/approvals/" + url.PathEscape(id) }
