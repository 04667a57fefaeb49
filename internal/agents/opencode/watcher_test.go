package opencode

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestReconnectAndAuth: a real HTTP server that ends the stream after each event, and refuses
// requests without the password: the watcher reconnects with basic auth and applies both
// todo lists.
func TestReconnectAndAuth(t *testing.T) {
	var conns atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "opencode" || p != "s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		n := conns.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		status := "in_progress"
		if n > 1 {
			status = "completed"
		}
		fmt.Fprintf(w, "data: {\"type\":\"server.connected\",\"properties\":{}}\n\n")
		fmt.Fprintf(w, "data: {\"type\":\"todo.updated\",\n")
		fmt.Fprintf(w, "data: \"properties\":{\"sessionID\":\"ses_1\",\"todos\":[{\"content\":\"Parse\",\"status\":%q,\"priority\":\"high\"}]}}\n\n", status)
	}))
	t.Cleanup(hs.Close)
	r := newRig(t)
	user, pass := AuthFromEnv(func(k string) string { return map[string]string{"OPENCODE_SERVER_PASSWORD": "s3cret"}[k] })
	r.watch(t, hs.URL, Options{Username: user, Password: pass, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond})
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := r.plans.Session(context.Background(), OpenCode.SessionKey("ses_1"))
		if err == nil && len(d.Plans) == 1 && d.Plans[0].Entries[0].Status == "completed" {
			if d.Plans[0].Revision < 2 {
				t.Errorf("revision %d", d.Plans[0].Revision)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second connection's todos never arrived: %+v %v (connections %d)", d.Plans, err, conns.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
