package amp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestRealAmpPluginRuntime: the REAL Amp CLI loads plandash's plugin as `plandash install amp`
// writes it and hands it session.start (`amp plugins exec`, Amp's own plugin runtime, offline);
// the plugin posts to a real HTTP server around a Service on the real plans service, and the
// thread shows in plandash with the directory Amp ran in and the machine's name. Amp's agent loop
// itself does not run here (see agenttest.Amp), so the other events are tested on payloads of
// the documented shape (TestCapture).
func TestRealAmpPluginRuntime(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	p := agenttest.Plans(t)
	svc := NewService(p, nil, Config{Host: "server"})
	got := make(chan string, 4)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.URL.Path != "/api/v1/hooks/amp" || r.Header.Get("Authorization") != "Bearer tok-1" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			got <- r.URL.Path + " " + r.Header.Get("Authorization")
			return
		}
		ans, err := svc.Handle(r.Context(), body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		} else {
			_, _ = w.Write(ans)
		}
		got <- string(body)
	}))
	t.Cleanup(hs.Close)

	a := agenttest.NewAmp(t)
	a.Env = append(a.Env, "PWD="+a.Dir) // as a shell sets it
	token := a.Home + "/token"
	if err := os.WriteFile(token, []byte("tok-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := PluginDir(a.Dir, os.Getenv)
	rep, err := Install(dir, PluginOptions{Server: hs.URL, TokenFile: token})
	if err != nil || !rep.Changed {
		t.Fatalf("install: %+v %v", rep, err)
	}
	const thread = "T-9f0c2a55-0d7e-4c8b-9a51-3f5e2f1d7a10"
	res := a.PluginExec(time.Minute, rep.Path, EventSessionStart, `{"thread":{"id":"`+thread+`"}}`)
	if res.Err != nil {
		t.Fatalf("amp plugins exec: %v\nstdout: %s\nstderr: %s", res.Err, res.Stdout, res.Stderr)
	}
	select {
	case body := <-got:
		if !strings.Contains(body, `"event":"session.start"`) {
			t.Fatalf("posted %s", body)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the plugin posted nothing\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	}
	sess, err := p.SessionOnly(context.Background(), SessionKey(thread))
	if err != nil || sess.Cwd != a.Dir {
		t.Fatalf("session = %+v, %v; want cwd %s", sess, err, a.Dir)
	}
}
