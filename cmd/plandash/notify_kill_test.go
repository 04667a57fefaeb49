package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// hookLog is what a loopback webhook target received: idempotency keys by wait.
type hookLog struct {
	mu      sync.Mutex
	hang    bool
	release chan struct{}
	keys    map[string][]string // wait id -> the keys of every request that announced it
	n       int
}

func (h *hookLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body struct {
		Event string
		Keys  map[string]string // each wait's own idempotency key: a batch sent again may be split differently
		Waits []struct{ ID string }
	}
	json.Unmarshal(b, &body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	if h.hang {
		// In flight when the server is killed, and never answered: as far as plandash can
		// tell, never delivered. Not counted as received.
		h.mu.Unlock()
		<-h.release
		h.mu.Lock()
		return
	}
	if body.Event == "wait.began" {
		for _, w := range body.Waits {
			h.keys[w.ID] = append(h.keys[w.ID], body.Keys[w.ID])
		}
	}
}

func (h *hookLog) snapshot() (int, map[string][]string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string][]string{}
	for k, v := range h.keys {
		out[k] = append([]string(nil), v...)
	}
	return h.n, out
}

var servingOn = regexp.MustCompile(`plandash serve on (http://\S+)`)

// startServe runs a real `plandash serve` and returns it with its address.
func startServe(t *testing.T, bin, data, hook string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", data, "--token", "tok", "--codex-sessions", "",
		"--notify", "webhook+"+hook, "--open-browser=false")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := servingOn.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, out)
			return cmd, m[1]
		}
	}
	t.Fatal("plandash serve never said where it listens")
	return nil, ""
}

// TestOutboxSurvivesKill9: plan approvals are announced to a webhook that hangs; the server is
// killed (SIGKILL) with one announcement in flight (leased) and the rest due; a new server on
// the same data announces every one (the leased one once its lease ran out), and any wait
// announced twice carries the same idempotency key.
func TestOutboxSurvivesKill9(t *testing.T) {
	bin := buildPlandash(t)
	log := &hookLog{hang: true, release: make(chan struct{}), keys: map[string][]string{}}
	rc := httptest.NewServer(log)
	t.Cleanup(func() { close(log.release); rc.Close() })
	data := t.TempDir()
	cmd, base := startServe(t, bin, data, rc.URL+"/hook")
	var ids []string
	for i := range 5 {
		body := `{"title":"Plan ` + string(rune('A'+i)) + `","agent":"claude","timeout":"48h","plan":{"type":"markdown","markdown":"1. do it"}}`
		req, _ := http.NewRequest("POST", base+"/api/v1/approvals", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ ID string }
		json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		ids = append(ids, "plan-"+r.ID)
	}
	for n, _ := log.snapshot(); n == 0; n, _ = log.snapshot() {
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, no cleanup
		t.Fatal(err)
	}
	cmd.Wait()
	log.mu.Lock()
	log.hang = false
	log.mu.Unlock()

	startServe(t, bin, data, rc.URL+"/hook")
	deadline := time.Now().Add(90 * time.Second) // the killed server's leases run out first
	for {
		_, keys := log.snapshot()
		missing := 0
		for _, id := range ids {
			if len(keys[id]) == 0 {
				missing++
			}
		}
		if missing == 0 {
			for id, ks := range keys {
				for _, k := range ks {
					if k != ks[0] || !strings.Contains(k, id) {
						t.Fatalf("wait %s announced with keys %v; want one key, naming it", id, ks)
					}
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d waits never announced after the restart: %v", missing, len(ids), keys)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
