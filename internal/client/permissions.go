package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// The calls of /api/v1/proxy/…, where `plandash acp --approvals=both|dashboard` meets the
// dashboard. The server keeps offers in memory only: a proxy offers its open requests again after
// any failure to reach it, which is why the proxy calls these through a client without retries
// (a poll retried across a server restart would never learn the offers were lost).

// Outcome is the answer to an agent's permission request, as ACP's RequestPermissionOutcome.
type Outcome struct {
	Outcome  string `json:"outcome"`            // selected or cancelled
	OptionID string `json:"optionId,omitempty"` // the option chosen, when selected
	// Feedback is what the person said with a rejection; the proxy sends it in _meta.
	Feedback string `json:"feedback,omitempty"`
}

// PermissionOffer is an agent's permission request that a proxy shows on the dashboard.
type PermissionOffer struct {
	Stream    string          `json:"stream"` // the proxy's connection
	ID        json.RawMessage `json:"id"`     // the agent's request id, as sent
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"` // as sent: the tool call, the options, _meta
	InIDE     bool            `json:"inIde"`  // the IDE was asked too
}

// PermissionEnd says who ended an offered request, and what the agent was told.
type PermissionEnd struct {
	Stream  string          `json:"stream"`
	ID      json.RawMessage `json:"id"`
	By      string          `json:"by"`                // ide, dashboard, agent or proxy
	Outcome *Outcome        `json:"outcome,omitempty"` // nil when the agent was told nothing
}

// PermissionAnswer is the dashboard's answer to one request, as its proxy fetches it.
type PermissionAnswer struct {
	ID      json.RawMessage `json:"id"`
	Outcome Outcome         `json:"outcome"`
	By      string          `json:"by,omitempty"` // who answered
}

// Permission is an offered request as the server lists it.
type Permission struct {
	PermissionOffer
	Offered    time.Time `json:"offered"`
	Answered   bool      `json:"answered,omitempty"` // on its way to the proxy
	ResolvedBy string    `json:"resolvedBy,omitempty"`
	Outcome    *Outcome  `json:"outcome,omitempty"`
	Resolved   time.Time `json:"resolved,omitzero"`
}

// OfferPermission shows a request on the dashboard. Offering it again resets it (an answer lost
// on the way can be given again), so it is idempotent.
func (c *Client) OfferPermission(ctx context.Context, o PermissionOffer) error {
	return c.postJSON(ctx, "/api/v1/proxy/permissions", o, true, nil)
}

// EndPermission tells the dashboard an offered request ended. Only the first end counts, so it is
// idempotent.
func (c *Client) EndPermission(ctx context.Context, e PermissionEnd) error {
	return c.postJSON(ctx, "/api/v1/proxy/permissions/resolved", e, true, nil)
}

// AnswerPermission answers a request as the dashboard's inbox does. The first answer wins; a
// second is a 409, so it is not tried again once it may have arrived.
func (c *Client) AnswerPermission(ctx context.Context, stream string, id json.RawMessage, o Outcome) error {
	body := struct {
		Stream  string          `json:"stream"`
		ID      json.RawMessage `json:"id"`
		Outcome Outcome         `json:"outcome"`
	}{stream, id, o}
	return c.postJSON(ctx, "/api/v1/proxy/permissions/answer", body, false, nil)
}

// PermissionAnswers long-polls the answers for stream: as soon as there are any, or none once
// wait has passed (the server holds a poll for at most a minute). Fetched answers are gone from
// the server.
func (c *Client) PermissionAnswers(ctx context.Context, stream string, wait time.Duration) ([]PermissionAnswer, error) {
	var out []PermissionAnswer
	cl := call{method: http.MethodGet, path: "/api/v1/proxy/answers", query: url.Values{"stream": {stream}}, idempotent: true, wait: wait}
	if wait <= 0 {
		cl.query.Set("wait", "0s")
	}
	err := c.do(ctx, cl, &out)
	return out, err
}

// Permissions lists the offered requests, open ones first.
func (c *Client) Permissions(ctx context.Context) ([]Permission, error) {
	var out []Permission
	err := c.do(ctx, call{method: http.MethodGet, path: "/api/v1/proxy/permissions", idempotent: true}, &out)
	return out, err
}

// postJSON posts v as JSON and decodes the answer into out (nil: none expected).
func (c *Client) postJSON(ctx context.Context, path string, v any, idempotent bool, out any) error {
	body, err := jsonBody(v)
	if err != nil {
		return err
	}
	return c.do(ctx, call{method: http.MethodPost, path: path, body: bytes.NewReader(body), ctype: "application/json", idempotent: idempotent}, out)
}
