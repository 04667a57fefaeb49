package hub_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/plandash/plandash/internal/hub"
)

// TestStalledSubscriberDoesNotDelayOthers runs publisher and active consumer in lockstep on one
// goroutine: if any Publish waited for a stalled subscriber, the test would deadlock instead of
// finishing, and the active subscriber must see every single publish, none coalesced away.
func TestStalledSubscriberDoesNotDelayOthers(t *testing.T) {
	const n = 10_000
	tests := []struct {
		name string
		key  func(i int) string
		// check inspects the idle stalled subscriber afterwards: its memory stays bounded
		// either by coalescing or by overflowing.
		check func(t *testing.T, s *hub.Subscription)
	}{
		{
			name: "one key",
			key:  func(int) string { return "plan" },
			check: func(t *testing.T, s *hub.Subscription) {
				got := s.Drain(nil)
				if len(got) != 1 || got[0].Seq != n {
					t.Errorf("stalled subscriber holds %q, want just the newest (seq %d)", show(got), n)
				}
			},
		},
		{
			name: "distinct keys",
			key:  func(i int) string { return fmt.Sprintf("plan-%d", i) },
			check: func(t *testing.T, s *hub.Subscription) {
				if !s.Overflowed() {
					t.Error("stalled subscriber with 10,000 distinct keys pending is not overflowed")
				}
				if got := s.Drain(nil); len(got) != 0 {
					t.Errorf("overflowed subscriber still holds %d fragments", len(got))
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := hub.New(hub.Options{})
			idle := h.Subscribe("t") // never drains
			defer idle.Close()

			// stuck took one wakeup and then hangs mid-send, as a socket with a dead peer would.
			stuck := h.Subscribe("t")
			defer stuck.Close()
			release := make(chan struct{})
			stuckDone := make(chan struct{})
			go func() {
				defer close(stuckDone)
				<-stuck.Ready()
				stuck.Drain(nil)
				<-release
			}()

			active := h.Subscribe("t")
			defer active.Close()
			var buf []hub.Fragment
			received := 0
			for i := 1; i <= n; i++ {
				h.Publish("t", frag(tt.key(i), uint64(i)))
				<-active.Ready()
				buf = active.Drain(buf[:0])
				if len(buf) != 1 || buf[0].Seq != uint64(i) {
					t.Fatalf("publish %d: active subscriber drained %q", i, show(buf))
				}
				received++
			}
			close(release)
			<-stuckDone
			if received != n {
				t.Fatalf("active subscriber received %d publishes, want %d", received, n)
			}
			tt.check(t, idle)
		})
	}
}

// TestConcurrentPublishersAndSubscribers is mostly for -race: publishers, consumers, subscription
// churn and Subscribers all run at once. Each key has a single publisher that sends increasing
// Seqs to two topics, so every consumer must see non-decreasing Seqs per key and end on the last.
func TestConcurrentPublishersAndSubscribers(t *testing.T) {
	const (
		publishers = 4
		keysEach   = 16
		rounds     = 300
	)
	h := hub.New(hub.Options{})
	evenOdd := func(p int) string { return fmt.Sprintf("t%d", p%2) }

	type consumer struct {
		sub  *hub.Subscription
		want map[string]bool // keys it must see at the final Seq
	}
	wantFor := func(topics ...string) map[string]bool {
		want := map[string]bool{}
		for p := range publishers {
			for _, topic := range topics {
				if topic == "all" || topic == evenOdd(p) {
					for k := range keysEach {
						want[fmt.Sprintf("p%d-k%d", p, k)] = true
					}
				}
			}
		}
		return want
	}
	var consumers []consumer
	for _, topics := range [][]string{{"all"}, {"t0"}, {"t1"}, {"t0", "t1"}, {"t0", "all"}, {"all", "t1", "t0"}} {
		consumers = append(consumers, consumer{h.Subscribe(topics...), wantFor(topics...)})
	}

	var wg sync.WaitGroup
	errs := make(chan error, len(consumers))
	for _, c := range consumers {
		wg.Go(func() {
			defer c.sub.Close()
			last := map[string]uint64{}
			done := 0
			var buf []hub.Fragment
			for done < len(c.want) {
				<-c.sub.Ready()
				buf = c.sub.Drain(buf[:0])
				for _, f := range buf {
					if !c.want[f.Key] {
						errs <- fmt.Errorf("received key %q from a topic it did not subscribe to", f.Key)
						return
					}
					if f.Seq < last[f.Key] {
						errs <- fmt.Errorf("key %s went back from seq %d to %d", f.Key, last[f.Key], f.Seq)
						return
					}
					if f.Seq == rounds && last[f.Key] != rounds {
						done++
					}
					last[f.Key] = f.Seq
				}
			}
		})
	}

	stop := make(chan struct{})
	var churn sync.WaitGroup
	churn.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s := h.Subscribe("all", evenOdd(i), "churn")
			h.Publish("churn", frag("c", uint64(i)))
			s.Drain(nil)
			_ = s.Overflowed()
			s.ResetOverflow()
			_ = h.Subscribers("all")
			s.Close()
		}
	})

	var pubs sync.WaitGroup
	for p := range publishers {
		pubs.Go(func() {
			for r := 1; r <= rounds; r++ {
				for k := range keysEach {
					f := frag(fmt.Sprintf("p%d-k%d", p, k), uint64(r))
					h.Publish(evenOdd(p), f)
					h.Publish("all", f)
				}
			}
		})
	}
	pubs.Wait()
	wg.Wait()
	close(stop)
	churn.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, topic := range []string{"all", "t0", "t1", "churn"} {
		if got := h.Subscribers(topic); got != 0 {
			t.Errorf("Subscribers(%q) = %d after every subscription closed", topic, got)
		}
	}
}
