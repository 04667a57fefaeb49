package codex

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/sqlite"
)

// openDB is a real SQLite file in a temp dir.
func openDB(t testing.TB) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newPlans is a real plans.Service on a real SQLite file.
func newPlans(t testing.TB) *plans.Service {
	t.Helper()
	return plans.NewService(openDB(t).Plans(), plans.Config{Idle: time.Hour})
}

// newGate is a real approval.Gate on a real SQLite file.
func newGate(t testing.TB) *approval.Gate {
	t.Helper()
	g, err := approval.New(context.Background(), openDB(t).Approvals(), approval.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

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
