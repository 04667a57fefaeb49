package cline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/acp"
)

// FuzzDecode: any payload either fails to decode with an error that says it is Cline's payload
// that is wrong, or translates into valid ACP of bounded size.
func FuzzDecode(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"hookName":"tool_result","taskId":"t","tool_result":{"id":"1","name":"editor","input":{"path":"/x"},"error":"boom"}}`))
	f.Add([]byte(`{"hookName":"prompt_submit","taskId":"t","userPromptSubmit":{"prompt":"hi"}}`))
	f.Add([]byte(`{"hookName":"agent_error","taskId":"t","error":{"message":"x"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := Decode(body)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "cline hook payload") {
				t.Fatalf("error does not say where: %v", err)
			}
			return
		}
		total := 0
		for _, m := range Translate(ev, State{Announce: true, Host: "h", PlanState: "proposed", Plan: ev.Plan}) {
			total += len(m)
			if !json.Valid(m) {
				t.Fatalf("translated line is not JSON: %q", m)
			}
			if _, err := acp.DecodeLine(m); err != nil {
				t.Fatalf("translated line does not decode: %v", err)
			}
		}
		if total > 3*maxPlan+64<<10 {
			t.Fatalf("translation of %d bytes is %d bytes", len(body), total)
		}
	})
}

// FuzzPlanFromMessages: any messages file yields a bounded plan or none, never a panic.
func FuzzPlanFromMessages(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "messages.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"messages":[{"role":"assistant","content":[{"type":"text","text":"x"}]},{"role":"user","content":[{"type":"tool_result"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if p := PlanFromMessages(b); len(p) > maxPlan+8 {
			t.Fatalf("plan of %d bytes", len(p))
		}
		_ = LastMode(b)
	})
}
