package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// row is one case of a benchmark: a figure per run for plandash and for the yardstick, and,
// where it means something, CPU per message of each side's server.
type row struct {
	name         string
	unit         string
	higherBetter bool      // throughput (msgs/s) rather than time
	ours, yard   []float64 // one figure per run
	cpuOurs      []float64 // µs of server CPU per message, per run; nil when not measured
	cpuYard      []float64
	note         string
}

// table is a benchmark's result: its rows and what the yardstick was.
type table struct {
	title string
	yard  string
	rows  []*row
	notes []string
}

// median of xs (which it sorts a copy of).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratios are plandash's figure over the yardstick's, run by run: for times, >1 means plandash is
// slower; for throughputs, <1 means plandash is slower.
func (r *row) ratios() []float64 {
	var out []float64
	for i := range min(len(r.ours), len(r.yard)) {
		if r.yard[i] != 0 {
			out = append(out, r.ours[i]/r.yard[i])
		}
	}
	return out
}

func spread(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s–%s", num(slices.Min(xs)), num(slices.Max(xs)))
}

// num prints a figure with about three significant digits.
func num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 100:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func (t *table) print(w io.Writer) {
	fmt.Fprintf(w, "\n## %s\nyardstick: %s\n\n", t.title, t.yard)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tunit\tplandash\tyardstick\tratio\tratio range\tplandash range\tyardstick range\tCPU µs/msg plandash\tCPU µs/msg yardstick\t")
	for _, r := range t.rows {
		cpu := func(xs []float64) string {
			if xs == nil {
				return "-"
			}
			return num(median(xs))
		}
		better := "lower is better"
		if r.higherBetter {
			better = "higher is better"
		}
		rs := r.ratios()
		fmt.Fprintf(tw, "%s\t%s (%s)\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.name, r.unit, better,
			num(median(r.ours)), num(median(r.yard)), num(median(rs)), spread(rs), spread(r.ours), spread(r.yard),
			cpu(r.cpuOurs), cpu(r.cpuYard))
	}
	tw.Flush()
	for _, r := range t.rows {
		if r.note != "" {
			fmt.Fprintf(w, "- %s: %s\n", r.name, r.note)
		}
	}
	for _, n := range t.notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
}

// cpuPer is µs of CPU per message between two readings.
func cpuPer(before, after time.Duration, msgs int) float64 {
	if msgs == 0 {
		return 0
	}
	return float64((after - before).Microseconds()) / float64(msgs)
}

// firstOrder says whether plandash goes first in run i: alternating, so neither side always
// meets a warm (or a tired) machine.
func firstOrder(i int) bool { return i%2 == 0 }

// pair runs ours and yard once each, in the order run i calls for.
func pair(i int, ours, yard func() error) error {
	if firstOrder(i) {
		if err := ours(); err != nil {
			return err
		}
		return yard()
	}
	if err := yard(); err != nil {
		return err
	}
	return ours()
}

// verdict says whether a goal is met, loudly when it is not.
func verdict(ok bool) string {
	if ok {
		return "meets the goal"
	}
	return "MISSES THE GOAL"
}
