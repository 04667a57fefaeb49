package acpproxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/web"
)

// gosdkExchange is the codec's recording of coder/acp-go-sdk's example client and agent
// talking (see internal/acp/testdata/README.md); the proxy's tests replay it rather than keep a
// copy.
const gosdkExchange = "../acp/testdata/gosdk_exchange.jsonl"

// planUpdateLine is one session/update frame holding a plan_update of entries items.
func planUpdateLine(entries int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_b0c39167111088253d25ea18","update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"plan","entries":[`)
	statuses := []string{"completed", "in_progress", "pending"}
	for i := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"content":"Step %d: update the handler and its tests","priority":"medium","status":"%s"}`, i, statuses[min(i, 2)])
	}
	b.WriteString(`]}}}}`)
	return []byte(b.String())
}

// transcript is n ACP frames of one long session: the Go SDK example's opening (initialize,
// session/new) once, then its turn over and over (prompt, message chunks, tool calls, a
// permission request and its answer), with a plan update in every turn.
func transcript(tb testing.TB, n int) []byte {
	raw, err := os.ReadFile(gosdkExchange)
	if err != nil {
		tb.Fatal(err)
	}
	frames := bytes.SplitAfter(bytes.TrimSpace(raw), []byte("\n"))
	frames[len(frames)-1] = append(frames[len(frames)-1], '\n')
	opening, turn := frames[:4], append(frames[4:], append(planUpdateLine(8), '\n'))
	var b bytes.Buffer
	for _, f := range opening {
		b.Write(f)
	}
	for i := range n - len(opening) {
		b.Write(turn[i%len(turn)])
	}
	return b.Bytes()
}

// realDashboard is plandash's whole server (SQLite in a temp dir, the live layer, every route)
// on a loopback port: the tap's posts are applied and stored, as in use. A dashboard that
// discards what it gets would flatter the proxy, whose sink then never waits on a commit.
func realDashboard(tb testing.TB) *client.Client {
	tb.Helper()
	data := tb.TempDir()
	a, err := app.Open(context.Background(), app.Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)},
		DataDir: data, Token: "bench", PlansDir: filepath.Join(data, "plans")})
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		a.Close()
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	tb.Cleanup(func() {
		cancel()
		<-served
		a.Close()
	})
	return client.New("http://"+ln.Addr().String(), "bench")
}

// pipeThroughCatCat sends data through `cat | cat`, the yardstick of a process that forwards
// both ways, and returns how long until the last byte came out.
func pipeThroughCatCat(tb testing.TB, data []byte) time.Duration {
	cmd := exec.Command("sh", "-c", "cat | cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	go func() {
		in.Write(data)
		in.Close()
	}()
	n, _ := io.Copy(io.Discard, out)
	d := time.Since(start)
	if err := cmd.Wait(); err != nil {
		tb.Fatal(err)
	}
	if n != int64(len(data)) {
		tb.Fatalf("cat | cat passed %d of %d bytes", n, len(data))
	}
	return d
}

// pipeThroughProxiedCat is the whole round trip an IDE sees: the transcript goes through the
// proxy to a cat agent and back through the proxy, tapped both ways, the tap's sink posting to
// api. The clock runs until the last byte is back at the IDE.
func pipeThroughProxiedCat(tb testing.TB, data []byte, api *client.Client, p Proxy) (time.Duration, QueueStats) {
	cinR, cinW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	coutR, coutW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	tap := NewTap(TapOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	sinkDone := make(chan struct{})
	go func() {
		(&Sink{API: api, Stream: fmt.Sprintf("bench-%p", tap)}).Run(ctx, tap)
		close(sinkDone)
	}()
	p.ClientIn, p.ClientOut, p.Tap = cinR, coutW, tap
	done := make(chan struct{})
	go func() {
		(&Agent{Cmd: exec.Command("cat")}).Run(&p)
		coutW.Close()
		close(done)
	}()
	start := time.Now()
	go func() {
		cinW.Write(data)
		cinW.Close()
	}()
	n, _ := io.Copy(io.Discard, coutR)
	d := time.Since(start)
	<-done
	st := tap.Stats()
	cancel()
	<-sinkDone
	cinR.Close()
	coutR.Close()
	// With --plan-updates the proxy rewrites initialize and plan updates for the IDE; otherwise
	// not a byte changes.
	if n == 0 || !p.PlanUpdates && n != int64(len(data)) {
		tb.Fatalf("the proxied cat passed %d of %d bytes", n, len(data))
	}
	return d, st
}

// BenchmarkProxyVsCat passes a 100k-message transcript both ways — IDE → proxy → cat agent →
// proxy → IDE, the tap on and its sink posting to a real dashboard — and, in the same
// iteration, through `cat | cat`, and reports each one's throughput and their ratio. raw
// forwards as it reads; lines is --plan-updates (line by line, rewriting plans). The proxy runs
// in this process here; bench/ (go run ./bench proxy) runs the real binary.
func BenchmarkProxyVsCat(b *testing.B) {
	data := transcript(b, 100_000)
	api := realDashboard(b)
	for _, mode := range []struct {
		name string
		p    Proxy
	}{{"raw", Proxy{}}, {"lines", Proxy{PlanUpdates: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var cat, proxy time.Duration
			var dropped uint64
			for i := 0; b.Loop(); i++ {
				// Alternate which goes first, so neither always meets a warm machine.
				if i%2 == 0 {
					cat += pipeThroughCatCat(b, data)
				}
				d, st := pipeThroughProxiedCat(b, data, api, mode.p)
				if i%2 == 1 {
					cat += pipeThroughCatCat(b, data)
				}
				proxy += d
				dropped += st.Dropped
			}
			mb := float64(len(data)) * float64(b.N) / 1e6
			b.ReportMetric(mb/cat.Seconds(), "catcat-MB/s")
			b.ReportMetric(mb/proxy.Seconds(), "proxy-MB/s")
			b.ReportMetric(proxy.Seconds()/cat.Seconds(), "proxy/catcat-time")
			b.ReportMetric(float64(dropped)/float64(b.N), "tap-dropped/op")
		})
	}
}

// BenchmarkProxyLatency sends one message at a time and waits for it at the other end, through
// a bare pipe and through the proxy (tap on), and reports the proxy's added latency.
func BenchmarkProxyLatency(b *testing.B) {
	line := append(planUpdateLine(3), '\n')
	chunk := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_b0c39167111088253d25ea18","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"I'll help you with that."}}}}` + "\n")
	api := realDashboard(b)
	for _, mode := range []struct {
		name string
		p    Proxy
	}{{"raw", Proxy{}}, {"lines", Proxy{PlanUpdates: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			// The bare pipe: what any process in between costs at least.
			dr, dw, _ := os.Pipe()
			defer dr.Close()
			defer dw.Close()
			// The proxy, agent→IDE direction, as plans travel.
			aoutR, aoutW, _ := os.Pipe()
			coutR, coutW, _ := os.Pipe()
			cinR, cinW, _ := os.Pipe()
			_, ainW, _ := os.Pipe()
			tap := NewTap(TapOptions{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go (&Sink{API: api, Stream: "bench-latency-" + mode.name}).Run(ctx, tap)
			p := mode.p
			p.ClientIn, p.ClientOut, p.AgentIn, p.AgentOut, p.Tap = cinR, coutW, ainW, aoutR, tap
			go p.Run()
			defer func() { aoutW.Close(); cinW.Close(); coutR.Close() }()
			direct, via := bufio.NewReader(dr), bufio.NewReader(coutR)
			var bare, proxied []time.Duration
			for i := 0; b.Loop(); i++ {
				msg := chunk
				if i%10 == 0 {
					msg = line
				}
				bare = append(bare, roundTrip(b, dw, direct, msg))
				proxied = append(proxied, roundTrip(b, aoutW, via, msg))
			}
			slices.Sort(bare)
			slices.Sort(proxied)
			q := func(d []time.Duration, p float64) float64 {
				return float64(d[int(float64(len(d)-1)*p)].Nanoseconds()) / 1e3
			}
			b.ReportMetric(q(bare, 0.5), "pipe-p50-µs")
			b.ReportMetric(q(bare, 0.99), "pipe-p99-µs")
			b.ReportMetric(q(proxied, 0.5), "proxy-p50-µs")
			b.ReportMetric(q(proxied, 0.99), "proxy-p99-µs")
			b.ReportMetric(q(proxied, 0.99)-q(bare, 0.99), "added-p99-µs")
		})
	}
}

func roundTrip(b *testing.B, w io.Writer, r *bufio.Reader, msg []byte) time.Duration {
	start := time.Now()
	if _, err := w.Write(msg); err != nil {
		b.Fatal(err)
	}
	got, err := r.ReadSlice('\n')
	d := time.Since(start)
	if err != nil || len(got) != len(msg) {
		b.Fatalf("read %d bytes, %v", len(got), err)
	}
	return d
}

// BenchmarkTapFeed is the tap's cost on the forwarding path per 64 KiB read.
func BenchmarkTapFeed(b *testing.B) {
	data := transcript(b, 2000)[:64<<10]
	tap := NewTap(TapOptions{MaxFrames: 1 << 30, MaxBytes: 1 << 40})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tap.Feed(acp.AgentToClient, data)
		if i%64 == 0 {
			for tap.q.take(1<<20, 1<<30) != nil {
				tap.q.done()
			}
		}
	}
}
