package main

import (
	"runtime"
	"runtime/debug"
)

// acpRuntime sets the Go runtime up for a process whose first job is to pass frames on at once,
// and whose side job (the tap, its posts) comes in bursts. What a person set in GOGC or
// GOMAXPROCS is left alone.
//
// Spare processors: a forwarding goroutine wakes when its pipe becomes readable, but the runtime
// only learns that when a processor with nothing else queued polls for it, or when its monitor
// looks (every 10 ms). While the tap and a post in the making keep every processor busy, a frame
// waited there for milliseconds, which was most of the proxy's worst-case latency. With two
// processors more than the machine's share, one is nearly always idle and parked in the poller,
// so the kernel wakes it the moment a frame arrives; the operating system, not the runtime, then
// shares the cores out.
//
// Fewer collections: the posts and the frames held for them are short-lived garbage (tens of MB
// a second under a plan-heavy load), and with the default GOGC the collector ran about ten
// times a second, taking a processor and a share of the CPU each time, beside the forwarding.
// The proxy's live heap is small (the tap's queue), so letting it grow to five times that before
// collecting costs a few MB and runs the collector a few times a second instead. A memory limit
// with collection otherwise off would be fewer still, but the tap may hold a burst larger than
// any modest limit, and past the limit the collector would run without pause. With --serve the
// embedded dashboard shares the setting: it is one person's convenience server.
func acpRuntime(getenv func(string) string) {
	if getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 2)
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}
