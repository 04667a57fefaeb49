package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
)

// IngestOptions are the query of POST /api/v1/ingest.
type IngestOptions struct {
	// Stream names the connection: posts with the same stream are one conversation, so a
	// request in one post and its response in the next are paired. "" is a one-off stream.
	Stream string
	// Agent is the agent's name until an initialize response in the traffic names it.
	Agent string
}

// IngestResult is the server's answer to an ingest post.
type IngestResult struct {
	Applied      int         `json:"applied"`
	Errors       []LineIssue `json:"errors"`     // the first ones
	ErrorCount   int         `json:"errorCount"` // all of them
	Warnings     []LineIssue `json:"warnings,omitempty"`
	WarningCount int         `json:"warningCount,omitempty"`
}

// LineIssue is a line of the posted body that was refused, or applied with a warning.
type LineIssue struct {
	Line    int    `json:"line"`
	Code    int    `json:"code"` // a JSON-RPC error code
	Message string `json:"message"`
}

// Ingest posts ACP traffic: one JSON-RPC message, a JSON array of them, or NDJSON (messages or
// recorded-transcript envelopes). When nothing could be applied the server answers 400 with the
// per-line errors: Ingest then returns them in the result and an *Error with status 400.
//
// A post is not idempotent (the same frames twice are applied twice), so it is tried again only
// when it never reached the server, and only when body can be read again (a *bytes.Reader,
// *bytes.Buffer or *strings.Reader).
func (c *Client) Ingest(ctx context.Context, body io.Reader, o IngestOptions) (IngestResult, error) {
	q := url.Values{}
	if o.Stream != "" {
		q.Set("stream", o.Stream)
	}
	if o.Agent != "" {
		q.Set("agent", o.Agent)
	}
	var res IngestResult
	err := c.do(ctx, call{
		method: http.MethodPost, path: "/api/v1/ingest", query: q, body: body, ctype: "application/x-ndjson",
		keepBody: func(status int) bool { return status == http.StatusBadRequest },
	}, &res)
	return res, err
}
