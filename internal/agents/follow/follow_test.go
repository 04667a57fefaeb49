//go:build unix

package follow

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lines records what its files said, complete lines only.
type lines struct {
	mu  sync.Mutex
	got map[string][]string
}

type lineParser struct {
	l       *lines
	path    string
	pending []string
}

func (p *lineParser) Line(b []byte, _ int) error {
	p.pending = append(p.pending, string(b))
	return nil
}
func (p *lineParser) Flush(context.Context) error {
	p.l.mu.Lock()
	defer p.l.mu.Unlock()
	p.l.got[filepath.Base(p.path)] = append(p.l.got[filepath.Base(p.path)], p.pending...)
	p.pending = p.pending[:0]
	return nil
}
func (p *lineParser) Saved() Saved { return Saved{} }

func (l *lines) of(name string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.got[name], "|")
}

// TestFollowerDepthAndMatch: a Source's MaxDepth and Match decide what is followed: a matching
// file one level down is, one two levels down and one that does not match are not.
func TestFollowerDepthAndMatch(t *testing.T) {
	dir := t.TempDir()
	l := &lines{got: map[string][]string{}}
	src := Source{Name: "test", StateFile: "test.json", MaxDepth: 1,
		Match: func(rel string) bool { return strings.HasSuffix(rel, ".jsonl") },
		New:   func(path string, _ Saved) Parser { return &lineParser{l: l, path: path} }}
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("p/a.jsonl", "one\ntwo\n")
	write("p/deep/b.jsonl", "deep\n")
	write("p/c.txt", "other\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(dir, src, Options{StateDir: t.TempDir(), Rescan: 50 * time.Millisecond}).Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); l.of("a.jsonl") != "one|two"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a.jsonl: %q", l.of("a.jsonl"))
		}
	}
	time.Sleep(200 * time.Millisecond) // a few rescans
	if l.of("b.jsonl") != "" || l.of("c.txt") != "" {
		t.Errorf("followed what it should not: %q %q", l.of("b.jsonl"), l.of("c.txt"))
	}
}

// TestReadSmall: a small regular file is read; a FIFO, a symlink and a file over the bound are
// refused without blocking.
func TestReadSmall(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("/home/dev/project"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadSmall(ok, 64); err != nil || string(b) != "/home/dev/project" {
		t.Errorf("ReadSmall = %q, %v", b, err)
	}
	if _, err := ReadSmall(ok, 4); err == nil {
		t.Error("a file over the bound was read")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		if _, err := ReadSmall(p, 64); err == nil {
			t.Errorf("%s was read", p)
		}
	}
}
