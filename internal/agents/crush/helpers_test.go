package crush

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
)

var newPlans = agenttest.Plans

func captured(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "captured", name+"_PreToolUse.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// onlySession returns the one session p holds.
func onlySession(t *testing.T, p *plans.Service) plans.SessionDetail {
	t.Helper()
	ctx := context.Background()
	list, err := p.Sessions(ctx, 10)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions: %+v %v", list, err)
	}
	d, err := p.Session(ctx, list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var newDB = agenttest.SQLite

// awaitQuestion waits for the open question a Handle in another goroutine began.
func awaitQuestion(t *testing.T, a *waits.Asked) waits.Record {
	t.Helper()
	return waitstest.AwaitOpen(t, a, waits.KindQuestion, nil)
}
