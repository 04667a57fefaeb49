package sqlite

import (
	"context"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
	"path/filepath"
	"testing"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/approval/approvaltest"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/plans/planstest"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/sharedplans/historytest"
	"github.com/plandash/plandash/internal/tokens"
	"github.com/plandash/plandash/internal/tokens/tokenstest"
)

// openTemp opens a fresh database file in a temporary directory, closed when the test ends.
func openTemp(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return db
}

func TestPlansContract(t *testing.T) {
	planstest.Run(t, func(t *testing.T) plans.Store { return openTemp(t).Plans() }, func(t *testing.T, s plans.Store) int64 {
		var n int64
		if err := s.(*plansStore).w.QueryRow(`SELECT COALESCE(SUM(length(CAST(body AS BLOB))), 0) FROM plan_revisions`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	})
}

func TestApprovalContract(t *testing.T) {
	approvaltest.Run(t, func(t *testing.T) approval.Store { return openTemp(t).Approvals() })
}

func TestHistoryContract(t *testing.T) {
	historytest.Run(t, func(t *testing.T) sharedplans.HistoryStore { return openTemp(t).SharedHistory() })
}

func TestWaitsContract(t *testing.T) {
	waitstest.Run(t, func(t *testing.T) waits.Store { return openTemp(t).Waits() })
}

func TestTokensContract(t *testing.T) {
	tokenstest.Run(t, func(t *testing.T) tokens.Store { return openTemp(t).Tokens() })
}
