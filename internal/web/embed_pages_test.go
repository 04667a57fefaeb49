package web

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The panel's inbox and request pages draw the same requests as the tab's, inside the embed
// layout, and answer an unknown request with a 404.
func TestEmbedApprovalPages(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	first := ts.create(t, checklist)
	ts.page(t, "/") // signs the browser in: a panel takes its cookie, never ?token=
	code, doc := ts.page(t, "/embed/approvals")
	if code != 200 {
		t.Fatalf("embed inbox: %d", code)
	}
	rows := all(doc, `[data-testid=approvals-inbox] [data-testid=approval-row]`)
	if len(rows) != 1 || attr(rows[0], "data-id") != first.ID {
		t.Fatalf("embed inbox rows = %d", len(rows))
	}
	if len(all(doc, `[data-testid=nav-approvals]`)) != 1 {
		t.Fatal("embed inbox has no panel navigation")
	}

	code, doc = ts.page(t, "/embed/approvals/"+first.ID)
	if code != 200 {
		t.Fatalf("embed request: %d", code)
	}
	if n := len(all(doc, `[data-testid=plan-card] [data-testid=plan-entry]`)); n != 3 {
		t.Fatalf("embed request shows %d entries", n)
	}
	for _, id := range []string{"approve", "modify", "reject"} {
		if len(all(doc, `[data-testid=approval-panel] [data-testid=`+id+`]`)) != 1 {
			t.Fatalf("embed request has no %s", id)
		}
	}
	if code, _ := ts.page(t, "/embed/approvals/nope"); code != 404 {
		t.Fatalf("unknown request in the panel: %d", code)
	}

	// The panel's overview names what waits for the person, not only a count.
	_, doc = ts.page(t, "/embed")
	items := all(doc, `[data-testid=needs-you] [data-testid=needs-you-item] a`)
	if len(items) != 1 || attr(items[0], "href") != "/approvals/"+first.ID {
		t.Fatalf("the panel's Needs you lists %d waits", len(items))
	}
}

// The diagram stylesheet is CSS tied to the page's theme variables.
func TestDagStylesheet(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	resp, err := http.Get(ts.URL + "/static/dag.css")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Fatalf("dag.css: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if !strings.Contains(string(b), "--dag-text: var(--text)") || len(b) < 200 {
		t.Fatalf("dag.css lacks the theme mapping or the diagram rules: %.200s", b)
	}
}

// A session page that reconnects with a sequence this process never issued (it was served by
// the process before a restart) is sent the whole session as it is now, not told to reload.
func TestSessionSnapshotForAPageFromBeforeARestart(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.ingest(t, update("s1", planA))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wsURL := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws?topic=session:s1&since=999999"
	c, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + testToken}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	var got []frame
	for len(got) == 0 || !strings.Contains(got[len(got)-1].HTML, "Write tests") {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("after %d frames: %v", len(got), err)
		}
		f := decodeFrame(t, c, b)
		if f.T != "f" {
			t.Fatalf("a page from before a restart got %s, not the session", b)
		}
		got = append(got, f)
	}
	if got[0].Seq == 0 || got[0].Seq == 999999 {
		t.Fatalf("snapshot frames carry seq %d, not this process's", got[0].Seq)
	}
}
