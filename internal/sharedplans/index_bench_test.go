package sharedplans

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSharedList10000 is one page of /shared and the overview's strip with 10,000 plan
// files: from the watcher's index, against the directory scan each request made before.
func BenchmarkSharedList10000(b *testing.B) {
	s := New(filepath.Join(b.TempDir(), "plans"))
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		b.Fatal(err)
	}
	for i := range 10_000 {
		p := Plan{Name: fmt.Sprintf("p%05d", i), Title: "Plan", Content: "# Plan\n- [ ] step", Revision: 1,
			UpdatedAt: fmt.Sprintf("2026-11-01T00:%02d:%02dZ", i/60%60, i%60)}
		data, err := EncodePlan(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Dir(), p.Name+".json"), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	list, names, err := s.scan(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var x index
	x.reset(list, names)
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			if lp := x.page("p05000", 50); len(lp.Plans) != 50 {
				b.Fatal(len(lp.Plans))
			}
			if top, _ := x.newest(8); len(top) != 8 {
				b.Fatal(len(top))
			}
		}
	})
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			if l, err := s.List(ctx); err != nil || len(l.Plans) != 10_000 {
				b.Fatal(err)
			}
		}
	})
}
