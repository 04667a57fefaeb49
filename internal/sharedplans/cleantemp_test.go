package sharedplans

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"
)

func TestCleanTemp(t *testing.T) {
	old, fresh := fixedNow.Add(-2*TempMaxAge), fixedNow.Add(-TempMaxAge/2)
	cases := []cleanCase{
		{file: "plan-1.json1060709153", mtime: old, gone: true},
		{file: "plan-2.json4294967295", mtime: old, gone: true},
		{file: "db_migration.json0", mtime: old, gone: true},
		{file: "plan-3.json123", mtime: fresh},                     // a write may be in progress
		{file: "plan-4.json123", mtime: fixedNow.Add(-TempMaxAge)}, // exactly a minute: not older
		{file: "plan-5.json123", mtime: fixedNow.Add(time.Hour)},   // from the future: keep
		{file: "plan-1.json", mtime: old},                          // the plan itself
		{file: LockFileName, mtime: old},                           // never deleted
		{file: "plan-1.json12345678901", mtime: old},               // 11 digits: not a uint32
		{file: "plan-1.json12a", mtime: old},                       // not only digits
		{file: "plan-1.json123.bak", mtime: old},                   // a suffix after the digits
		{file: "plan-1.json.tmp", mtime: old},                      // someone else's temp file
		{file: "plan-1.jsonx", mtime: old},                         // no digits
		{file: "Plan.json123", mtime: old},                         // not a plan name
		{file: ".json123", mtime: old},                             // no name at all
		{file: "-x.json123", mtime: old},                           // name cannot start with '-'
		{file: "notes.txt123", mtime: old},                         // not a plan's temp file
		{file: ".atomic-123", mtime: old},                          // Windows temp: out of scope
		{file: "plan-1.json 123", mtime: old},                      // a space
		{file: "dir.json123", kind: "dir", mtime: old},             // directories are never removed
		{file: "link.json123", kind: "symlink", mtime: old},        // symlinks are never removed
	}
	s := newTestStore(t)
	if got, err := s.CleanTemp(context.Background()); err != nil || got != nil {
		t.Fatalf("missing directory: %v %v", got, err)
	}
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "target.json123")
	if err := os.WriteFile(outside, []byte("target"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(outside, old, old); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tc := range cases {
		path := filepath.Join(s.Dir(), tc.file)
		var err error
		switch tc.kind {
		case "dir":
			err = os.Mkdir(path, 0o700)
		case "symlink":
			err = os.Symlink(outside, path)
		default:
			err = os.WriteFile(path, []byte("{}"), 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
		if tc.kind != "symlink" {
			if err := os.Chtimes(path, tc.mtime, tc.mtime); err != nil {
				t.Fatal(err)
			}
		}
		if tc.gone {
			want = append(want, tc.file)
		}
	}

	got, err := s.CleanTemp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	for _, tc := range cases {
		_, err := os.Lstat(filepath.Join(s.Dir(), tc.file))
		if exists := err == nil; exists == tc.gone {
			t.Errorf("%s (%s): exists %v after CleanTemp (err %v)", tc.file, tc.kind, exists, err)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the symlink's target was touched: %v", err)
	}
	// A second run finds nothing more to do.
	if got, err := s.CleanTemp(context.Background()); err != nil || len(got) != 0 {
		t.Errorf("second run: %v %v", got, err)
	}
}

type cleanCase struct {
	file  string
	kind  string // "file" (default), "dir" or "symlink"
	mtime time.Time
	gone  bool
}

var tempNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*\.json[0-9]{1,10}$`)

// FuzzIsTempName checks the byte loop against the pattern it implements: CleanTemp deletes what
// it accepts, so it must accept nothing more.
func FuzzIsTempName(f *testing.F) {
	for _, s := range []string{"plan-1.json123", "p.json", ".json1", "a.json12345678901", "a.json.json1", "a.jsonjson1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := isTempName(name), tempNameRE.MatchString(name); got != want {
			t.Fatalf("isTempName(%q) = %v, pattern says %v", name, got, want)
		}
	})
}
