//go:build race

package web

// raceEnabled reports whether the tests run under the race detector, which makes filling a
// store with 100,000 sessions take minutes.
const raceEnabled = true
