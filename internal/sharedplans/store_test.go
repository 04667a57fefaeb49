package sharedplans

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/testkit"
)

func TestUpsertWritesDockerAgentFile(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	p, err := s.Upsert(ctx, UpsertRequest{Name: "release", Content: strp("Step 1"), Title: strp("Release plan"),
		Author: strp("planner"), Status: strp("draft")})
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{Name: "release", Title: "Release plan", Content: "Step 1", Author: "planner", Status: "draft", Revision: 1, UpdatedAt: fixedStamp}
	if p != want {
		t.Fatalf("got %+v, want %+v", p, want)
	}
	path := filepath.Join(s.Dir(), "release.json")
	wantBytes := "{\n  \"name\": \"release\",\n  \"title\": \"Release plan\",\n  \"content\": \"Step 1\",\n  \"author\": \"planner\",\n  \"status\": \"draft\",\n  \"revision\": 1,\n  \"updatedAt\": \"" + fixedStamp + "\"\n}"
	if got := readRaw(t, path); got != wantBytes {
		t.Errorf("file:\n%s\nwant:\n%s", got, wantBytes)
	}
	if m := mode(t, s.Dir()); m != 0o700 {
		t.Errorf("dir mode %o, want 700", m)
	}
	if m := mode(t, path); m != 0o600 {
		t.Errorf("plan mode %o, want 600", m)
	}
	if m := mode(t, filepath.Join(s.Dir(), LockFileName)); m != 0o600 {
		t.Errorf("lock mode %o, want 600", m)
	}
	entries, _ := os.ReadDir(s.Dir())
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries, want plan and lock only (no temp files left)", len(entries))
	}
}

func TestUpsertRevisionsAndMerge(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	mustWrite(t, s, "p", "one")
	p, err := s.Upsert(ctx, UpsertRequest{Name: "p", Title: strp("T"), Status: strp("s")})
	if err != nil || p.Revision != 2 || p.Content != "one" || p.Title != "T" {
		t.Fatalf("metadata-only upsert: %+v %v", p, err)
	}
	p, err = s.Upsert(ctx, UpsertRequest{Name: "p", Content: strp("two")})
	if err != nil || p.Revision != 3 || p.Title != "T" || p.Status != "s" {
		t.Fatalf("nil fields must keep: %+v %v", p, err)
	}
	p, err = s.Upsert(ctx, UpsertRequest{Name: "p", Title: strp("")})
	if err != nil || p.Title != "" || p.Revision != 4 {
		t.Fatalf("explicit empty must clear: %+v %v", p, err)
	}
	if strings.Contains(readRaw(t, filepath.Join(s.Dir(), "p.json")), "title") {
		t.Error("an empty title must be omitted from the file")
	}
	// Deleting and re-creating starts the revision over.
	if ok, err := s.Delete(ctx, "p", nil); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if p := mustWrite(t, s, "p", "again"); p.Revision != 1 {
		t.Errorf("revision after re-create = %d, want 1", p.Revision)
	}
}

func TestUpsertGuards(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	if _, err := s.Upsert(ctx, UpsertRequest{Name: "p", Content: strp("x"), ExpectedRevision: intp(0)}); err != nil {
		t.Fatalf("guard 0 on a missing plan creates: %v", err)
	}
	_, err := s.Upsert(ctx, UpsertRequest{Name: "p", Content: strp("y"), ExpectedRevision: intp(0)})
	var vc *VersionConflictError
	if !errors.As(err, &vc) || vc.Expected != 0 || vc.Current != 1 || !errors.Is(err, ErrConflict) {
		t.Fatalf("guard 0 on an existing plan: %v", err)
	}
	if _, err := s.Upsert(ctx, UpsertRequest{Name: "q", Content: strp("y"), ExpectedRevision: intp(5)}); !errors.As(err, &vc) || vc.Current != 0 {
		t.Fatalf("guard 5 on a missing plan: %v", err)
	}
	if _, err := s.Upsert(ctx, UpsertRequest{Name: "q", Status: strp("s"), MustExist: true, ExpectedRevision: intp(5)}); err == nil || err.Error() != `plan not found: "q"` || !errors.Is(err, ErrPlanNotFound) {
		t.Fatalf("MustExist reports not found before the guard: %v", err)
	}
	// A hand-written file without a revision reads as 0, yet exists: MustNotExist must refuse it.
	writeRaw(t, s, "hand.json", `{"content":"by hand"}`)
	_, err = s.Upsert(ctx, UpsertRequest{Name: "hand", Content: strp("x"), MustNotExist: true, ExpectedRevision: intp(0)})
	if !errors.As(err, &vc) || vc.Expected != 0 || vc.Current != 0 {
		t.Fatalf("MustNotExist on a revision-0 file: %v", err)
	}
	if got := readRaw(t, filepath.Join(s.Dir(), "hand.json")); got != `{"content":"by hand"}` {
		t.Errorf("a refused write changed the file: %s", got)
	}
}

func TestGetUsesFileNameAsKey(t *testing.T) {
	s := newTestStore(t)
	writeRaw(t, s, "real.json", `{"name":"other","content":"c","revision":7}`)
	p, ok, err := s.Get(context.Background(), "real")
	if err != nil || !ok || p.Name != "real" || p.Revision != 7 {
		t.Fatalf("got %+v %v %v", p, ok, err)
	}
	res, err := s.List(context.Background())
	if err != nil || len(res.Plans) != 1 || res.Plans[0].Name != "real" {
		t.Fatalf("list: %+v %v", res, err)
	}
}

func TestMissingDirectory(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	res, err := s.List(ctx)
	if err != nil || res.Plans == nil || len(res.Plans) != 0 || res.Warnings != nil {
		t.Fatalf("list of a missing dir: %+v %v", res, err)
	}
	if _, ok, err := s.Get(ctx, "p"); ok || err != nil {
		t.Fatalf("get: %v %v", ok, err)
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("reads must not create the directory")
	}
	if ok, err := s.Delete(ctx, "p", nil); ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}
	// Delete's lock step creates the directory and the sentinel, as docker-agent's does.
	if _, err := os.Stat(filepath.Join(s.Dir(), LockFileName)); err != nil {
		t.Fatal(err)
	}
}

func TestDeleteKeepsLockFile(t *testing.T) {
	s := newTestStore(t)
	mustWrite(t, s, "p", "x")
	if ok, err := s.Delete(context.Background(), "p", intp(1)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	entries, _ := os.ReadDir(s.Dir())
	if len(entries) != 1 || entries[0].Name() != LockFileName {
		t.Fatalf("after deleting the last plan: %v", entries)
	}
}

func TestContextErrors(t *testing.T) {
	s := newTestStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Upsert(ctx, UpsertRequest{Name: "p", Content: strp("x")}); err == nil || err.Error() != "context canceled" {
		t.Errorf("upsert: %v", err)
	}
	if _, _, err := s.Get(ctx, "p"); !errors.Is(err, context.Canceled) {
		t.Errorf("get: %v", err)
	}
	// The name is validated before the context, as in docker-agent.
	if _, _, err := s.Get(ctx, "BAD"); !errors.Is(err, ErrInvalid) {
		t.Errorf("get bad name: %v", err)
	}
	if _, err := s.List(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("list: %v", err)
	}
}

// TestWaitsForForeignLock holds the flock on its own descriptor, as a docker-agent process
// would, and checks that a write waits for it instead of going ahead.
func TestWaitsForForeignLock(t *testing.T) {
	s := newTestStore(t)
	mustWrite(t, s, "p", "x")
	f, err := os.OpenFile(filepath.Join(s.Dir(), LockFileName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ok, err := tryLock(f); !ok || err != nil {
		t.Fatal(ok, err)
	}
	_, err = s.Upsert(ctxTimeout(t, 50*time.Millisecond), UpsertRequest{Name: "p", Content: strp("y")})
	if err == nil || err.Error() != "context deadline exceeded" {
		t.Fatalf("write while locked elsewhere: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Upsert(ctxTimeout(t, 10*time.Second), UpsertRequest{Name: "p", Content: strp("z")})
		done <- err
	}()
	time.Sleep(30 * time.Millisecond)
	if err := unlockFile(f); err != nil {
		t.Fatal(err)
	}
	if err := testkit.Recv(t, done, 30*time.Second, "write after the unlock"); err != nil {
		t.Fatal(err)
	}
	if p, _, _ := s.Get(context.Background(), "p"); p.Content != "z" || p.Revision != 2 {
		t.Errorf("after the lock was released: %+v", p)
	}
}

func TestWriteReplacesSymlinkInsteadOfFollowing(t *testing.T) {
	s := newTestStore(t)
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(s.Dir(), "q.json")
	if err := os.WriteFile(target, []byte(`{"content":"elsewhere","revision":4}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(s.Dir(), "p.json")
	if err := os.Symlink("q.json", link); err != nil {
		t.Fatal(err)
	}
	// Reads follow a link to another file of the plans directory, as docker-agent's do (links
	// out of it are refused: TestBadPlanFiles).
	if p, ok, err := s.Get(context.Background(), "p"); !ok || err != nil || p.Content != "elsewhere" {
		t.Fatalf("read through link: %+v %v %v", p, ok, err)
	}
	if p := mustWrite(t, s, "p", "mine"); p.Revision != 5 {
		t.Errorf("revision = %d, want 5", p.Revision)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink != 0 {
		t.Error("the link must be replaced by a regular file")
	}
	if got := readRaw(t, target); got != `{"content":"elsewhere","revision":4}` {
		t.Errorf("the link target was written: %s", got)
	}
}
