package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// maxErrorBody bounds the body of an error answer kept in memory; maxDetail bounds the part of a
// body that is not a problem document shown as Detail (a proxy's HTML error page, say).
const (
	maxErrorBody = 64 << 10
	maxDetail    = 300
)

// Error is an answer of the server outside 2xx. The server sends RFC 9457 problem documents
// ({"title","status","detail"}); anything else (a reverse proxy's page) becomes Detail, cut short.
type Error struct {
	Method string // GET, POST…
	Server string // the base URL called
	Route  string // the path called, without its query
	Status int    // the HTTP status
	Title  string // the problem's title, else the status text
	Detail string // the problem's detail, else the start of the body
	// RetryAfter is the server's Retry-After (on a 503 while it shuts down); -1 when it sent none.
	RetryAfter time.Duration
	// Body is the answer's body, at most 64 KiB: a 409 on an approval carries the request as it
	// stands, a 400 on ingest the per-line errors.
	Body []byte
}

// Error says what failed and where: "POST /api/v1/approvals at http://127.0.0.1:7420: 400 Bad
// Request: the plan has no steps".
func (e *Error) Error() string {
	msg := fmt.Sprintf("%s %s at %s: %d %s", e.Method, e.Route, e.Server, e.Status, e.Title)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// StatusOf is err's HTTP status when it is an *Error, else 0.
func StatusOf(err error) int {
	if e, ok := errAs[*Error](err); ok {
		return e.Status
	}
	return 0
}

// problem is the RFC 9457 body the server sends with every error.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// readError turns a non-2xx answer into an *Error, reading at most maxErrorBody of its body.
func readError(method, server, route string, resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &Error{Method: method, Server: server, Route: route, Status: resp.StatusCode, Body: body, RetryAfter: -1}
	if resp.StatusCode == http.StatusServiceUnavailable {
		e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	var p problem
	if isJSON(resp.Header.Get("Content-Type")) && json.Unmarshal(body, &p) == nil && (p.Title != "" || p.Detail != "") {
		e.Title, e.Detail = clean(p.Title, maxDetail), clean(p.Detail, maxErrorBody)
	} else {
		e.Detail = clean(string(bytes.TrimSpace(body)), maxDetail)
	}
	if e.Title == "" {
		e.Title = http.StatusText(resp.StatusCode)
	}
	return e
}

// isJSON reports whether a Content-Type is JSON: application/json, application/problem+json.
func isJSON(ctype string) bool {
	mt, _, err := mime.ParseMediaType(ctype)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// clean makes s fit a one-line message: valid UTF-8, no control characters, at most n bytes.
func clean(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
