package postgres

import (
	"context"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
	"testing"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/approval/approvaltest"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/permissions/permissionstest"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/plans/planstest"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/sharedplans/historytest"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
	"github.com/plandash/plandash/internal/tokens"
	"github.com/plandash/plandash/internal/tokens/tokenstest"
)

// open opens the database at url, closed when the test ends.
func open(t *testing.T, url string) *DB {
	t.Helper()
	db, err := Open(context.Background(), url, Options{MaxConns: 8})
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

// openFresh opens a database in a schema of its own.
func openFresh(t *testing.T) *DB { return open(t, pgtest.URL(t)) }

func TestPlansContract(t *testing.T) {
	planstest.Run(t, func(t *testing.T) plans.Store { return openFresh(t).Plans() }, func(t *testing.T, s plans.Store) int64 {
		var n int64
		if err := s.(*plansStore).pool.QueryRow(context.Background(), `SELECT COALESCE(SUM(octet_length(body::text)), 0) FROM plan_revisions`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	})
}

func TestApprovalContract(t *testing.T) {
	approvaltest.Run(t, func(t *testing.T) approval.Store { return openFresh(t).Approvals() })
}

func TestHistoryContract(t *testing.T) {
	historytest.Run(t, func(t *testing.T) sharedplans.HistoryStore { return openFresh(t).SharedHistory() })
}

func TestPermissionsContract(t *testing.T) {
	permissionstest.Run(t, func(t *testing.T) permissions.Store { return openFresh(t).Permissions() })
}

func TestWaitsContract(t *testing.T) {
	waitstest.Run(t, func(t *testing.T) waits.Store { return openFresh(t).Waits() })
}

func TestTokensContract(t *testing.T) {
	tokenstest.Run(t, func(t *testing.T) tokens.Store { return openFresh(t).Tokens() })
}
