package hub_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/hub"
)

// frag builds a fragment whose Data names its key and seq, so a test can tell which version of
// a key it got back.
func frag(key string, seq uint64) hub.Fragment {
	return hub.Fragment{Key: key, Seq: seq, Data: []byte(fmt.Sprintf("%s@%d", key, seq))}
}

// show renders fragments as "data" strings for readable comparisons.
func show(frags []hub.Fragment) []string {
	out := make([]string, 0, len(frags))
	for _, f := range frags {
		out = append(out, string(f.Data))
	}
	return out
}

type publish struct {
	topic string
	frags []hub.Fragment
}

func TestCoalescing(t *testing.T) {
	tests := []struct {
		name   string
		topics []string
		pubs   []publish
		want   []string
	}{
		{
			name:   "distinct keys keep publish order",
			topics: []string{"t"},
			pubs:   []publish{{"t", []hub.Fragment{frag("a", 1)}}, {"t", []hub.Fragment{frag("b", 2)}}, {"t", []hub.Fragment{frag("c", 3)}}},
			want:   []string{"a@1", "b@2", "c@3"},
		},
		{
			name:   "same key replaced in its first position",
			topics: []string{"t"},
			pubs:   []publish{{"t", []hub.Fragment{frag("a", 1)}}, {"t", []hub.Fragment{frag("b", 2)}}, {"t", []hub.Fragment{frag("a", 3)}}},
			want:   []string{"a@3", "b@2"},
		},
		{
			name:   "batch in one publish coalesces too",
			topics: []string{"t"},
			pubs:   []publish{{"t", []hub.Fragment{frag("a", 1), frag("a", 2), frag("b", 3)}}},
			want:   []string{"a@2", "b@3"},
		},
		{
			name:   "older seq on same topic is ignored",
			topics: []string{"t"},
			pubs:   []publish{{"t", []hub.Fragment{frag("a", 5)}}, {"t", []hub.Fragment{frag("a", 3)}}},
			want:   []string{"a@5"},
		},
		{
			name:   "equal seq is last publish wins",
			topics: []string{"t"},
			pubs: []publish{
				{"t", []hub.Fragment{{Key: "a", Data: []byte("first")}}},
				{"t", []hub.Fragment{{Key: "a", Data: []byte("second")}}},
			},
			want: []string{"second"},
		},
		{
			name:   "newer seq from second topic replaces",
			topics: []string{"x", "y"},
			pubs:   []publish{{"x", []hub.Fragment{frag("k", 1)}}, {"y", []hub.Fragment{frag("k", 2)}}},
			want:   []string{"k@2"},
		},
		{
			name:   "older seq from second topic never replaces newer",
			topics: []string{"x", "y"},
			pubs:   []publish{{"x", []hub.Fragment{frag("k", 5)}}, {"y", []hub.Fragment{frag("k", 3)}}},
			want:   []string{"k@5"},
		},
		{
			name:   "order across topics is first publish",
			topics: []string{"x", "y"},
			pubs: []publish{
				{"x", []hub.Fragment{frag("p", 1)}},
				{"y", []hub.Fragment{frag("q", 2)}},
				{"y", []hub.Fragment{frag("p", 4)}},
				{"x", []hub.Fragment{frag("q", 3)}},
			},
			want: []string{"p@4", "q@3"},
		},
		{
			name:   "other topics are not received",
			topics: []string{"x"},
			pubs:   []publish{{"y", []hub.Fragment{frag("k", 1)}}, {"x", []hub.Fragment{frag("j", 2)}}},
			want:   []string{"j@2"},
		},
		{
			name:   "publishing nothing leaves nothing",
			topics: []string{"x"},
			pubs:   []publish{{"x", nil}},
			want:   []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := hub.New(hub.Options{})
			s := h.Subscribe(tt.topics...)
			defer s.Close()
			for _, p := range tt.pubs {
				h.Publish(p.topic, p.frags...)
			}
			if got := show(s.Drain(nil)); !slices.Equal(got, tt.want) {
				t.Errorf("Drain = %q, want %q", got, tt.want)
			}
			if got := s.Drain(nil); len(got) != 0 {
				t.Errorf("second Drain = %q, want nothing", show(got))
			}
		})
	}
}

func TestDrainAppendsAndStartsNewRound(t *testing.T) {
	h := hub.New(hub.Options{})
	s := h.Subscribe("t")
	defer s.Close()

	h.Publish("t", frag("a", 1), frag("b", 2))
	got := s.Drain([]hub.Fragment{frag("kept", 0)})
	if want := []string{"kept@0", "a@1", "b@2"}; !slices.Equal(show(got), want) {
		t.Fatalf("Drain = %q, want %q", show(got), want)
	}

	// After a Drain the order restarts from the next publishes, not the earlier first sighting.
	h.Publish("t", frag("b", 3), frag("a", 4))
	if got, want := show(s.Drain(got[:0])), []string{"b@3", "a@4"}; !slices.Equal(got, want) {
		t.Fatalf("second Drain = %q, want %q", got, want)
	}
}

// readyCount reports whether a wakeup is queued, consuming it.
func readyCount(s *hub.Subscription) int {
	select {
	case <-s.Ready():
		return 1
	default:
		return 0
	}
}

func TestReady(t *testing.T) {
	h := hub.New(hub.Options{MaxPending: 2})
	s := h.Subscribe("t")
	defer s.Close()

	steps := []struct {
		name string
		do   func()
		want int
	}{
		{"nothing published", func() {}, 0},
		{"empty publish", func() { h.Publish("t") }, 0},
		{"other topic", func() { h.Publish("u", frag("a", 1)) }, 0},
		{"first fragment", func() { h.Publish("t", frag("a", 1)) }, 1},
		{"pending already non-empty", func() { h.Publish("t", frag("b", 2)) }, 0},
		{"drain", func() { s.Drain(nil) }, 0},
		{"empty to non-empty again", func() { h.Publish("t", frag("a", 3)) }, 1},
		{"burst wakes once", func() { s.Drain(nil); h.Publish("t", frag("a", 4)); s.Drain(nil); h.Publish("t", frag("a", 5)) }, 1},
		{"overflow wakes", func() { h.Publish("t", frag("b", 6), frag("c", 7)) }, 1},
		{"dropped while overflowed", func() { h.Publish("t", frag("d", 8)) }, 0},
		{"reset alone", func() { s.ResetOverflow() }, 0},
		{"after reset", func() { h.Publish("t", frag("d", 9)) }, 1},
	}
	for _, st := range steps {
		st.do()
		if got := readyCount(s); got != st.want {
			t.Fatalf("%s: %d wakeups queued, want %d", st.name, got, st.want)
		}
	}
}

func TestOverflow(t *testing.T) {
	distinct := func(n int) []hub.Fragment {
		var fs []hub.Fragment
		for i := range n {
			fs = append(fs, frag(fmt.Sprintf("k%d", i), uint64(i+1)))
		}
		return fs
	}
	tests := []struct {
		name       string
		maxPending int
		frags      []hub.Fragment
		overflowed bool
		drained    int
	}{
		{"up to the limit", 3, distinct(3), false, 3},
		{"one key past the limit", 3, distinct(4), true, 0},
		{"replacing keys at the limit", 3, append(distinct(3), distinct(3)...), false, 3},
		{"default limit holds 1024 keys", 0, distinct(1024), false, 1024},
		{"default limit overflows at 1025", 0, distinct(1025), true, 0},
		{"negative means default", -1, distinct(1024), false, 1024},
	}
	for _, tt := range tests {
		for _, batched := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/batched=%v", tt.name, batched), func(t *testing.T) {
				h := hub.New(hub.Options{MaxPending: tt.maxPending})
				s := h.Subscribe("t")
				defer s.Close()
				if batched {
					h.Publish("t", tt.frags...)
				} else {
					for _, f := range tt.frags {
						h.Publish("t", f)
					}
				}
				if got := s.Overflowed(); got != tt.overflowed {
					t.Errorf("Overflowed = %v, want %v", got, tt.overflowed)
				}
				if got := len(s.Drain(nil)); got != tt.drained {
					t.Errorf("Drain returned %d fragments, want %d", got, tt.drained)
				}
			})
		}
	}
}

func TestOverflowStaysUntilReset(t *testing.T) {
	h := hub.New(hub.Options{MaxPending: 2})
	slow := h.Subscribe("t")
	defer slow.Close()
	fast := h.Subscribe("t")
	defer fast.Close()

	for i, key := range []string{"a", "b", "c"} {
		h.Publish("t", frag(key, uint64(i+1)))
		fast.Drain(nil)
	}
	if !slow.Overflowed() {
		t.Fatal("slow subscriber not overflowed after 3 distinct keys with MaxPending 2")
	}
	if fast.Overflowed() {
		t.Fatal("overflow leaked to a subscriber that kept up")
	}

	h.Publish("t", frag("a", 4))
	if got := slow.Drain(nil); len(got) != 0 || !slow.Overflowed() {
		t.Fatalf("while overflowed: Drain = %q, Overflowed = %v; want nothing, true", show(got), slow.Overflowed())
	}

	slow.ResetOverflow()
	if slow.Overflowed() {
		t.Fatal("still overflowed after ResetOverflow")
	}
	if got := slow.Drain(nil); len(got) != 0 {
		t.Fatalf("fragments dropped before the reset came back: %q", show(got))
	}
	h.Publish("t", frag("b", 5))
	if got, want := show(slow.Drain(nil)), []string{"b@5"}; !slices.Equal(got, want) {
		t.Fatalf("after reset Drain = %q, want %q", got, want)
	}
}

func TestSubscribers(t *testing.T) {
	tests := []struct {
		name   string
		subs   [][]string
		counts map[string]int
	}{
		{"none", nil, map[string]int{"a": 0}},
		{"one topic", [][]string{{"a"}}, map[string]int{"a": 1, "b": 0}},
		{"two topics", [][]string{{"a", "b"}}, map[string]int{"a": 1, "b": 1}},
		{"duplicate topic counts once", [][]string{{"a", "a"}}, map[string]int{"a": 1}},
		{"several subscribers", [][]string{{"a"}, {"a", "b"}, {}}, map[string]int{"a": 2, "b": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := hub.New(hub.Options{})
			var subs []*hub.Subscription
			for _, topics := range tt.subs {
				subs = append(subs, h.Subscribe(topics...))
			}
			for topic, want := range tt.counts {
				if got := h.Subscribers(topic); got != want {
					t.Errorf("Subscribers(%q) = %d, want %d", topic, got, want)
				}
			}
			for _, s := range subs {
				s.Close()
			}
			for topic := range tt.counts {
				if got := h.Subscribers(topic); got != 0 {
					t.Errorf("after Close, Subscribers(%q) = %d, want 0", topic, got)
				}
			}
		})
	}
}

func TestDuplicateTopicDeliversOnce(t *testing.T) {
	h := hub.New(hub.Options{})
	s := h.Subscribe("t", "t")
	defer s.Close()
	h.Publish("t", frag("a", 1))
	if got := readyCount(s) + readyCount(s); got != 1 {
		t.Fatalf("%d wakeups, want 1", got)
	}
	if got := len(s.Drain(nil)); got != 1 {
		t.Fatalf("drained %d, want 1", got)
	}
}

func TestClose(t *testing.T) {
	h := hub.New(hub.Options{})
	s := h.Subscribe("a", "b")
	other := h.Subscribe("a")
	defer other.Close()

	h.Publish("a", frag("k", 1))
	s.Close()
	s.Close() // idempotent

	if got := h.Subscribers("a"); got != 1 {
		t.Errorf("Subscribers(a) = %d, want 1 (the other subscriber)", got)
	}
	if got := h.Subscribers("b"); got != 0 {
		t.Errorf("Subscribers(b) = %d, want 0", got)
	}
	if got := s.Drain(nil); len(got) != 0 {
		t.Errorf("Drain after Close = %q, want pending dropped", show(got))
	}

	h.Publish("a", frag("k", 2))
	h.Publish("b", frag("k", 3))
	if got := s.Drain(nil); len(got) != 0 {
		t.Errorf("closed subscription received %q", show(got))
	}
	if got, want := show(other.Drain(nil)), []string{"k@2"}; !slices.Equal(got, want) {
		t.Errorf("other subscriber Drain = %q, want %q", got, want)
	}
}

func TestCloseConcurrent(t *testing.T) {
	h := hub.New(hub.Options{})
	s := h.Subscribe("t")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			s.Close()
			h.Publish("t", frag("k", 1))
		})
	}
	wg.Wait()
	if got := h.Subscribers("t"); got != 0 {
		t.Fatalf("Subscribers = %d after concurrent Close, want 0", got)
	}
}

// TestBurstStorageDropped: the storage a burst grew is dropped once drains are small again, and
// kept while they are not.
func TestBurstStorageDropped(t *testing.T) {
	h := hub.New(hub.Options{})
	s := h.Subscribe("t")
	defer s.Close()
	burst := func(n int) []hub.Fragment {
		for i := range n {
			h.Publish("t", hub.Fragment{Key: fmt.Sprint("k", i), Data: []byte("x")})
		}
		return s.Drain(nil)
	}
	if got := burst(1000); len(got) != 1000 {
		t.Fatalf("drained %d, want 1000", len(got))
	}
	if c := s.PendingCap(); c < 1000 {
		t.Fatalf("after a large drain the storage is %d, want it kept", c)
	}
	burst(1)
	if c := s.PendingCap(); c > 64 {
		t.Errorf("after a burst and then a drain of one, the storage is %d, want it dropped", c)
	}
	if got := burst(3); len(got) != 3 {
		t.Errorf("after the drop, drained %d, want 3", len(got))
	}
}

// TestCoalesceAcrossIndex: pending keeps one fragment per key, the newest, whether it is small
// enough to be searched in order or has grown past that and is searched through its index, and
// across drains on either side of the change.
func TestCoalesceAcrossIndex(t *testing.T) {
	h := hub.New(hub.Options{})
	s := h.Subscribe("t")
	defer s.Close()
	for _, n := range []int{3, 40, 5, 100} {
		for round := range 3 {
			for i := range n {
				seq := uint64(10 + round)
				if round == 2 {
					seq = 1 // older than what is pending: ignored
				}
				h.Publish("t", hub.Fragment{Key: fmt.Sprint("k", i), Seq: seq})
			}
		}
		got := s.Drain(nil)
		if len(got) != n {
			t.Fatalf("%d keys: drained %d fragments", n, len(got))
		}
		for i, f := range got {
			if want := fmt.Sprint("k", i); f.Key != want || f.Seq != 11 {
				t.Fatalf("%d keys: fragment %d is %s@%d, want %s@11", n, i, f.Key, f.Seq, want)
			}
		}
	}
}

// ready reports whether s has been woken, without waiting.
func ready(s *hub.Subscription) bool {
	select {
	case <-s.Ready():
		return true
	default:
		return false
	}
}

// TestQuietFragmentsWakeNobody: a quiet fragment is held without waking the subscriber, which
// gets it with the next fragment that is not quiet, in publish order; and quiet fragments are
// held at most the hub's QuietDelay.
func TestQuietFragmentsWakeNobody(t *testing.T) {
	h := hub.New(hub.Options{QuietDelay: time.Hour})
	s := h.Subscribe("t")
	defer s.Close()
	quiet := frag("a", 1)
	quiet.Quiet = true
	h.Publish("t", quiet)
	if ready(s) {
		t.Fatal("a quiet fragment woke the subscriber")
	}
	h.Publish("t", frag("b", 2))
	if !ready(s) {
		t.Fatal("a fragment that is not quiet did not wake the subscriber")
	}
	if got, want := show(s.Drain(nil)), []string{"a@1", "b@2"}; !slices.Equal(got, want) {
		t.Fatalf("Drain = %q, want %q", got, want)
	}
	// A quiet fragment replacing a pending one that already woke the subscriber is taken with it.
	h.Publish("t", frag("c", 3))
	quiet.Seq = 4
	h.Publish("t", quiet)
	if !ready(s) || ready(s) {
		t.Fatal("want exactly one wake-up for the round")
	}
	if got, want := show(s.Drain(nil)), []string{"c@3", "a@1"}; !slices.Equal(got, want) {
		t.Fatalf("Drain = %q, want %q", got, want)
	}

	soon := hub.New(hub.Options{QuietDelay: time.Millisecond})
	s = soon.Subscribe("t")
	defer s.Close()
	soon.Publish("t", quiet)
	<-s.Ready() // the held quiet fragment wakes it in the end
	if got := s.Drain(nil); len(got) != 1 || !got[0].Quiet {
		t.Fatalf("Drain = %+v, want the quiet fragment", got)
	}
}
