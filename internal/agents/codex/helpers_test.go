package codex

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/plans"
)

// The stores and services the tests run on, from the agents' test kit.
var (
	newPlans = agenttest.Plans
	newGate  = agenttest.Gate
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// planByID returns the session's plan with id, failing when it is missing.
func planByID(t testing.TB, d plans.SessionDetail, id string) plans.Plan {
	t.Helper()
	for _, p := range d.Plans {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("session %s has no plan %q (plans: %+v)", d.Session.ID, id, d.Plans)
	return plans.Plan{}
}
