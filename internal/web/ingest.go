package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// IngestResult is the answer to POST /api/v1/ingest. Errors and Warnings list the first
// plans.MaxReportedIssues, in line order; the counts say how many there were in all.
type IngestResult struct {
	Applied      int               `json:"applied"`
	Errors       []plans.ItemError `json:"errors"`
	ErrorCount   int               `json:"errorCount"`
	Warnings     []plans.ItemError `json:"warnings,omitempty"`
	WarningCount int               `json:"warningCount,omitempty"`
}

// ingest serves POST /api/v1/ingest: one JSON-RPC message, a JSON array of them, or NDJSON.
// Requests that share ?stream=ID are one connection: a session/new in one post and its response
// in the next are paired.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody), r.ContentLength, s.cfg.MaxBody)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			err = errs.Errorf(errs.TooLarge, "the request body is over the %s limit (--max-body); split the transcript into several posts", sizeText(s.cfg.MaxBody))
		}
		writeProblem(w, r, s.log, err)
		return
	}
	items, lineErrs, lineErrCount, err := decodeBody(body, s.cfg.MaxLine)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	s.metrics.CountIngest(items)
	st := s.streams.Get(r.URL.Query().Get("stream"))
	if agent := r.URL.Query().Get("agent"); agent != "" {
		st.SetAgent(agent)
	}
	res, err := s.plans.Apply(r.Context(), st.Stream, items)
	st.Done()
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	out := IngestResult{Applied: res.Applied, Errors: plans.MergeIssues(lineErrs, res.Errors), ErrorCount: lineErrCount + res.ErrorCount,
		Warnings: res.Warnings, WarningCount: res.WarningCount}
	if out.Errors == nil {
		out.Errors = []plans.ItemError{}
	}
	code := http.StatusOK
	if out.Applied == 0 && out.ErrorCount > 0 {
		code = http.StatusBadRequest
	}
	writeJSON(w, code, out)
}

// presized is the most readBody reserves from what the request's Content-Length says before
// any of the body has come: a client must send that much before the rest of what it announced
// is reserved, so one that announces more than it sends holds little it did not send.
const presized = 1 << 20

// readBody reads a request's body, of at most limit bytes (r enforces it), into one buffer sized
// from its Content-Length (size, -1 when unknown). io.ReadAll starts at 512 bytes and grows by copying: for a post of ten
// messages (4.7 KB) it allocated 11 KB, a tenth of all the server allocated for the post, and
// a small heap is collected as often as it fills. A body over presized grows once, to the
// announced size: bytes.Buffer, doubling from its start until the body fit, allocated 8 MB
// (cleared, much of it fresh pages) for each 2 MB post of the proxy's tap, half of everything
// the server allocated for the post.
func readBody(r io.Reader, size, limit int64) ([]byte, error) {
	size = min(size, limit)
	// One byte more than the body, so the read that finds its end has room to be made.
	room := bytes.MinRead
	if size > 0 {
		room = int(min(size, presized)) + 1
	}
	buf := make([]byte, 0, room)
	for {
		if len(buf) == cap(buf) {
			room = 2 * cap(buf) // past what was announced, or with nothing announced
			if int64(len(buf)) < size {
				room = int(size) + 1
			}
			buf = append(make([]byte, 0, room), buf...)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// presizedItems is the most messages decodeBody makes room for before it decodes any.
const presizedItems = 1024

// decodeBody splits a body into messages. A body that is one JSON value (even pretty-printed
// over many lines) is one line; otherwise it is NDJSON. A line over maxLine refuses the whole
// body, so nothing is half-applied. Of the lines that are not messages it returns the first
// plans.MaxReportedIssues and how many there were.
func decodeBody(body []byte, maxLine int) ([]plans.Item, []plans.ItemError, int, error) {
	// A line is usually one message: room for each, instead of growing by copying; up to
	// presizedItems, so that a body of blank lines does not reserve room for millions.
	items := make([]plans.Item, 0, min(bytes.Count(body, []byte{'\n'})+1, presizedItems))
	var bad []plans.ItemError
	nbad := 0
	add := func(line int, b []byte) {
		msgs, err := acp.DecodeLine(b)
		if err != nil {
			bad = plans.AddIssue(bad, &nbad, lineError(line, err))
			return
		}
		for _, m := range msgs {
			items = append(items, plans.Item{Line: line, Msg: m})
		}
	}
	if t := bytes.TrimSpace(body); len(t) > 0 && (t[0] == '[' || t[0] == '{') && bytes.IndexByte(t, '\n') >= 0 && acp.Valid(t) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, t); err == nil {
			add(1, buf.Bytes())
			return items, bad, nbad, nil
		}
	}
	err := acp.DecodeStream(bytes.NewReader(body), maxLine, func(n int, msgs []acp.Message, le *acp.LineError) error {
		if le != nil && le.TooLong {
			return errs.Errorf(errs.TooLarge, "line %d is over the %s line limit (--max-line)", n, sizeText(int64(maxLine)))
		}
		if le != nil { // a line in error is not applied, not even a batch's good elements
			bad = plans.AddIssue(bad, &nbad, lineError(n, le))
			return nil
		}
		for _, m := range msgs {
			items = append(items, plans.Item{Line: n, Msg: m})
		}
		return nil
	})
	if err != nil {
		return nil, nil, 0, err
	}
	return items, bad, nbad, nil
}

func lineError(line int, err error) plans.ItemError {
	var le *acp.LineError
	if errors.As(err, &le) {
		return plans.ItemError{Line: line, Code: le.Code, Message: le.Message}
	}
	return plans.ItemError{Line: line, Code: acp.CodeParseError, Message: err.Error()}
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
