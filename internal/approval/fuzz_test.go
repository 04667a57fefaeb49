package approval_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/dag"
)

// FuzzSubmit feeds the gate request bodies as agents send them: decoding and validation either
// accept the request or refuse it with an error, never panic, and an accepted request can be
// read back as submitted.
func FuzzSubmit(f *testing.F) {
	for _, seed := range []string{
		`{"title":"Deploy","plan":{"type":"items","entries":[{"content":"a","priority":"high","status":"pending"}]}}`,
		`{"title":"Doc","plan":{"type":"markdown","content":"# Plan"},"timeout":"90s","default":"approve"}`,
		`{"title":"Flow","plan":{"type":"_dag","calls":[{"_tool":"x","_outputPath":"†state.a"},{"_tool":"y","in":"†state.a"}]}}`,
		`{"id":"mine","title":"x","plan":{"type":"items","entries":[]},"options":["approve","reject"],"deadline":"2030-01-01T00:00:00Z"}`,
		`{"title":"","plan":{"type":"nope"}}`, `[]`, `{"plan":null}`, `{"timeout":-5}`,
	} {
		f.Add([]byte(seed))
	}
	st := openStore(f, f.TempDir())
	g, err := approval.New(context.Background(), st.Approvals(), approval.Config{ValidateDAG: func(raw json.RawMessage) error {
		_, err := dag.Parse(raw)
		return err
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var sub approval.Submission
		if json.Unmarshal(body, &sub) != nil {
			return
		}
		sub.ID = "" // ids are the client's retry key: fresh ones keep iterations independent
		req, _, err := g.Submit(context.Background(), sub)
		if err != nil {
			return
		}
		got, err := g.Get(context.Background(), req.ID)
		if err != nil || got.ID != req.ID || got.Title != req.Title {
			t.Fatalf("accepted request %q did not read back: %+v, %v", req.ID, got, err)
		}
	})
}
