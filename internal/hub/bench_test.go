package hub_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/plandash/plandash/internal/hub"
)

// benchFrags returns n fragments with distinct keys and a shared 2 KiB payload, about one
// rendered plan card.
func benchFrags(n int) []hub.Fragment {
	data := make([]byte, 2048)
	fs := make([]hub.Fragment, n)
	for i := range fs {
		fs[i] = hub.Fragment{Key: fmt.Sprintf("plan-%d", i), Seq: uint64(i), Data: data}
	}
	return fs
}

// BenchmarkPublish measures one Publish of one fragment to n subscribers that never drain, the
// steady state of slow browsers: 64 live plans cycle through, so each delivery replaces a
// pending version. ns/delivery is ns/op divided by the subscriber count.
func BenchmarkPublish(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("subs=%d", n), func(b *testing.B) {
			h := hub.New(hub.Options{})
			for range n {
				defer h.Subscribe("t").Close()
			}
			frags := benchFrags(64)
			// Fill every pending set first so the figures show the steady state, not the
			// one-time growth of each subscriber's buffers.
			h.Publish("t", frags...)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				f := frags[i%len(frags)]
				f.Seq = uint64(len(frags) + i) // newer than the warm-up, so every delivery replaces
				h.Publish("t", f)
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/delivery")
		})
	}
}

// BenchmarkPublishParallel has every core publishing at once, to 100 subscribers on one shared
// topic and on one topic per publisher, which is where hub lock contention would show.
func BenchmarkPublishParallel(b *testing.B) {
	for _, shared := range []bool{true, false} {
		name := "topic=shared"
		if !shared {
			name = "topic=per-goroutine"
		}
		b.Run(name+"/subs=100", func(b *testing.B) {
			h := hub.New(hub.Options{})
			const topics = 16
			for i := range 100 {
				topic := "t"
				if !shared {
					topic = fmt.Sprintf("t%d", i%topics)
				}
				defer h.Subscribe(topic).Close()
			}
			frags := benchFrags(64)
			for i := range topics {
				h.Publish(fmt.Sprintf("t%d", i), frags...)
			}
			h.Publish("t", frags...)
			var next atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				topic := "t"
				if !shared {
					topic = fmt.Sprintf("t%d", next.Add(1)%topics)
				}
				i := 0
				for pb.Next() {
					h.Publish(topic, frags[i%len(frags)])
					i++
				}
			})
		})
	}
}

// BenchmarkRoundTrip has 100 subscribers, each drained by its own goroutine as a websocket
// writer would be.
//
// lockstep: one op is a Publish plus every subscriber waking and draining that fragment, so it
// measures fan-out latency including 100 goroutine wakeups.
//
// stream: the publisher never waits, as in production; delivered/publish is the share of
// fragments the consumers actually drained (the rest were superseded while pending).
func BenchmarkRoundTrip(b *testing.B) {
	const subs = 100
	b.Run("lockstep/subs=100", func(b *testing.B) {
		h := hub.New(hub.Options{})
		var got sync.WaitGroup
		var stop sync.WaitGroup
		quit := make(chan struct{})
		for range subs {
			s := h.Subscribe("t")
			stop.Go(func() {
				defer s.Close()
				var buf []hub.Fragment
				for {
					select {
					case <-quit:
						return
					case <-s.Ready():
					}
					buf = s.Drain(buf[:0])
					for range buf {
						got.Done()
					}
				}
			})
		}
		frags := benchFrags(1)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			got.Add(subs)
			f := frags[0]
			f.Seq = uint64(i)
			h.Publish("t", f)
			got.Wait()
			i++
		}
		close(quit)
		stop.Wait()
	})

	b.Run("stream/subs=100", func(b *testing.B) {
		h := hub.New(hub.Options{})
		var delivered atomic.Int64
		var stop sync.WaitGroup
		const last = ^uint64(0)
		for range subs {
			s := h.Subscribe("t")
			stop.Go(func() {
				defer s.Close()
				var buf []hub.Fragment
				for {
					<-s.Ready()
					buf = s.Drain(buf[:0])
					delivered.Add(int64(len(buf)))
					for _, f := range buf {
						if f.Seq == last {
							return
						}
					}
				}
			})
		}
		// 256 keys keeps pending under MaxPending however far a consumer falls behind.
		frags := benchFrags(256)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			f := frags[i%len(frags)]
			f.Seq = uint64(i)
			h.Publish("t", f)
			i++
		}
		h.Publish("t", hub.Fragment{Key: "end", Seq: last})
		stop.Wait()
		b.ReportMetric(float64(delivered.Load()-subs)/float64(b.N*subs), "delivered/publish")
	})
}

// BenchmarkPublishKeptUp is the overview's fan-out: every change publishes a session's group as
// twelve fragments (the group whole, its head parts and six cards) to n subscribers, each of
// which drains before the next change, as a socket that keeps up does. ns/delivery is the
// hub's cost per subscriber per change.
func BenchmarkPublishKeptUp(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("subs=%d", n), func(b *testing.B) {
			h := hub.New(hub.Options{})
			subs := make([]*hub.Subscription, n)
			for i := range subs {
				subs[i] = h.Subscribe("t")
				defer subs[i].Close()
			}
			frags := benchFrags(12)
			var buf []hub.Fragment
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				for j := range frags {
					frags[j].Seq = uint64(i)
				}
				h.Publish("t", frags...)
				for _, s := range subs {
					buf = s.Drain(buf[:0])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/delivery")
		})
	}
}
