//go:build unix

package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTaskListsPoll: a session's task list (the files Claude Code 2.1.328 writes, one per task)
// shows as its tasks plan and follows a change; lists named for no session, FIFOs, symlinks
// out of the directory, oversized and broken files show nothing.
func TestTaskListsPoll(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	sid := "86b14d53-28da-4134-a622-10e985944eb4"
	list := filepath.Join(dir, sid)
	put := func(name, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(filepath.Join(list, "1.json"), `{"id":"1","subject":"Write the parser","description":"A tolerant one","activeForm":"Writing the parser","status":"in_progress","blocks":[],"blockedBy":[]}`)
	put(filepath.Join(list, "2.json"), `{"id":"2","subject":"Test it","description":"","activeForm":"Testing it","status":"pending","blocks":[],"blockedBy":["1"]}`)
	put(filepath.Join(list, "3.json"), `{"id":"3","subject":"`+strings.Repeat("x", maxTaskFile)+`"}`)
	put(filepath.Join(list, "4.json"), "\x00\x01 not json")
	put(filepath.Join(outside, "5.json"), `{"id":"5","subject":"outside secret"}`)
	if err := os.Symlink(filepath.Join(outside, "5.json"), filepath.Join(list, "5.json")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(list, "6.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	put(filepath.Join(dir, "my-team", "1.json"), `{"id":"1","subject":"team task"}`)
	other := "00000000-0000-4000-8000-000000000000"
	if err := os.Symlink(outside, filepath.Join(dir, other)); err != nil {
		t.Fatal(err)
	}

	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "h"})
	tl := svc.NewTaskLists(dir, 0, quietLog(), nil)
	tl.poll(context.Background())
	key := SessionKey(sid)
	if got := planSummaryQuiet(p, key, PlanTasks); got != "Writing the parser=in_progress,Test it=pending" {
		t.Fatalf("tasks %q", got)
	}
	list2, _ := p.Sessions(context.Background(), 10)
	if len(list2) != 1 {
		t.Errorf("sessions %+v, want only the session's list", list2)
	}
	put(filepath.Join(list, "1.json"), `{"id":"1","subject":"Write the parser","activeForm":"Writing the parser","status":"completed","blockedBy":[]}`)
	tl.poll(context.Background())
	tl.poll(context.Background())
	d, err := p.Session(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range d.Plans {
		if pl.ID == PlanTasks && pl.Revision != 2 {
			t.Errorf("revision %d, want 2 (one per change)", pl.Revision)
		}
	}
	if got := planSummaryQuiet(p, key, PlanTasks); got != "Write the parser=completed,Test it=pending" {
		t.Errorf("after the change: %q", got)
	}
}

// FuzzTaskFile: any task file decodes or is refused without panicking, and what decodes is
// bounded.
func FuzzTaskFile(f *testing.F) {
	for _, s := range []string{`{"id":"1","subject":"s","status":"pending","blockedBy":[]}`, `{"id":2}`, `{}`, `[]`, `{"id":"1","blockedBy":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tk, ok := DecodeTaskFile(b)
		if !ok {
			return
		}
		if tk.ID == "" || len(tk.ID) > 64 || len(tk.Subject) > 1024+4 || len(tk.Description) > 8<<10+4 || len(tk.BlockedBy) > 256 {
			t.Fatalf("decoded %+v", tk)
		}
	})
}
