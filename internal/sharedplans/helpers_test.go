package sharedplans

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixedNow is the clock every test store uses, so expected outputs can be written out in full.
var fixedNow = time.Date(2026, 7, 28, 12, 34, 56, 789, time.FixedZone("CEST", 2*3600))

const fixedStamp = "2026-07-28T10:34:56Z"

// newTestStore returns a store in a fresh directory that does not exist yet, as on a first run.
func newTestStore(t testing.TB) *Store {
	t.Helper()
	return New(filepath.Join(t.TempDir(), "plans"), WithClock(func() time.Time { return fixedNow }))
}

func intp(i int) *int { return &i }

func strp(s string) *string { return &s }

func writeRaw(t testing.TB, s *Store, file, data string) {
	t.Helper()
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), file), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readRaw(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustWrite(t testing.TB, s *Store, name, content string) Plan {
	t.Helper()
	p, err := s.Upsert(context.Background(), UpsertRequest{Name: name, Content: &content})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mode(t testing.TB, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
