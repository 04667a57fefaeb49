package agenttest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/sqlite"
)

// SQLite is a real SQLite file in a temp dir, closed when the test ends.
func SQLite(t testing.TB) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Plans is a real plans.Service on a real SQLite file.
func Plans(t testing.TB) *plans.Service {
	t.Helper()
	return plans.NewService(SQLite(t).Plans(), plans.Config{Idle: time.Hour})
}

// Gate is a real approval.Gate on a real SQLite file.
func Gate(t testing.TB) *approval.Gate {
	t.Helper()
	g, err := approval.New(context.Background(), SQLite(t).Approvals(), approval.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
