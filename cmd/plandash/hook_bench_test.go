package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/web"
)

// reportPercentiles adds p50 and p99 of ds to the benchmark's figures, in milliseconds.
func reportPercentiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(q float64) float64 { return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))]) / 1e6 }
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}

// BenchmarkHookGateDecision is a person's decision reaching a waiting `plandash hook claude`
// (the real process, held at the gate by a plan-mode plan): from the decision's POST to the hook
// process having printed its answer and exited.
func BenchmarkHookGateDecision(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "plandash")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	event, err := os.ReadFile("../../internal/agents/claude/testdata/permission_exitplanmode.json")
	if err != nil {
		b.Fatal(err)
	}
	a, err := app.Open(context.Background(), app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: b.TempDir(), Token: "tok"})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(a.Server.Handler())
	b.Cleanup(func() { ts.Close(); a.Close() })
	api := func(method, path, body string) []byte {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return out
	}
	home := b.TempDir()
	var ds []time.Duration
	for i := 0; b.Loop(); i++ {
		// Each round is a new session, so its plan is a new request.
		ev := bytes.Replace(event, []byte(`"session_id":"`), []byte(`"session_id":"r`+strconv.Itoa(i)+`-`), 1)
		cmd := exec.Command(bin, "hook", "claude", "--server", ts.URL, "--token", "tok")
		cmd.Stdin = bytes.NewReader(ev)
		cmd.Env = []string{"HOME=" + home}
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		var id string
		for id == "" {
			var list struct{ Requests []struct{ ID string } }
			_ = json.Unmarshal(api("GET", "/api/v1/approvals?status=pending", ""), &list)
			if len(list.Requests) > 0 {
				id = list.Requests[0].ID
			} else {
				time.Sleep(time.Millisecond)
			}
		}
		start := time.Now()
		api("POST", "/api/v1/approvals/"+id+"/decision", `{"action":"reject","comment":"no"}`)
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		if !strings.Contains(out.String(), `"deny"`) {
			b.Fatalf("the hook printed %q", out.String())
		}
	}
	reportPercentiles(b, ds)
}
