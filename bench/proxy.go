package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/plandash/plandash/internal/benchplan"
	"github.com/plandash/plandash/internal/metrics/metricstest"
)

// exchange is the codec's recording of coder/acp-go-sdk's example client and agent talking.
const exchange = "internal/acp/testdata/gosdk_exchange.jsonl"

// transcript is n ACP frames of one long session: the recorded opening once, then its turn
// (prompt, message chunks, tool calls, a permission request and its answer) over and over, with
// a plan update in every turn: traffic of both directions, as an IDE and an agent exchange it.
func transcript(repo string, n int) ([]byte, error) {
	raw, err := os.ReadFile(filepath.Join(repo, exchange))
	if err != nil {
		return nil, err
	}
	frames := bytes.SplitAfter(bytes.TrimSpace(raw), []byte("\n"))
	frames[len(frames)-1] = append(frames[len(frames)-1], '\n')
	if len(frames) < 5 {
		return nil, fmt.Errorf("%s: too few frames", exchange)
	}
	plan := strings.Replace(benchplan.Line("sess_bench", 1), `"sessionUpdate":"plan"`, `"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p"`, 1)
	plan = strings.Replace(plan, `]}}}`, `]}}}}`, 1) + "\n"
	opening, turn := frames[:4], append(frames[4:], []byte(plan))
	var b bytes.Buffer
	for _, f := range opening {
		b.Write(f)
	}
	for i := range n - len(opening) {
		b.Write(turn[i%len(turn)])
	}
	return b.Bytes(), nil
}

// proxyRun is one pass of the transcript through a process tree.
type proxyRun struct {
	lastByte time.Duration // first byte written → last byte read back
	exit     time.Duration // first byte written → the process exited
	cpu      time.Duration // the whole tree's CPU (the process and the children it reaped)
	faults   int64         // the whole tree's minor page faults
	stderr   string
}

// benchProxy feeds the transcript, both directions, through `plandash acp -- cat` (the tap on,
// posting to a real dashboard) and through `cat | cat`.
func benchProxy(ctx context.Context, e *env) (*table, error) {
	n := 100_000
	if e.quick {
		n = 10_000
	}
	data, err := transcript(e.repo, n)
	if err != nil {
		return nil, err
	}
	pd, err := e.startPlandash()
	if err != nil {
		return nil, err
	}
	defer pd.stop()
	t := &table{title: fmt.Sprintf("proxy: %d messages (%.1f MB) IDE → agent → IDE, first byte in → last byte out", n, float64(len(data))/1e6),
		yard: "sh -c 'cat | cat', and in the second row sh -c 'cat | cat | cat' (plandash: plandash acp --server <real dashboard> -- cat, tap on)"}
	r := &row{name: "bulk, both directions (information)", unit: "s"}
	// The proxy's own shape with nothing in it but cat: a forwarder each way around the agent,
	// four pipes where cat | cat has three. The same plandash runs, against this yardstick too.
	shape := &row{name: "bulk, vs cat | cat | cat (information)", unit: "s"}
	var dashCPU, exits, faultsOurs, faultsYard []float64
	var reached []string
	for i := range e.runs {
		ours := func() error {
			cpu0, err := pd.cpu()
			if err != nil {
				return err
			}
			got0, err := e.ingested(ctx, pd)
			if err != nil {
				return err
			}
			// A long --flush: the run ends when the dashboard has taken every frame, so the
			// count below shows what the tap delivers to a dashboard that keeps up.
			cmd := exec.CommandContext(ctx, e.plandash, "acp", "--server", pd.URL, "--token", token,
				"--stream", fmt.Sprintf("bench-%d", i), "--flush", "2m", "--", "cat")
			cmd.Env = isolatedEnv(e.dir)
			res, err := pipeThrough(cmd, data)
			if err != nil {
				return fmt.Errorf("plandash acp: %w", err)
			}
			cpu1, err := pd.cpu()
			if err != nil {
				return err
			}
			r.ours, r.cpuOurs = append(r.ours, res.lastByte.Seconds()), append(r.cpuOurs, cpuPer(0, res.cpu, n))
			dashCPU = append(dashCPU, cpuPer(cpu0, cpu1, n))
			exits = append(exits, res.exit.Seconds())
			faultsOurs = append(faultsOurs, float64(res.faults))
			got1, err := e.ingested(ctx, pd)
			if err != nil {
				return err
			}
			reached = append(reached, fmt.Sprint(got1-got0))
			if res.stderr != "" {
				t.notes = append(t.notes, fmt.Sprintf("plandash acp run %d said: %.500s", i+1, res.stderr))
			}
			return settle(ctx) // before the yardstick's turn, if it comes next
		}
		yard := func() error {
			res, err := pipeThrough(exec.CommandContext(ctx, "sh", "-c", "cat | cat"), data)
			if err != nil {
				return fmt.Errorf("cat | cat: %w", err)
			}
			r.yard, r.cpuYard = append(r.yard, res.lastByte.Seconds()), append(r.cpuYard, cpuPer(0, res.cpu, n))
			faultsYard = append(faultsYard, float64(res.faults))
			res, err = pipeThrough(exec.CommandContext(ctx, "sh", "-c", "cat | cat | cat"), data)
			if err != nil {
				return fmt.Errorf("cat | cat | cat: %w", err)
			}
			shape.yard, shape.cpuYard = append(shape.yard, res.lastByte.Seconds()), append(shape.cpuYard, cpuPer(0, res.cpu, n))
			return nil
		}
		// The dashboard's work on the last run's frames must not run beside this one.
		if err := settle(ctx); err != nil {
			return nil, err
		}
		if err := pair(i, ours, yard); err != nil {
			return nil, err
		}
	}
	shape.ours, shape.cpuOurs = r.ours, r.cpuOurs // the same runs of plandash, against the other yardstick
	t.rows = append(t.rows, r, shape)
	t.notes = append(t.notes, "the bulk rows (100,000 frames written at once, both directions through cat) are kept as information: no IDE sends them so, and the goals are the replay below and the latencies of bench proxylat")
	hop := &row{ours: shape.yard, yard: r.yard}
	t.notes = append(t.notes, fmt.Sprintf("cat | cat | cat takes %s× as long as cat | cat (%s by run): what one more pipe hop costs with cat as its forwarder, which a proxy between the IDE and the agent adds",
		num(median(hop.ratios())), spread(hop.ratios())))
	t.notes = append(t.notes, fmt.Sprintf("plandash acp exited %s s (median) after the first byte: after its agent exits it keeps delivering the tap's frames to the dashboard (--flush)", num(median(exits))))
	t.notes = append(t.notes, fmt.Sprintf("frames that reached the dashboard, of %d (every frame crosses the proxy twice), by run: %s", 2*n, strings.Join(reached, ", ")))
	t.notes = append(t.notes, fmt.Sprintf("CPU column: the whole process tree per message; the dashboard server spent a further %s µs/msg (median) taking the tap's posts",
		num(median(dashCPU))))
	// What a lossless tap must pay here: a burst the dashboard cannot take as fast as it crosses
	// is held in memory, and memory the process never touched before costs a page fault a page.
	page, err := freshPageCost()
	if err != nil {
		return nil, err
	}
	pages := 2 * len(data) / 4096
	t.notes = append(t.notes, fmt.Sprintf("minor page faults, median of the whole tree: plandash acp %s (its whole run, delivery included), cat | cat %s",
		num(median(faultsOurs)), num(median(faultsYard))))
	t.notes = append(t.notes, fmt.Sprintf("fresh memory here costs %s µs a 4 KiB page: holding both directions' %.1f MB for the dashboard (%d pages) costs %s ms of faults alone, against %s ms for cat | cat's whole transfer",
		num(float64(page.Nanoseconds())/1e3), float64(2*len(data))/1e6, pages, num(float64(page.Nanoseconds())*float64(pages)/1e6), num(median(r.yard)*1e3)))
	// What a person waits for when an IDE loads a long session: the agent's replay, one way.
	if err := benchReplay(ctx, e, pd, t, n); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return t, nil
}

// freshPageCost is what touching one page of memory the process never had costs on this
// machine: 64 MiB mapped anew and written a byte a page.
func freshPageCost() (time.Duration, error) {
	const size = 64 << 20
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return 0, fmt.Errorf("map fresh memory: %w", err)
	}
	defer syscall.Munmap(b)
	start := time.Now()
	for i := 0; i < size; i += 4096 {
		b[i] = 1
	}
	return time.Since(start) / (size / 4096), nil
}

// startPiped starts cmd with its stdin and stdout piped and its stderr kept, and returns a buffer
// with room for want bytes of output and one more (to notice extra output), touched now so
// that its pages are not faulted in while the clock runs.
func startPiped(cmd *exec.Cmd, want int) (back []byte, in io.WriteCloser, out io.ReadCloser, stderr *bytes.Buffer, err error) {
	back = make([]byte, want+1)
	for i := 0; i < len(back); i += 4096 {
		back[i] = 1
	}
	if in, err = cmd.StdinPipe(); err != nil {
		return nil, nil, nil, nil, err
	}
	if out, err = cmd.StdoutPipe(); err != nil {
		return nil, nil, nil, nil, err
	}
	stderr = new(bytes.Buffer)
	cmd.Stderr = stderr
	if err = cmd.Start(); err != nil {
		return nil, nil, nil, nil, err
	}
	return back, in, out, stderr, nil
}

// pipeThrough writes data to cmd's stdin and reads its stdout to the end, checking every byte
// came back unchanged.
func pipeThrough(cmd *exec.Cmd, data []byte) (proxyRun, error) {
	var res proxyRun
	back, in, out, stderr, err := startPiped(cmd, len(data))
	if err != nil {
		return res, err
	}
	start := time.Now()
	writeErr := make(chan error, 1)
	go func() {
		_, err := in.Write(data)
		writeErr <- errors.Join(err, in.Close())
	}()
	// The last byte can come out well before stdout closes: plandash acp keeps delivering to the
	// dashboard after its agent exits. The IDE has everything at the last byte; exit is apart.
	// What comes back is read into memory and compared once the clock has stopped: the reader is
	// the instrument and must not compete for the cores (hashing it as it came cost as much CPU
	// as both cats together).
	got, copyErr := readAll(&lastByteReader{r: out, want: int64(len(data)), start: start, at: &res.lastByte}, back)
	waitErr := cmd.Wait()
	res.exit = time.Since(start)
	if err := errors.Join(<-writeErr, copyErr, waitErr); err != nil {
		return res, fmt.Errorf("%w (stderr: %.500s)", err, stderr.String())
	}
	if !bytes.Equal(got, data) {
		return res, fmt.Errorf("%d of %d bytes came back, or not the same bytes", len(got), len(data))
	}
	res.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.faults = ru.Minflt
	}
	res.stderr = strings.TrimSpace(stderr.String())
	return res, nil
}

// lastByteReader notes, in *at, when the want-th byte was read.
type lastByteReader struct {
	r     io.Reader
	n     int64
	want  int64
	start time.Time
	at    *time.Duration
}

func (l *lastByteReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.n += int64(n)
	if n > 0 && l.n >= l.want && *l.at == 0 {
		*l.at = time.Since(l.start)
	}
	return n, err
}

// ingested is how many ACP messages the dashboard has taken in so far, from its /metrics.
func (e *env) ingested(ctx context.Context, s *server) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	b, err := e.do(req)
	if err != nil {
		return 0, err
	}
	scrape, err := metricstest.Parse(bytes.NewReader(b))
	if err != nil {
		return 0, fmt.Errorf("/metrics: %w", err)
	}
	return int(scrape.Sum("plandash_ingest_messages_total")), nil
}

// readAll reads r into buf until EOF and returns what it read; more than buf holds is an error.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	n := 0
	for {
		if n == len(buf) {
			return buf[:n], fmt.Errorf("more than the %d bytes expected came back", len(buf)-1)
		}
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return buf[:n], nil
		}
		if err != nil {
			return buf[:n], err
		}
	}
}
