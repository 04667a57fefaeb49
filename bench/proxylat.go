package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/plandash/plandash/internal/benchplan"
)

// benchProxyLatency is what a person at the IDE feels of the proxy: the time each frame gains on
// its way, at the rates agents really produce. Frames of a real session's mix (the transcript
// above: message chunks, tool calls, a plan update, a permission request and its answer) are
// written one at a time at a steady rate into `plandash acp -- cat` (the tap on, posting to a
// real dashboard) and into `cat | cat | cat` (the proxy's own shape: a forwarder each way around
// the agent, with nothing in it but cat); a frame's latency is from just before it is written to
// when its last byte is read back, so it crosses the process tree twice, as an IDE's request and
// the agent's answer do. A plan-heavy mix (every frame a plan update of a 60-entry plan) is a row
// of its own.
func benchProxyLatency(ctx context.Context, e *env) (*table, error) {
	type load struct {
		name   string
		rate   int // frames a second
		frames int
		heavy  bool
	}
	loads := []load{{"mix", 200, 2_000, false}, {"mix", 2_000, 10_000, false}, {"plan-heavy", 2_000, 10_000, true}}
	if e.quick {
		loads = []load{{"mix", 200, 200, false}, {"mix", 2_000, 1_000, false}, {"plan-heavy", 2_000, 1_000, true}}
	}
	mix, err := transcript(e.repo, 10_000)
	if err != nil {
		return nil, err
	}
	mixFrames := bytes.SplitAfter(mix, []byte("\n"))
	heavyFrames := make([][]byte, 0, 1000)
	for i := range 1000 {
		heavyFrames = append(heavyFrames, []byte(benchplan.LongPlanUpdate("sess_heavy", 60, i)+"\n"))
	}
	pd, err := e.startPlandash()
	if err != nil {
		return nil, err
	}
	defer pd.stop()
	t := &table{title: "proxy latency: frames written one at a time at a steady rate, IDE → agent → IDE (a frame crosses the tree twice)",
		yard: "sh -c 'cat | cat | cat', the proxy's shape with nothing in it but cat (plandash: plandash acp --server <real dashboard> -- cat, tap on)"}
	for li, l := range loads {
		src := mixFrames
		if l.heavy {
			src = heavyFrames
		}
		frames := make([][]byte, l.frames)
		for i := range frames {
			frames[i] = src[i%len(src)]
		}
		p50 := &row{name: fmt.Sprintf("%s at %d/s, p50", l.name, l.rate), unit: "µs"}
		p99 := &row{name: fmt.Sprintf("%s at %d/s, p99", l.name, l.rate), unit: "µs"}
		for i := range e.runs {
			ours := func() error {
				cmd := exec.CommandContext(ctx, e.plandash, "acp", "--server", pd.URL, "--token", token,
					"--stream", fmt.Sprintf("lat-%d-%d", li, i), "--flush", "2m", "--", "cat")
				cmd.Env = isolatedEnv(e.dir)
				lat, cpu, err := paced(cmd, frames, l.rate)
				if err != nil {
					return fmt.Errorf("plandash acp: %w", err)
				}
				p50.ours, p99.ours = append(p50.ours, µs(quantile(lat, 0.50))), append(p99.ours, µs(quantile(lat, 0.99)))
				p50.cpuOurs = append(p50.cpuOurs, cpuPer(0, cpu, len(frames)))
				return settle(ctx)
			}
			yard := func() error {
				lat, cpu, err := paced(exec.CommandContext(ctx, "sh", "-c", "cat | cat | cat"), frames, l.rate)
				if err != nil {
					return fmt.Errorf("cat | cat | cat: %w", err)
				}
				p50.yard, p99.yard = append(p50.yard, µs(quantile(lat, 0.50))), append(p99.yard, µs(quantile(lat, 0.99)))
				p50.cpuYard = append(p50.cpuYard, cpuPer(0, cpu, len(frames)))
				return nil
			}
			if err := settle(ctx); err != nil {
				return nil, err
			}
			if err := pair(i, ours, yard); err != nil {
				return nil, err
			}
		}
		p99.cpuOurs, p99.cpuYard = p50.cpuOurs, p50.cpuYard
		t.rows = append(t.rows, p50, p99)
	}
	for _, r := range t.rows {
		// The goal: each run's figure within 1.5× the yardstick's in the same run, plus 50 µs.
		met := len(r.ours) > 0
		for i := range min(len(r.ours), len(r.yard)) {
			met = met && r.ours[i] <= 1.5*r.yard[i]+50
		}
		t.notes = append(t.notes, fmt.Sprintf("%s: goal ≤ 1.5× the yardstick + 50 µs in every run: %s", r.name, verdict(met)))
	}
	t.notes = append(t.notes, "CPU column: the whole process tree per frame (both crossings)")
	return t, nil
}

// paced writes frames into cmd's stdin at rate a second, each from a steady clock (a late frame
// does not push the next ones later), reads its stdout, and returns each frame's latency: from
// just before the frame was written to the read that brought its last byte. It checks every byte
// came back unchanged, and returns the process tree's CPU.
func paced(cmd *exec.Cmd, frames [][]byte, rate int) ([]time.Duration, time.Duration, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	total := 0
	for _, f := range frames {
		total += len(f)
	}
	sent := make([]time.Time, len(frames))
	got := make([]time.Time, 0, len(frames))
	back := make([]byte, 0, total+1)
	// Let the tree start (plandash connects to its dashboard) before the clock runs.
	time.Sleep(300 * time.Millisecond)
	writeErr := make(chan error, 1)
	go func() {
		start := time.Now()
		interval := time.Second / time.Duration(rate)
		for i, f := range frames {
			if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
				time.Sleep(d)
			}
			sent[i] = time.Now()
			if _, err := in.Write(f); err != nil {
				writeErr <- errors.Join(err, in.Close())
				return
			}
		}
		writeErr <- in.Close()
	}()
	buf := make([]byte, 256<<10)
	var readErr error
	for {
		n, err := out.Read(buf)
		now := time.Now()
		for _, c := range buf[:n] {
			if c == '\n' {
				got = append(got, now)
			}
		}
		back = append(back, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
	}
	waitErr := cmd.Wait()
	if err := errors.Join(<-writeErr, readErr, waitErr); err != nil {
		return nil, 0, fmt.Errorf("%w (stderr: %.500s)", err, stderr.String())
	}
	if !bytes.Equal(back, bytes.Join(frames, nil)) || len(got) != len(frames) {
		return nil, 0, fmt.Errorf("%d of %d bytes and %d of %d frames came back, or not the same bytes", len(back), total, len(got), len(frames))
	}
	lat := make([]time.Duration, len(frames))
	for i := range frames {
		lat[i] = got[i].Sub(sent[i])
	}
	return lat, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// µs is d in microseconds.
func µs(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
