package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/web"
)

// TestNtfyAndSlackButtonsAnswer: the buttons of a real ntfy message and a real Slack message
// lead to working confirmation pages; ntfy's http action, sent as the ntfy app sends it, decides
// the plan ("from ntfy"); Slack's button for the other answer is then refused, the wait ended.
func TestNtfyAndSlackButtonsAnswer(t *testing.T) {
	bodies := make(chan [2]string, 10)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- [2]string{r.URL.Path, string(b)}
	}))
	t.Cleanup(rc.Close)
	var targets []notify.Target
	for i, v := range []string{"ntfy+" + rc.URL + "/agents", "slack+" + rc.URL + "/slack"} {
		tg, err := notify.ParseFlag(v, i+1)
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, tg)
	}
	data := t.TempDir()
	a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler), User: "ann"},
		DataDir: data, Token: "tok", PlansDir: data + "/plans", Notify: targets})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	n := &notifyApp{App: a, base: "http://" + ln.Addr().String()}
	id := n.submit(t, "Ship it")

	var ntfy struct {
		Actions []struct {
			Action, Label, URL, Method, Body string
			Headers                          map[string]string
		}
	}
	var slack struct {
		Blocks []struct {
			Elements []struct {
				ActionID string `json:"action_id"`
				URL      string
			}
		}
	}
	for got := 0; got < 2; got++ {
		select {
		case b := <-bodies:
			if b[0] == "/" {
				json.Unmarshal([]byte(b[1]), &ntfy)
			} else {
				json.Unmarshal([]byte(b[1]), &slack)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the messages never came")
		}
	}
	if len(ntfy.Actions) < 2 || len(slack.Blocks) < 2 || len(slack.Blocks[1].Elements) < 2 {
		t.Fatalf("ntfy %+v, slack %+v", ntfy, slack)
	}
	slackReject := slack.Blocks[1].Elements[1]
	if slackReject.ActionID != "plandash-reject" {
		t.Fatalf("slack's second button = %+v", slackReject)
	}
	if p := do(t, "GET", slackReject.URL, nil, nil); p.code != 200 || p.state != "confirm" || !strings.Contains(p.headline, "Reject") {
		t.Fatalf("Slack's button opens %+v; want the confirmation page", p)
	}
	approve := ntfy.Actions[0]
	if p := do(t, "GET", approve.URL, nil, nil); p.code != 200 || p.state != "confirm" {
		t.Fatalf("ntfy's button, opened, = %+v; want the confirmation page", p)
	}
	// As the ntfy app sends an http action: its method, headers and body, no Origin, no cookie.
	req, _ := http.NewRequest(approve.Method, approve.URL, strings.NewReader(approve.Body))
	for k, v := range approve.Headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r, _ := a.Gate.Get(ctx, id)
	if resp.StatusCode != 200 || r.Status != "approved" || r.Decision.By != "ann from ntfy" {
		t.Fatalf("ntfy's action: %d, request %s by %q", resp.StatusCode, r.Status, r.Decision.By)
	}
	if p := do(t, "POST", slackReject.URL, url.Values{"action": {"reject"}}, nil); p.code != 409 || !strings.Contains(p.message, "ended") {
		t.Fatalf("Slack's reject after ntfy approved = %+v", p)
	}
	if !strings.Contains(r.Decision.Comment, "Approved from ntfy") {
		t.Fatalf("the approval's comment = %q", r.Decision.Comment)
	}

	// A reject from a button gives the agent a reason it can act on, and no link or token.
	id = n.submit(t, "Drop the tables")
	var reject, followUp string
	for reject == "" || followUp == "" {
		select {
		case b := <-bodies:
			if b[0] == "/slack" && strings.Contains(b[1], "Answered: Ship it") {
				followUp = b[1] // Slack's incoming webhook cannot edit: a follow-up says how it ended
			}
			var m struct {
				Blocks []struct {
					Elements []struct {
						ActionID string `json:"action_id"`
						URL      string
					}
				}
			}
			json.Unmarshal([]byte(b[1]), &m)
			for _, bl := range m.Blocks {
				for _, e := range bl.Elements {
					if e.URL != "" && strings.HasSuffix(e.ActionID, "-reject") && strings.Contains(b[1], "Drop the tables") {
						reject = e.URL
					}
				}
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the second plan's messages never came")
		}
	}
	if !strings.Contains(followUp, "(approved by ann from ntfy)") {
		t.Fatalf("Slack's follow-up = %s; want how it ended", followUp)
	}
	if p := do(t, "POST", reject, url.Values{"action": {"reject"}}, nil); p.code != 200 {
		t.Fatalf("Slack's reject = %+v", p)
	}
	r, _ = a.Gate.Get(ctx, id)
	if r.Status != "rejected" || r.Decision.Comment != "Rejected from Slack by the person, with one tap: no reason was given. Do not carry out this plan; ask what to change, or propose another." ||
		strings.Contains(r.Decision.Comment, notify.LinkPath) {
		t.Fatalf("rejected %s with comment %q", r.Status, r.Decision.Comment)
	}
}
