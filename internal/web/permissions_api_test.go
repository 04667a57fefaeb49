package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/acpproxy"
	"github.com/plandash/plandash/internal/client"
)

func (ts *testServer) post(t *testing.T, path, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestProxyPermissionsRoundTrip drives the proxy's broker against the real router: an offered
// request is listed, the dashboard's answer reaches the proxy, and the end is recorded with who
// resolved it.
func TestProxyPermissionsRoundTrip(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	b := &acpproxy.RemoteBroker{API: client.New(ts.URL, testToken), Stream: "st"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go b.Run(ctx)

	params := json.RawMessage(`{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"Edit"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}`)
	answered := make(chan acp.PermissionOutcome, 1)
	b.Offer(acpproxy.PermissionRequest{ID: json.RawMessage(`"p-1"`), SessionID: "s1", Params: params, InIDE: true},
		func(o acp.PermissionOutcome) error { answered <- o; return nil })

	list := ts.srv.perms.List()
	if len(list) != 1 || list[0].Stream != "st" || string(list[0].ID) != `"p-1"` || !list[0].InIDE || list[0].SessionID != "s1" {
		t.Fatalf("listed %+v", list)
	}
	for _, tc := range []struct {
		body string
		want int
	}{
		{`{"stream":"st","id":"p-1","outcome":{"outcome":"selected","optionId":"nope"}}`, http.StatusBadRequest},
		{`{"stream":"st","id":"p-2","outcome":{"outcome":"cancelled"}}`, http.StatusNotFound},
		{`{"stream":"other","id":"p-1","outcome":{"outcome":"cancelled"}}`, http.StatusNotFound},
		{`{"stream":"st","id":"p-1","outcome":{"outcome":"selected","optionId":"allow"}}`, http.StatusAccepted},
		{`{"stream":"st","id":"p-1","outcome":{"outcome":"cancelled"}}`, http.StatusConflict},
	} {
		if got := ts.post(t, "/api/v1/proxy/permissions/answer", tc.body); got != tc.want {
			t.Errorf("answer %s: %d, want %d", tc.body, got, tc.want)
		}
	}
	select {
	case o := <-answered:
		if o != (acp.PermissionOutcome{Outcome: "selected", OptionID: "allow"}) {
			t.Errorf("the proxy got %+v", o)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer never reached the proxy")
	}
	b.Resolved(json.RawMessage(`"p-1"`), acpproxy.Resolution{By: acpproxy.ByDashboard, Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: "allow"}})
	list = ts.srv.perms.List()
	if len(list) != 1 || list[0].ResolvedBy != "dashboard" || list[0].Outcome == nil || list[0].Outcome.OptionID != "allow" {
		t.Errorf("after the end: %+v", list)
	}
}

func TestProxyAnswersPollTimesOut(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/proxy/answers?stream=x&wait=10ms", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK || len(got) != 0 {
		t.Errorf("an idle poll answered %d %v %v, want 200 []", resp.StatusCode, got, err)
	}
	req, _ = http.NewRequest(http.MethodGet, ts.URL+"/api/v1/proxy/answers?stream=x", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Errorf("a poll without the token: %v", err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a poll without the token answered %s", resp.Status)
	}
}
