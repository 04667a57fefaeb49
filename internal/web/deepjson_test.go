package web

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/net/html"
)

// maxShownSize is what one page, fragment or API answer may weigh with the deep value ingested;
// before the bounded formatter the overview weighed 162 MB and the history page 327 MB.
const maxShownSize = 2 << 20

// deepJSON is a 54 KB object nested 9,000 deep, as outside testing sent it.
func deepJSON() string {
	return strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000)
}

// A deeply nested value in every place JSON is rendered keeps every page, socket frame and API
// answer small, and the pages say it was shortened and offer the raw text.
func TestDeepJSONIsBounded(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	deep := deepJSON()
	wsURL := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws?topic=session:s"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + testToken}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(64 << 20) // let an oversized frame arrive, so the test measures it

	body := strings.Join([]string{
		update("s", `{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"}]}`),
		update("s", `{"sessionUpdate":"plan_update","plan":{"type":"_vendor/deep","planId":"deep","data":`+deep+`}}`),
		update("s", `{"sessionUpdate":"plan_update","plan":{"type":"_vendor/deep","planId":"deep","data":`+deep+`,"rev":2}}`),
		update("s", `{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Deep","status":"in_progress","rawInput":`+deep+`}`),
		update("s", `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","rawOutput":`+deep+`}`),
		update("s", `{"sessionUpdate":"_vendor_unknown","x":`+deep+`}`),
		update("s", `{"sessionUpdate":"plan_update","plan":{"type":"_dag","planId":"flow","calls":[{"_id":"a","_tool":"x","arg":`+deep+`}]}}`),
	}, "\n")
	if code, res := ts.ingest(t, body); code != http.StatusOK || len(res.Errors) != 0 {
		t.Fatalf("ingest: %d %+v", code, res.Errors)
	}

	offer := `{"stream":"st","id":7,"sessionId":"s","inIde":true,"params":{"sessionId":"s",` +
		`"toolCall":{"toolCallId":"c2","title":"Deep","rawInput":` + deep + `,"content":[` + deep + `]},` +
		`"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`
	if code := ts.post(t, "/api/v1/proxy/permissions", offer); code != http.StatusNoContent {
		t.Fatalf("offer: %d", code)
	}
	// The gate refuses arguments nested deeper than 64 levels; 60 is still collapsed when shown.
	deep60 := strings.Repeat(`{"a":`, 60) + "1" + strings.Repeat("}", 60)
	req := ts.create(t, `{"title":"Deep","sessionId":"s","plan":{"type":"_dag","calls":[{"_id":"a","_tool":"x","arg":`+deep60+`}]}}`)

	// Socket frames: read until the deep plan's card arrived.
	for sawDeep := false; !sawDeep; {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("no frame with the deep plan: %v", err)
		}
		if len(b) > maxShownSize {
			t.Fatalf("a socket frame weighs %d bytes", len(b))
		}
		sawDeep = strings.Contains(string(b), `data-plan-id=\"deep\"`)
	}

	pages := []struct {
		path      string
		shortened int // at least this many values say they were shortened
	}{
		{"/", 1},
		{"/sessions/s", 4}, // the plan, the tool call's input and output, the unknown update
		{"/sessions/s/plans/deep/history", 0},
		{"/embed/sessions/s", 4},
		{"/approvals", 0},
		{"/approvals/" + req.ID, 0},
	}
	for _, p := range pages {
		t.Run("page "+p.path, func(t *testing.T) {
			raw := ts.get(t, p.path)
			if len(raw) > maxShownSize {
				t.Fatalf("%s weighs %d bytes", p.path, len(raw))
			}
			doc, err := html.Parse(strings.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(all(doc, `[data-testid=json-shortened]`)); n < p.shortened {
				t.Errorf("%d values say they were shortened, want at least %d", n, p.shortened)
			}
			for _, d := range all(doc, `[data-testid=json-raw] pre`) {
				if !strings.Contains(text(d), `{"a":{"a":{"a":1}}}`) {
					t.Errorf("the raw view does not hold the whole value: %.60q", text(d))
				}
			}
		})
	}
	for _, path := range []string{"/api/v1/plans", "/api/v1/sessions/s", "/api/v1/sessions/s/plans/deep/history",
		"/api/v1/proxy/permissions", "/api/v1/approvals", "/api/v1/approvals/" + req.ID} {
		code, raw := ts.api(t, "GET", path, nil)
		if code != http.StatusOK || len(raw) > maxShownSize {
			t.Errorf("%s: %d, %d bytes", path, code, len(raw))
		}
	}
}

// get fetches a page as text, logging in through ?token= the first time.
func (ts *testServer) get(t *testing.T, path string) string {
	t.Helper()
	u := ts.URL + path
	if !ts.loggedIn() {
		u += "?token=" + testToken
	}
	resp, err := ts.client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d", path, resp.StatusCode)
	}
	return string(b)
}
