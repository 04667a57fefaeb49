// Package metrics is a small, dependency-free implementation of the Prometheus text exposition
// format (version 0.0.4): counters, gauges, gauges read at scrape time and histograms, with or
// without labels. plandash needs a handful of series, so a few hundred lines here beat a client
// library and its transitive modules.
//
// Label values are escaped as the format requires, but a registry keeps every label
// combination it is given forever: callers must only pass values from a bounded set (a method
// name from a fixed list, an agent plandash knows), never raw outside input.
package metrics

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ContentType is the media type of WriteText's output.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Registry holds metric families and writes them in registration order.
type Registry struct {
	mu   sync.Mutex
	fams []family
}

// family is one metric name with its HELP, TYPE and series.
type family interface {
	write(ctx context.Context, w *bufio.Writer)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

func (r *Registry) add(f family) {
	r.mu.Lock()
	r.fams = append(r.fams, f)
	r.mu.Unlock()
}

// WriteText writes every family in the text exposition format. ctx is handed to gauge
// functions (which may query a database) and bounds them.
func (r *Registry) WriteText(ctx context.Context, w io.Writer) error {
	r.mu.Lock()
	fams := slices.Clone(r.fams)
	r.mu.Unlock()
	bw := bufio.NewWriter(w)
	for _, f := range fams {
		f.write(ctx, bw)
	}
	return bw.Flush()
}

// header writes the HELP and TYPE lines of a family.
func header(w *bufio.Writer, name, help, typ string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, escapeHelp(help), name, typ)
}

// escapeHelp escapes what HELP text may not hold raw: backslashes and newlines.
func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

// escapeLabel escapes a label value: backslashes, double quotes and newlines.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// labelText renders {k="v",…} for names and values (and one extra pair when extraK is set);
// "" when there are none.
func labelText(names, values []string, extraK, extraV string) string {
	if len(names) == 0 && extraK == "" {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%s="%s"`, n, escapeLabel(values[i]))
	}
	if extraK != "" {
		if len(names) > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%s="%s"`, extraK, escapeLabel(extraV))
	}
	b.WriteByte('}')
	return b.String()
}

// formatFloat writes a sample value as the format spells it (+Inf, -Inf, NaN).
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// vec keeps a family's series by label values, in first-use order.
type vec[T any] struct {
	labels []string
	mu     sync.RWMutex
	byKey  map[string]*T
	keys   [][]string
	newT   func() *T
}

func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("metrics: %d label values for %d labels", len(values), len(v.labels)))
	}
	key := strings.Join(values, "\xff")
	v.mu.RLock()
	t, ok := v.byKey[key]
	v.mu.RUnlock()
	if ok {
		return t
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if t, ok := v.byKey[key]; ok {
		return t
	}
	t = v.newT()
	v.byKey[key] = t
	v.keys = append(v.keys, slices.Clone(values))
	return t
}

func (v *vec[T]) each(fn func(values []string, t *T)) {
	v.mu.RLock()
	keys := slices.Clone(v.keys)
	v.mu.RUnlock()
	for _, k := range keys {
		v.mu.RLock()
		t := v.byKey[strings.Join(k, "\xff")]
		v.mu.RUnlock()
		fn(k, t)
	}
}

func newVec[T any](labels []string, newT func() *T) vec[T] {
	return vec[T]{labels: labels, byKey: map[string]*T{}, newT: newT}
}

// Counter is a value that only goes up.
type Counter struct{ n atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.n.Add(1) }

// Add adds n.
func (c *Counter) Add(n uint64) { c.n.Add(n) }

// Value is the count so far.
func (c *Counter) Value() uint64 { return c.n.Load() }

// CounterVec is a counter family, one counter per combination of label values.
type CounterVec struct {
	name, help string
	vec[Counter]
}

// Counter registers a counter family. Its name should end in _total.
func (r *Registry) Counter(name, help string, labels ...string) *CounterVec {
	c := &CounterVec{name: name, help: help, vec: newVec(labels, func() *Counter { return &Counter{} })}
	r.add(c)
	return c
}

// With is the counter of these label values, created at zero on first use.
func (c *CounterVec) With(values ...string) *Counter { return c.with(values) }

func (c *CounterVec) write(_ context.Context, w *bufio.Writer) {
	header(w, c.name, c.help, "counter")
	c.each(func(values []string, n *Counter) {
		fmt.Fprintf(w, "%s%s %d\n", c.name, labelText(c.labels, values, "", ""), n.Value())
	})
}

// Gauge is a value that goes up and down.
type Gauge struct {
	name, help string
	n          atomic.Int64
}

// Gauge registers a gauge without labels.
func (r *Registry) Gauge(name, help string) *Gauge {
	g := &Gauge{name: name, help: help}
	r.add(g)
	return g
}

// Add adds d (negative to subtract).
func (g *Gauge) Add(d int64) { g.n.Add(d) }

// Value is the gauge's value.
func (g *Gauge) Value() int64 { return g.n.Load() }

func (g *Gauge) write(_ context.Context, w *bufio.Writer) {
	header(w, g.name, g.help, "gauge")
	fmt.Fprintf(w, "%s %d\n", g.name, g.Value())
}

// gaugeFunc is a gauge read when scraped.
type gaugeFunc struct {
	name, help string
	fn         func(context.Context) (float64, error)
	onErr      func(error)
}

// GaugeFunc registers a gauge whose value fn reads at each scrape, under the scrape's context.
// When fn fails the sample is left out (HELP and TYPE stay) and onErr, if set, is told: a
// missing sample is what Prometheus treats as "unknown", where a made-up zero would lie.
func (r *Registry) GaugeFunc(name, help string, fn func(context.Context) (float64, error), onErr func(error)) {
	r.add(&gaugeFunc{name: name, help: help, fn: fn, onErr: onErr})
}

func (g *gaugeFunc) write(ctx context.Context, w *bufio.Writer) {
	header(w, g.name, g.help, "gauge")
	v, err := g.fn(ctx)
	if err != nil {
		if g.onErr != nil {
			g.onErr(err)
		}
		return
	}
	fmt.Fprintf(w, "%s %s\n", g.name, formatFloat(v))
}

// Info registers a gauge fixed at 1 whose labels carry facts (the build's version and Go
// version), the usual way to expose them.
func (r *Registry) Info(name, help string, labels, values []string) {
	r.add(&info{name: name, help: help, labels: slices.Clone(labels), values: slices.Clone(values)})
}

type info struct {
	name, help     string
	labels, values []string
}

func (i *info) write(_ context.Context, w *bufio.Writer) {
	header(w, i.name, i.help, "gauge")
	fmt.Fprintf(w, "%s%s 1\n", i.name, labelText(i.labels, i.values, "", ""))
}

// Histogram counts observations into cumulative buckets.
type Histogram struct {
	upper  []float64 // bucket upper bounds, ascending; +Inf is implicit
	counts []atomic.Uint64
	count  atomic.Uint64
	sum    atomic.Uint64 // float64 bits
}

// Observe records one value.
func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.upper, v) // first bound >= v: buckets are "less or equal"
	if i < len(h.counts) {
		h.counts[i].Add(1)
	}
	h.count.Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// ObserveDuration records d in seconds.
func (h *Histogram) ObserveDuration(d time.Duration) { h.Observe(d.Seconds()) }

// Count is how many values were observed.
func (h *Histogram) Count() uint64 { return h.count.Load() }

// HistogramVec is a histogram family, one histogram per combination of label values.
type HistogramVec struct {
	name, help string
	vec[Histogram]
}

// DefaultBuckets suit latencies from a fraction of a millisecond to ten seconds.
var DefaultBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Histogram registers a histogram family with these bucket upper bounds (DefaultBuckets when
// nil). Its name should end in the unit, e.g. _seconds.
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if buckets == nil {
		buckets = DefaultBuckets
	}
	up := slices.Clone(buckets)
	slices.Sort(up)
	up = slices.Compact(up)
	h := &HistogramVec{name: name, help: help, vec: newVec(labels, func() *Histogram {
		return &Histogram{upper: up, counts: make([]atomic.Uint64, len(up))}
	})}
	r.add(h)
	return h
}

// With is the histogram of these label values, created empty on first use.
func (h *HistogramVec) With(values ...string) *Histogram { return h.with(values) }

func (h *HistogramVec) write(_ context.Context, w *bufio.Writer) {
	header(w, h.name, h.help, "histogram")
	h.each(func(values []string, hist *Histogram) {
		// Read the total first: buckets observed after it can only make the cumulative counts
		// larger, and the +Inf bucket must equal _count, so both are taken from the same total.
		total := hist.Count()
		var cum uint64
		for i, up := range hist.upper {
			cum += hist.counts[i].Load()
			fmt.Fprintf(w, "%s_bucket%s %d\n", h.name, labelText(h.labels, values, "le", formatFloat(up)), min(cum, total))
		}
		fmt.Fprintf(w, "%s_bucket%s %d\n", h.name, labelText(h.labels, values, "le", "+Inf"), total)
		fmt.Fprintf(w, "%s_sum%s %s\n", h.name, labelText(h.labels, values, "", ""), formatFloat(math.Float64frombits(hist.sum.Load())))
		fmt.Fprintf(w, "%s_count%s %d\n", h.name, labelText(h.labels, values, "", ""), total)
	})
}
