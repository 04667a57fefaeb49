package claude

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	approvalsqlite "github.com/plandash/plandash/internal/approval/sqlite"
	"github.com/plandash/plandash/internal/plans"
	planssqlite "github.com/plandash/plandash/internal/plans/sqlite"
)

// The store packages are about to move: these two functions are the only places that name them.

// newPlans is a real plans.Service on a real SQLite file in a temp dir.
func newPlans(t testing.TB) *plans.Service {
	t.Helper()
	st, err := planssqlite.Open(context.Background(), filepath.Join(t.TempDir(), "plans.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return plans.NewService(st, plans.Config{Idle: time.Hour})
}

// newGate is a real approval.Gate on a real SQLite file in a temp dir.
func newGate(t testing.TB) *approval.Gate {
	t.Helper()
	st, err := approvalsqlite.Open(context.Background(), filepath.Join(t.TempDir(), "approvals.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	g, err := approval.New(context.Background(), st, approval.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
