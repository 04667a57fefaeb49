package textdiff

import (
	"slices"
	"testing"
)

// apply rebuilds b from a and the script, checking the script covers both wholly and in order.
func apply(t *testing.T, a, b []int32, script []Span) []int32 {
	t.Helper()
	var out []int32
	ai, bi := 0, 0
	for _, s := range script {
		if s.A0 != ai || s.B0 != bi {
			t.Fatalf("span %+v does not continue at a[%d], b[%d]", s, ai, bi)
		}
		switch s.Op {
		case Keep:
			if s.A1-s.A0 != s.B1-s.B0 || !slices.Equal(a[s.A0:s.A1], b[s.B0:s.B1]) {
				t.Fatalf("kept span %+v differs", s)
			}
			out = append(out, a[s.A0:s.A1]...)
		case Insert:
			if s.A0 != s.A1 {
				t.Fatalf("insert %+v removes", s)
			}
			out = append(out, b[s.B0:s.B1]...)
		case Delete:
			if s.B0 != s.B1 {
				t.Fatalf("delete %+v adds", s)
			}
		}
		ai, bi = s.A1, s.B1
	}
	if ai != len(a) || bi != len(b) {
		t.Fatalf("the script ends at a[%d], b[%d] of %d, %d", ai, bi, len(a), len(b))
	}
	return out
}

func kept(script []Span) int {
	n := 0
	for _, s := range script {
		if s.Op == Keep {
			n += s.A1 - s.A0
		}
	}
	return n
}

func TestIDs(t *testing.T) {
	for _, c := range []struct {
		a, b []int32
		keep int // the longest common subsequence
	}{
		{nil, nil, 0},
		{[]int32{1, 2, 3}, nil, 0},
		{nil, []int32{1}, 0},
		{[]int32{1, 2, 3, 4, 5}, []int32{1, 2, 9, 4, 5}, 4},
		{[]int32{1, 2, 3}, []int32{3, 2, 1}, 1},
		{[]int32{1, 2, 3, 4}, []int32{0, 1, 2, 3, 4, 5}, 4},
		{[]int32{7, 7, 7}, []int32{8, 8}, 0},
	} {
		script := IDs(c.a, c.b, 0)
		if got := apply(t, c.a, c.b, script); !slices.Equal(got, c.b) {
			t.Errorf("%v → %v rebuilt %v", c.a, c.b, got)
		}
		if k := kept(script); k != c.keep {
			t.Errorf("%v → %v kept %d, want %d", c.a, c.b, k, c.keep)
		}
	}
}

// FuzzIDs: any two sequences, bounded or not, give a script that turns one into the other; an
// unbounded one keeps at least what a bounded one does.
func FuzzIDs(f *testing.F) {
	f.Add([]byte("abcabba"), []byte("cbabac"), 10)
	f.Fuzz(func(t *testing.T, x, y []byte, budget int) {
		a, b := make([]int32, len(x)), make([]int32, len(y))
		for i, c := range x {
			a[i] = int32(c % 8)
		}
		for i, c := range y {
			b[i] = int32(c % 8)
		}
		full := IDs(a, b, 0)
		if got := apply(t, a, b, full); !slices.Equal(got, b) {
			t.Fatalf("rebuilt %v, want %v", got, b)
		}
		bounded := IDs(a, b, max(budget%1000, 1))
		if got := apply(t, a, b, bounded); !slices.Equal(got, b) {
			t.Fatalf("bounded: rebuilt %v, want %v", got, b)
		}
		if kept(bounded) > kept(full) {
			t.Fatalf("a bounded search kept more (%d) than the minimal script (%d)", kept(bounded), kept(full))
		}
	})
}
