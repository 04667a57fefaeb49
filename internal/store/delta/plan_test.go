package delta

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/plans/planstest"
)

// TestFieldsInDeltas: a plan that differs from the revision before in any one field of
// plans.Plan, or of one of its entries, is stored as a delta that is not empty and rebuilds it
// exactly. A field that diffPlans or Entry.Equal leaves out would be lost from every revision
// stored as a delta, with every other test still passing.
func TestFieldsInDeltas(t *testing.T) {
	base := bigPlan("s", "p", 3)
	base.Revision, base.Updated, base.Markdown, base.Raw, base.Meta = 1, rt0, "# Plan", json.RawMessage(`{"n":1}`), json.RawMessage(`{"m":1}`)
	base.Entries[1].Meta = json.RawMessage(`{"k":1}`)
	check := func(what string, next *plans.Plan) {
		t.Helper()
		d := diffPlans(base, next)
		if len(d.Set)+len(d.Del)+len(d.Entries) == 0 {
			t.Errorf("a change of %s alone gives an empty revision delta: compare it in diffPlans (or Entry.Equal)", what)
			return
		}
		f, err := splitOwn(mustJSON(base))
		if err != nil {
			t.Fatal(err)
		}
		f = applyStored(t, d, f)
		f[revisionKey] = json.RawMessage(strconv.Itoa(next.Revision)) // as replay does
		got, err := decodeFields(f)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := decode[plans.Plan](mustJSON(next)); !reflect.DeepEqual(got, want) {
			t.Errorf("the delta of a change of %s rebuilds\n%+v\nwant\n%+v", what, got, want)
		}
	}
	for name, v := range planstest.Vary(t, *base) {
		if name != "Revision" { // the row's key, not the delta, holds it
			check("Plan."+name, &v)
		}
	}
	for name, e := range planstest.Vary(t, base.Entries[1]) {
		next := clonePlan(base)
		next.Entries[1] = e
		check("Entry."+name, next)
	}
}

// randomPlan is a plan of the generator's choosing, its strings drawn from words.
func randomPlan(r *rand.Rand, words []string) *plans.Plan {
	w := func() string { return words[r.IntN(len(words))] }
	at := time.Date(2026, 11, 24, 8, 0, r.IntN(3), 0, time.UTC)
	p := &plans.Plan{SessionID: "s", ID: "p", Kind: plans.KindItems, Type: "items", Revision: 1,
		Created: at, Updated: at.Add(time.Duration(r.IntN(3)) * time.Millisecond), Seq: uint64(r.IntN(3))}
	if r.IntN(2) == 0 {
		p.Agent = w()
	}
	for range r.IntN(6) {
		e := plans.Entry{Content: w(), Priority: w(), Status: []string{plans.StatusPending, plans.StatusInProgress, plans.StatusCompleted}[r.IntN(3)]}
		if r.IntN(4) == 0 {
			e.Meta = json.RawMessage(`{"k":` + string(mustJSON(w())) + `}`)
		}
		p.Entries = append(p.Entries, e)
	}
	switch r.IntN(4) {
	case 0:
		p.Markdown = w()
	case 1:
		p.URI = "file:///" + w()
	case 2:
		p.Kind, p.Type, p.Raw = plans.KindCustom, "_x", json.RawMessage(` { "n" : `+strconv.Itoa(r.IntN(3))+` } `)
	}
	if r.IntN(3) == 0 {
		p.Meta = json.RawMessage(`[` + strconv.Itoa(r.IntN(2)) + `]`)
	}
	if r.IntN(3) == 0 {
		p.Warnings = []string{w()}
	}
	p.Removed, p.Replayed = r.IntN(4) == 0, r.IntN(4) == 0
	return p
}

// checkDiffPlans: the delta diffPlans finds between two plans drawn from seed and words, stored
// and applied to the first, rebuilds the second exactly as the delta from their JSON
// (diffFields) does.
func checkDiffPlans(t *testing.T, seed uint64, w1, w2 string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed>>7))
	words := []string{w1, w2, "x"}
	a := randomPlan(r, words)
	b := a
	if r.IntN(4) > 0 { // mostly small changes to a, as updates are
		b = clonePlan(a)
		for range 1 + r.IntN(3) {
			switch r.IntN(5) {
			case 0:
				if len(b.Entries) > 0 {
					b.Entries[r.IntN(len(b.Entries))].Status = plans.StatusCompleted
				}
			case 1:
				b.Entries = append(b.Entries, plans.Entry{Content: words[r.IntN(3)], Status: plans.StatusPending})
			case 2:
				if len(b.Entries) > 0 {
					i := r.IntN(len(b.Entries))
					b.Entries = append(b.Entries[:i:i], b.Entries[i+1:]...)
				}
			case 3:
				b.Updated, b.Seq = b.Updated.Add(time.Second), b.Seq+1
			default:
				b = randomPlan(r, words)
			}
		}
	}
	b.Revision = a.Revision + 1
	base, err := splitOwn(mustJSON(a))
	if err != nil {
		t.Fatal(err)
	}
	want, err := decode[plans.Plan](mustJSON(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*plans.Plan{a, b} {
		if got, want := EncodePlan(p), mustJSON(p); !bytes.Equal(got, want) {
			t.Fatalf("EncodePlan = %s\nencoding/json  %s", got, want)
		}
	}
	// Both ways of finding the delta store what encoding/json would write.
	whole, err := splitOwn(mustJSON(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []delta{diffPlans(a, b), diffFields(base, whole)} {
		if got, want := encodeDelta(d), mustJSON(d); !bytes.Equal(got, want) {
			t.Fatalf("encodeDelta = %s\nencoding/json  %s", got, want)
		}
	}
	next := applyStored(t, diffPlans(a, b), base)
	next[revisionKey] = json.RawMessage(strconv.Itoa(b.Revision)) // as replay does
	got, err := decodeFields(next)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rebuilt\n%+v\nwant\n%+v", got, want)
	}
}

// TestDiffPlans checks diffPlans on 3,000 pairs of plans every run; FuzzDiffPlans goes on from
// there.
func TestDiffPlans(t *testing.T) {
	words := [][2]string{{"Read the code", "<b>&amp;</b>"}, {"", "\x00\xff\u2028"}, {"same", "same"}, {"é", "\"quoted\""}}
	for seed := range uint64(3000) {
		w := words[seed%uint64(len(words))]
		checkDiffPlans(t, seed, w[0], w[1])
	}
}

// FuzzDiffPlans: checkDiffPlans on pairs of plans of the fuzzer's choosing.
func FuzzDiffPlans(f *testing.F) {
	f.Add(uint64(1), "Read the code", "<b>&amp;</b>")
	f.Add(uint64(2), "", "\x00\xff\u2028")
	f.Add(uint64(3), "same", "same")
	f.Fuzz(checkDiffPlans)
}

func BenchmarkDiffPlans(b *testing.B) {
	a := bigPlan("s", "p", 5)
	a.Updated, a.Revision = rt0, 1
	next := clonePlan(a)
	next.Entries[2].Status, next.Updated, next.Revision, next.Seq = plans.StatusCompleted, rt0.Add(time.Second), 2, 9
	b.Run("diffPlans", func(b *testing.B) {
		for b.Loop() {
			mustJSON(diffPlans(a, next))
		}
	})
	b.Run("diffFields", func(b *testing.B) {
		base, _ := splitOwn(mustJSON(a))
		for b.Loop() {
			f, _ := splitOwn(mustJSON(next))
			mustJSON(diffFields(base, f))
		}
	})
}
