package metrics

import (
	"bufio"
	"context"
	"fmt"
	"slices"
)

// counterFunc is a counter family with one label whose values are read when scraped: for
// counts another part keeps itself (a store's record of its faults).
type counterFunc struct {
	name, help, label string
	values            []string
	fn                func(value string) uint64
}

// CounterFunc registers a counter family with one label, a series for each of values, each
// read from fn at every scrape. fn must never go down for a value.
func (r *Registry) CounterFunc(name, help, label string, values []string, fn func(value string) uint64) {
	r.add(&counterFunc{name: name, help: help, label: label, values: slices.Clone(values), fn: fn})
}

func (c *counterFunc) write(_ context.Context, w *bufio.Writer) {
	header(w, c.name, c.help, "counter")
	for _, v := range c.values {
		fmt.Fprintf(w, "%s%s %d\n", c.name, labelText([]string{c.label}, []string{v}, "", ""), c.fn(v))
	}
}

// StoreUnavailable registers the count of store calls that failed because the storage could
// not take them (a full disk, the database unavailable), by cause: each became a 503 with
// Retry-After. causes are the label values; count reads the store's own tally of one.
func (s *Set) StoreUnavailable(causes []string, count func(cause string) uint64) {
	s.Registry.CounterFunc("plandash_store_unavailable_total",
		"Store calls that failed because the storage could not take them (disk full, database unavailable), by cause; each answered 503 with Retry-After.",
		"cause", causes, count)
}
