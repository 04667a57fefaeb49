package plans_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/plans"
)

// gatedStore is the real store with its first Commit held until the test opens the gate, so
// that the other posters are sure to queue behind it; it counts commits.
type gatedStore struct {
	plans.Store
	gate    chan struct{}
	once    sync.Once
	commits atomic.Int64
}

func (g *gatedStore) Commit(ctx context.Context, c *plans.Changes) error {
	g.once.Do(func() { <-g.gate })
	g.commits.Add(1)
	return g.Store.Commit(ctx, c)
}

func items(t testing.TB, lines ...string) []plans.Item {
	t.Helper()
	var out []plans.Item
	for i, l := range lines {
		msgs, err := acp.DecodeLine([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, m := range msgs {
			out = append(out, plans.Item{Line: i + 1, Msg: m})
		}
	}
	return out
}

// TestConcurrentPostersShareCommits has 50 posters, each posting 10 updates of its own plan and
// of one plan they all share. Every acknowledged revision must be stored exactly once, in the
// order each poster posted it, and survive reopening the file; and the posters must have shared
// commits.
func TestConcurrentPostersShareCommits(t *testing.T) {
	const posters, posts = 50, 10
	e := newEnv(t)
	g := &gatedStore{Store: e.store, gate: make(chan struct{})}
	svc := plans.NewService(g, plans.Config{})
	var started, wg sync.WaitGroup
	errs := make(chan error, posters*posts)
	started.Add(posters)
	for p := range posters {
		// Decoded here: a goroutine must not fail the test itself.
		var batches [][]plans.Item
		for i := range posts {
			entry := fmt.Sprintf("pending:p%02d-%02d", p, i)
			batches = append(batches, items(t, upd(fmt.Sprintf("s%02d", p), v1(entry)), upd("shared", v1(entry))))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			for i, batch := range batches {
				res, err := svc.Apply(context.Background(), plans.NewStream(), batch)
				if err == nil && (res.Applied != 2 || len(res.Errors) > 0) {
					err = fmt.Errorf("poster %d post %d: %+v", p, i, res)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	started.Wait()
	close(g.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := g.commits.Load(); n >= posters*posts {
		t.Fatalf("%d posts took %d commits: none were shared", posters*posts, n)
	}
	t.Logf("%d posts in %d commits", posters*posts, g.commits.Load())

	// Reopened, the file has every acknowledged revision once, numbered 1…n without gaps.
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}
	e.open()
	ctx := context.Background()
	entryOf := func(r plans.Revision) string { return r.Plan.Entries[0].Content }
	shared, err := e.svc.History(ctx, "shared", "main")
	if err != nil || len(shared) != posters*posts {
		t.Fatalf("shared plan: %d revisions, %v; want %d", len(shared), err, posters*posts)
	}
	var seen []string
	last := map[string]string{}
	for i, r := range shared {
		if r.Revision != i+1 {
			t.Fatalf("shared revision %d is numbered %d", i+1, r.Revision)
		}
		c := entryOf(r)
		poster := c[:3]
		if c <= last[poster] {
			t.Fatalf("shared plan: %s after %s, out of its poster's order", c, last[poster])
		}
		last[poster] = c
		seen = append(seen, c)
	}
	slices.Sort(seen)
	if len(slices.Compact(seen)) != posters*posts {
		t.Fatal("the shared plan has a revision twice")
	}
	for p := range posters {
		hist, err := e.svc.History(ctx, fmt.Sprintf("s%02d", p), "main")
		if err != nil || len(hist) != posts {
			t.Fatalf("poster %d: %d revisions, %v", p, len(hist), err)
		}
		for i, r := range hist {
			if want := fmt.Sprintf("p%02d-%02d", p, i); r.Revision != i+1 || entryOf(r) != want {
				t.Fatalf("poster %d revision %d = %d %q, want %q", p, i+1, r.Revision, entryOf(r), want)
			}
		}
	}
}

// TestCancelledPosterDoesNotCancelOthers: a poster whose context is already cancelled either
// gets its error before anything is stored, or its outcome; the others commit regardless.
func TestCancelledPosterDoesNotCancelOthers(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.svc.Apply(ctx, plans.NewStream(), items(t, upd("gone", v1("pending:x"))))
	if err == nil {
		// It led its own commit before seeing the cancellation: then it must be stored.
		e.plan("gone", "main")
	} else if !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("Apply with a cancelled context = %v", err)
	}
	e.apply(upd("kept", v1("pending:y")))
	if p := e.plan("kept", "main"); p.Revision != 1 {
		t.Fatalf("revision %d", p.Revision)
	}
}
