package postgres

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/store/fault"
)

// TestCauseOf: the server's answers of a restart, a shutdown, a full disk and a full house, and
// a connection that is refused or dropped, are faults that pass by themselves; a statement's own
// error, a missing row and a caller that gave up are not.
func TestCauseOf(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("commit: %w", &pgconn.PgError{Code: code, Message: "m"}) }
	for _, c := range []struct {
		name string
		err  error
		want fault.Cause
	}{
		{"admin shutdown (a restart ends the backends)", pg("57P01"), fault.DatabaseUnavailable},
		{"crash shutdown", pg("57P02"), fault.DatabaseUnavailable},
		{"cannot connect now (starting up)", pg("57P03"), fault.DatabaseUnavailable},
		{"too many connections", pg("53300"), fault.DatabaseUnavailable},
		{"connection failure", pg("08006"), fault.DatabaseUnavailable},
		{"read-only standby", pg("25006"), fault.DatabaseUnavailable},
		{"disk full", pg("53100"), fault.DiskFull},
		{"refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), fault.DatabaseUnavailable},
		{"closed connection", pgconn.ErrConnClosed, fault.DatabaseUnavailable},
		{"unique violation", pg("23505"), ""},
		{"no rows", pgx.ErrNoRows, ""},
		{"the caller gave up", fmt.Errorf("query: %w", context.Canceled), ""},
		{"a domain error", errs.New(errs.Conflict, "taken"), ""},
	} {
		got, ok := causeOf(c.err)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: causeOf = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
	p := &dbPool{health: &fault.Health{}}
	err := p.note(pg("57P01"))
	if errs.KindOf(err) != errs.Unavailable || !errors.Is(err, err) || p.health.Count(fault.DatabaseUnavailable) != 1 || p.health.Failing() == nil {
		t.Fatalf("note: %v (kind %v), count %d", err, errs.KindOf(err), p.health.Count(fault.DatabaseUnavailable))
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57P01" {
		t.Fatalf("the driver's error is not kept for the log: %v", err)
	}
}
