package web

import (
	"bytes"
	"testing"

	"github.com/plandash/plandash/internal/plans"
)

// FuzzDecodeBody splits arbitrary ingest bodies: no panic, every message is tied to a line that
// exists, and every refused line carries a JSON-RPC error code.
func FuzzDecodeBody(f *testing.F) {
	for _, seed := range []string{
		update("s", planA) + "\n" + "{not json\n",
		"[" + update("s", planA) + "," + update("t", planA) + "]",
		"{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"session/update\"\n}",
		`{"dir":"a2c","ts":"2026-11-21T10:00:00Z","msg":` + update("s", planA) + "}\n",
		"\xff\xfe", "[]", "\n\n\n",
	} {
		f.Add([]byte(seed), 64)
	}
	f.Fuzz(func(t *testing.T, body []byte, maxLine int) {
		if maxLine < 0 || maxLine > 1<<20 {
			maxLine = 0
		}
		items, errs, nerrs, err := decodeBody(body, maxLine)
		if err != nil {
			return // a line over the limit refuses the whole body
		}
		lines := bytes.Count(body, []byte("\n")) + 1
		for _, it := range items {
			if it.Line < 1 || it.Line > lines {
				t.Fatalf("message on line %d of a %d-line body", it.Line, lines)
			}
		}
		if len(errs) > plans.MaxReportedIssues || nerrs < len(errs) {
			t.Fatalf("%d line errors listed of %d", len(errs), nerrs)
		}
		for _, e := range errs {
			if e.Code != -32700 && e.Code != -32600 || e.Message == "" || e.Line < 1 {
				t.Fatalf("line error %+v", e)
			}
		}
	})
}
