package qwen

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/plans"
)

// The stores and services the tests run on, from the agents' test kit.
var (
	newPlans = agenttest.Plans
	newGate  = agenttest.Gate
)

// captured returns the payloads the real Qwen Code sent in one captured run
// (testdata/captured/RUN.jsonl, one event a line), in the order it sent them.
func captured(t testing.TB, run string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "captured", run+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for line := range strings.Lines(string(b)) {
		if strings.TrimSpace(line) != "" {
			out = append(out, []byte(line))
		}
	}
	return out
}

// checkTodos finds the one Qwen Code session p holds and checks its todo list is the one the
// captures and the real-CLI tests write, and that it names host.
func checkTodos(t *testing.T, p *plans.Service, host string) {
	t.Helper()
	ctx := context.Background()
	list, err := p.Sessions(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || !strings.HasPrefix(list[0].ID, SessionPrefix) {
		t.Fatalf("sessions: %+v", list)
	}
	d, err := p.Session(ctx, list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Session.Agent != AgentName || !strings.HasSuffix(d.Session.Cwd, "/project") || d.Session.Host != host {
		t.Errorf("session: %+v", d.Session)
	}
	if len(d.Plans) != 1 || d.Plans[0].ID != PlanTodos || d.Plans[0].Kind != plans.KindItems {
		t.Fatalf("plans: %+v", d.Plans)
	}
	var got []string
	for _, e := range d.Plans[0].Entries {
		got = append(got, e.Content+"="+e.Status)
	}
	want := []string{"Read the parser=completed", "Write the tokenizer=in_progress", "Fuzz it=pending"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
}
