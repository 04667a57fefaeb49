package fault

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// TestHealth: a storage fault is remembered until the store writes again and counted by
// cause; any other error passes through untouched and unrecorded.
func TestHealth(t *testing.T) {
	var h Health
	if h.Failing() != nil {
		t.Fatal("a new Health is failing")
	}
	other := errs.New(errs.Conflict, "taken")
	if err := h.Note(other); err != other || h.Failing() != nil {
		t.Fatalf("a domain error was taken for a fault: %v, failing %v", err, h.Failing())
	}
	full := &Error{Cause: DiskFull, Err: syscall.ENOSPC}
	if err := h.Note(full); err != full {
		t.Fatalf("Note changed the error: %v", err)
	}
	h.Note(&Error{Cause: DatabaseUnavailable, Err: syscall.ECONNREFUSED})
	h.Note(&Error{Cause: DatabaseUnavailable, Err: syscall.ECONNRESET})
	if h.Count(DiskFull) != 1 || h.Count(DatabaseUnavailable) != 2 || h.Count(DiskError) != 0 {
		t.Fatalf("counts %d %d %d", h.Count(DiskFull), h.Count(DatabaseUnavailable), h.Count(DiskError))
	}
	var f *Error
	if !errors.As(h.Failing(), &f) || f.Cause != DatabaseUnavailable {
		t.Fatalf("failing with %v, want the last fault", h.Failing())
	}
	h.Recovered()
	if h.Failing() != nil || h.Count(DatabaseUnavailable) != 2 {
		t.Fatal("Recovered must clear the failure and keep the counts")
	}
}

// TestError: a fault is an Unavailable domain error whose message starts with its cause, keeps
// the driver's error for logs, and asks a client to wait longer for a full disk.
func TestError(t *testing.T) {
	for _, c := range Causes() {
		e := &Error{Cause: c, Err: syscall.EIO}
		if errs.KindOf(e) != errs.Unavailable || !strings.HasPrefix(e.Error(), string(c)+":") || !errors.Is(e, syscall.EIO) {
			t.Errorf("%s: kind %v, message %q", c, errs.KindOf(e), e.Error())
		}
		if strings.ContainsAny(c.Label(), " -") {
			t.Errorf("label %q is not a metric label value of the usual shape", c.Label())
		}
	}
	if (&Error{Cause: DiskFull}).RetryAfter() <= (&Error{Cause: DatabaseUnavailable}).RetryAfter() {
		t.Error("a full disk should ask for a longer wait than a database restart")
	}
	if d := (&Error{Cause: DatabaseUnavailable}).RetryAfter(); d < time.Second {
		t.Errorf("RetryAfter %v: below the header's one-second resolution", d)
	}
}
