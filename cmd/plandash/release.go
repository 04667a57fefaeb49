package main

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/plandash/plandash/internal/live"
)

// Memory a burst of changes took is given back once the changes stop. The runtime collects when
// the heap has grown to twice what was live at the last collection and returns to the system only
// memory that collection freed, so after a burst (a thousand sessions posting, then quiet) the
// garbage of its last stretch stayed resident until the runtime's two-minute forced collection,
// and what it freed was returned slowly after that: measured from outside (bench memory), 1,000
// sessions at 200 updates/s left resident memory 1.5× its idle level a minute after they stopped.
const (
	quietCheck = 10 * time.Second // how often the server looks whether changes stopped
	burstSize  = 1000             // changes since the last release that make a burst worth one
)

// releaseWhenQuiet watches the live layer's change number, seq, at every tick, and once burst
// changes or more have been followed by a tick's interval without any, calls release: one
// collection per burst, never one while changes flow.
func releaseWhenQuiet(ctx context.Context, seq func() uint64, tick <-chan time.Time, burst uint64, release func()) {
	last := seq()
	since := last // the change number at the last release
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
		now := seq()
		if now == last && now-since >= burst {
			release()
			since = now
		}
		last = now
	}
}

// releaseMemory runs releaseWhenQuiet for serve: every quietCheck, burstSize changes; the live
// layer forgets the markup it kept for patches, then debug.FreeOSMemory (a collection, then
// every free page returned).
func releaseMemory(ctx context.Context, l *live.Live) {
	t := time.NewTicker(quietCheck)
	defer t.Stop()
	releaseWhenQuiet(ctx, l.Seq, t.C, burstSize, func() {
		l.Forget()
		debug.FreeOSMemory()
	})
}
