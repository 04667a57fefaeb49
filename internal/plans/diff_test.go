package plans

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// applyDiff replays an edit script on a: it checks every Same and Removed line against a in
// order and returns the lines it produces, which must be b.
func applyDiff(a []string, d []DiffLine) ([]string, error) {
	var out []string
	i := 0
	for _, l := range d {
		switch l.Op {
		case Same, Removed:
			if i >= len(a) || a[i] != l.Text {
				return nil, fmt.Errorf("line %d of a is not %q", i, l.Text)
			}
			i++
			if l.Op == Same {
				out = append(out, l.Text)
			}
		case Added:
			out = append(out, l.Text)
		default:
			return nil, fmt.Errorf("unknown op %q", l.Op)
		}
	}
	if i != len(a) {
		return nil, fmt.Errorf("the script consumed %d of %d lines of a", i, len(a))
	}
	return out, nil
}

// lcsLen is the textbook dynamic-programming LCS length, the reference for minimality.
func lcsLen(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func count(d []DiffLine, op DiffOp) int {
	n := 0
	for _, l := range d {
		if l.Op == op {
			n++
		}
	}
	return n
}

// checkDiff asserts the properties every diff has: it turns a into b, it is minimal, and the
// removals of each run of changes come before its additions.
func checkDiff(t *testing.T, a, b []string) []DiffLine {
	t.Helper()
	d := Diff(a, b)
	got, err := applyDiff(a, d)
	if err != nil {
		t.Fatalf("Diff(%q, %q) = %v: not a script from a: %v", a, b, d, err)
	}
	if !slices.Equal(got, b) && !(len(got) == 0 && len(b) == 0) {
		t.Fatalf("Diff(%q, %q) applied gives %q", a, b, got)
	}
	if same, want := count(d, Same), lcsLen(a, b); same != want {
		t.Fatalf("Diff(%q, %q) keeps %d lines, the LCS has %d: not minimal", a, b, same, want)
	}
	for i := 1; i < len(d); i++ {
		if d[i-1].Op == Added && d[i].Op == Removed {
			t.Fatalf("Diff(%q, %q) = %v: an addition before a removal in one run", a, b, d)
		}
	}
	return d
}

func TestDiff(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b string
		want string // ops, one per line
	}{
		{"both empty", "", "", ""},
		{"all added", "", "x y", "++"},
		{"all removed", "x y", "", "--"},
		{"equal", "a b c", "a b c", "   "},
		{"one replaced", "a b c", "a x c", " -+ "},
		{"inserted in the middle", "a c", "a b c", " + "},
		{"removed at the ends", "a b c", "b", "- -"},
		{"nothing in common", "a b", "c d", "--++"},
		{"moved line", "a b c d", "b c d a", "-   +"},
		{"repeated lines", "a a a b", "a b a a", "  +  -"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := checkDiff(t, strings.Fields(tt.a), strings.Fields(tt.b))
			var ops strings.Builder
			for _, l := range d {
				ops.WriteByte(byte(l.Op))
			}
			// Several minimal scripts can exist; the shape is checked where it is unique.
			if tt.name != "repeated lines" && ops.String() != tt.want {
				t.Fatalf("ops = %q, want %q", ops.String(), tt.want)
			}
		})
	}
}

// TestDiffMinimalExhaustive diffs every pair of sequences of up to five lines over a
// three-line alphabet against the reference LCS.
func TestDiffMinimalExhaustive(t *testing.T) {
	var all [][]string
	var gen func(prefix []string)
	gen = func(prefix []string) {
		all = append(all, slices.Clone(prefix))
		if len(prefix) == 5 {
			return
		}
		for _, c := range []string{"a", "b", "c"} {
			gen(append(prefix, c))
		}
	}
	gen(nil)
	for _, a := range all {
		for _, b := range all {
			checkDiff(t, a, b)
		}
	}
}

// TestDiffRandomLarge holds the properties on plans far above the old 2,048-line limit.
func TestDiffRandomLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{100, 3000} {
		for _, changed := range []float64{0.01, 0.3, 1} {
			a, b := mutated(rng, n, changed)
			checkDiff(t, a, b)
		}
	}
}

// TestDiffOnePercent is the reported bug: a 1 % change of a big plan must read as 1 %.
func TestDiffOnePercent(t *testing.T) {
	a, b := onePercent(10000)
	d := checkDiff(t, a, b)
	if r, ad := count(d, Removed), count(d, Added); r != 100 || ad != 100 {
		t.Fatalf("1 %% of 10,000 entries changed, the diff removes %d and adds %d", r, ad)
	}
}

// mutated is n distinct-ish lines and a copy with about changed×n of them edited, dropped or
// inserted.
func mutated(rng *rand.Rand, n int, changed float64) (a, b []string) {
	for i := range n {
		a = append(a, fmt.Sprintf("[pending] step %d (%s)", i%(n/3+1), []string{"high", "low"}[rng.IntN(2)]))
	}
	for _, l := range a {
		if rng.Float64() >= changed {
			b = append(b, l)
			continue
		}
		switch rng.IntN(3) {
		case 0:
			b = append(b, strings.Replace(l, "pending", "completed", 1))
		case 1: // dropped
		case 2:
			b = append(b, "[pending] new step", l)
		}
	}
	return a, b
}

// onePercent is a plan of n entries and the same plan with every hundredth entry completed.
func onePercent(n int) (a, b []string) {
	for i := range n {
		l := fmt.Sprintf("[pending] step %d of the migration (medium)", i)
		a = append(a, l)
		if i%100 == 50 {
			l = fmt.Sprintf("[completed] step %d of the migration (medium)", i)
		}
		b = append(b, l)
	}
	return a, b
}

func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc", "a\nx\nc")
	f.Add("", "x")
	f.Add("a\na\nb", "b\na\na")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := strings.Split(x, "\n"), strings.Split(y, "\n")
		if len(a) > 300 || len(b) > 300 {
			return // the reference LCS is quadratic
		}
		checkDiff(t, a, b)
	})
}

// BenchmarkDiff10000 diffs two 10,000-entry plans that differ in 1 % of their entries (goal:
// ≤ 50 ms) and reports the share of lines the diff says changed.
func BenchmarkDiff10000(b *testing.B) {
	x, y := onePercent(10000)
	var d []DiffLine
	b.ReportAllocs()
	for b.Loop() {
		d = Diff(x, y)
	}
	b.ReportMetric(float64(count(d, Removed))*100/float64(len(x)), "%changed")
}
