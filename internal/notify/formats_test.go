package notify_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
)

const base = "http://127.0.0.1:7420"

// clock is a test's clock, moved by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// flagTargets parses --notify values for targets at the receiver.
func flagTargets(t *testing.T, vals ...string) []notify.Target {
	var ts []notify.Target
	for i, v := range vals {
		tg, err := notify.ParseFlag(v, i+1)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tg)
	}
	return ts
}

// TestFormatsMatchTheirDocumentedShapes sends one wait to an ntfy topic, a Slack and a Discord
// webhook and a signed generic webhook, all on a loopback server, and checks each body against
// the shape its service documents.
func TestFormatsMatchTheirDocumentedShapes(t *testing.T) {
	rc := newReceiver(t)
	host := strings.TrimPrefix(rc.URL, "http://")
	src := newList()
	runWith(t, src,
		"ntfy+http://"+host+"/agents#priority=urgent",
		"slack+"+rc.URL+"/slack",
		"discord+"+rc.URL+"/discord",
		"webhook+"+rc.URL+"/hook#secret=s3cret")
	src.set(plan("plan-1"))
	got := map[string]received{}
	for range 4 {
		r := rc.next(t)
		got[r.Path] = r
	}

	var ntfy struct {
		Topic, Title, Message, Click string
		Priority                     int
		Actions                      []struct {
			Action, Label, URL, Method, Body string
			Headers                          map[string]string
			Clear                            bool
		}
	}
	decode(t, got["/"].Body, &ntfy)
	if ntfy.Topic != "agents" || ntfy.Priority != 5 || ntfy.Click != base+"/approvals/plan-1" || !strings.Contains(ntfy.Title, "Claude Code") ||
		!strings.Contains(ntfy.Message, "2. write") || len(ntfy.Actions) != 3 {
		t.Fatalf("ntfy = %+v", ntfy)
	}
	for i, a := range ntfy.Actions[:2] {
		if a.Action != "http" || a.Method != "POST" || !a.Clear || !strings.HasPrefix(a.URL, base+notify.LinkPath) || a.Label != []string{"Approve", "Reject"}[i] {
			t.Fatalf("ntfy action %d = %+v", i, a)
		}
	}
	if a := ntfy.Actions[2]; a.Action != "view" || a.URL != base+"/approvals/plan-1" {
		t.Fatalf("ntfy open action = %+v", a)
	}

	var slack struct {
		Text   string
		Blocks []struct {
			Type     string
			Text     struct{ Type, Text string }
			Elements []struct {
				Type, URL, Style string
				ActionID         string `json:"action_id"`
				Text             struct{ Type, Text string }
			}
		}
	}
	decode(t, got["/slack"].Body, &slack)
	if slack.Text == "" || len(slack.Blocks) != 2 || slack.Blocks[0].Type != "section" || slack.Blocks[0].Text.Type != "mrkdwn" || slack.Blocks[1].Type != "actions" {
		t.Fatalf("slack = %+v", slack)
	}
	for _, e := range slack.Blocks[1].Elements {
		if e.Type != "button" || e.Text.Type != "plain_text" || e.URL == "" || e.ActionID == "" {
			t.Fatalf("slack button = %+v", e)
		}
	}
	if e := slack.Blocks[1].Elements; len(e) != 3 || e[0].Style != "primary" || !strings.HasPrefix(e[0].URL, base+notify.LinkPath) {
		t.Fatalf("slack buttons = %+v", e)
	}

	var discord struct {
		Content string
		Embeds  []struct{ Title, Description, URL string }
		Allowed struct{ Parse []string } `json:"allowed_mentions"`
	}
	decode(t, got["/discord"].Body, &discord)
	if discord.Content == "" || len(discord.Embeds) != 1 || discord.Embeds[0].URL != base+"/approvals/plan-1" ||
		!strings.Contains(discord.Embeds[0].Description, "[Approve]("+base+notify.LinkPath) || discord.Allowed.Parse == nil || len(discord.Allowed.Parse) != 0 {
		t.Fatalf("discord = %s", got["/discord"].Body)
	}

	hook := got["/hook"]
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write([]byte(hook.Header.Get("X-Plandash-Timestamp") + "."))
	mac.Write(hook.Body)
	if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); hook.Header.Get("X-Plandash-Signature") != want {
		t.Fatalf("signature %q, want %q", hook.Header.Get("X-Plandash-Signature"), want)
	}
	var wh notify.WebhookBody
	decode(t, hook.Body, &wh)
	key := notify.DeliveryKey("flag-4", "plan-1", notify.Began)
	if hook.Header.Get("Idempotency-Key") != key || wh.IdempotencyKey != key || wh.Event != "wait.began" || len(wh.Waits) != 1 || wh.Waits[0].ID != "plan-1" ||
		hook.Header.Get("X-Plandash-Event") != "wait.began" {
		t.Fatalf("webhook = %s, headers %v", hook.Body, hook.Header)
	}
	var links map[string][]map[string]string
	var raw struct {
		Links json.RawMessage `json:"links"`
	}
	decode(t, hook.Body, &raw)
	decode(t, raw.Links, &links)
	if l := links["plan-1"]; len(l) != 2 || l[0]["action"] != "approve" || !strings.HasPrefix(l[0]["url"], base+notify.LinkPath) {
		t.Fatalf("webhook links = %s", raw.Links)
	}
	for p, r := range got {
		if strings.Contains(string(r.Body), "Bearer") || r.Header.Get("Authorization") != "" {
			t.Fatalf("%s carried credentials: %s %v", p, r.Body, r.Header)
		}
	}

	// When the wait ends, the webhook is told, ntfy clears the notification and Slack gets a
	// follow-up; Discord's edit needs the message id its reply names (TestChatMessagesClear).
	src.set()
	ends := map[string]received{}
	for range 3 {
		r := rc.next(t)
		ends[r.Path] = r
	}
	if end := ends["/hook"]; end.Header.Get("X-Plandash-Event") != "wait.ended" {
		t.Fatalf("after the end, the webhook got %s", end.Body)
	}
	if _, ok := ends["/agents/plandash-"+notify.HashToken(notify.DeliveryKey("flag-1", "plan-1", notify.Began))[:32]+"/clear"]; !ok {
		t.Fatalf("after the end: %v; want ntfy's clear", keys(ends))
	}
	if !strings.Contains(string(ends["/slack"].Body), "Answered: Refactor plan-1") {
		t.Fatalf("after the end, Slack got %s", ends["/slack"].Body)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// TestSeveralWaitsAreCoalesced: waits that begin together reach a chat target as one message.
func TestSeveralWaitsAreCoalesced(t *testing.T) {
	rc := newReceiver(t)
	src := newList()
	runWith(t, src, "slack+"+rc.URL+"/slack")
	var ws []notify.Wait
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		ws = append(ws, plan(id))
	}
	src.set(ws...)
	var slack struct{ Text string }
	r := rc.next(t)
	decode(t, r.Body, &slack)
	if slack.Text != "5 plans wait" || strings.Contains(string(r.Body), notify.LinkPath) {
		t.Fatalf("coalesced = %s; want one message, \"5 plans wait\", with no answer buttons", r.Body)
	}
	select {
	case extra := <-rc.got:
		t.Fatalf("a second message: %s", extra.Body)
	default:
	}
}

// TestDelayDropsWaitsAnsweredAtOnce: a wait answered within the target's delay is never
// announced; one still open after it is.
func TestDelayDropsWaitsAnsweredAtOnce(t *testing.T) {
	rc := newReceiver(t)
	src, clk := newList(), newClock()
	n := notify.New(store(t), src, notify.Config{BaseURL: base, Now: clk.Now, Static: flagTargets(t, "webhook+"+rc.URL+"/hook#delay=30s")})
	run(t, n)
	status := func(id string) notify.Status {
		ds, _ := n.Deliveries(context.Background(), "flag-1", 10)
		for _, d := range ds {
			if d.Wait.ID == id {
				return d.Status
			}
		}
		return ""
	}
	src.set(plan("quick"))
	waitFor(t, func() bool { return status("quick") == notify.Pending })
	src.set() // answered on the page at once
	waitFor(t, func() bool { return status("quick") == notify.Skipped })
	clk.add(time.Minute)
	src.set(plan("slow"))
	waitFor(t, func() bool { return status("slow") == notify.Pending })
	clk.add(time.Minute)
	sendDue(t, n)
	r := rc.next(t)
	var wh notify.WebhookBody
	decode(t, r.Body, &wh)
	if len(wh.Waits) != 1 || wh.Waits[0].ID != "slow" || wh.Event != "wait.began" {
		t.Fatalf("received %s; want only the slow wait", r.Body)
	}
}

// TestFiltersPickWaits: a target that asks for one agent hears nothing of another.
func TestFiltersPickWaits(t *testing.T) {
	rc := newReceiver(t)
	src := newList()
	runWith(t, src, "webhook+"+rc.URL+"/hook#agents=codex&kinds=plan")
	other := plan("claude-plan")
	mine := plan("codex-plan")
	mine.Agent, mine.AgentName = "codex", "Codex"
	src.set(other, mine)
	var wh notify.WebhookBody
	decode(t, rc.next(t).Body, &wh)
	if len(wh.Waits) != 1 || wh.Waits[0].ID != "codex-plan" {
		t.Fatalf("waits = %+v; want only codex's", wh.Waits)
	}
}

// TestWebhookBatchesWaitsThatBeginTogether: a burst reaches a webhook in requests of at most
// 25 waits, not one request per wait; each wait carries its own idempotency key and its answer
// links, and the request's key is the same whatever the order of its waits. Ends that come
// together are told together too, each with its own key.
func TestWebhookBatchesWaitsThatBeginTogether(t *testing.T) {
	rc := newReceiver(t)
	src := newList()
	runWith(t, src, "webhook+"+rc.URL+"/hook#secret=s")
	var ws []notify.Wait
	for i := range 30 {
		ws = append(ws, plan(fmt.Sprintf("p%02d", i)))
	}
	src.set(ws...)
	type body struct {
		notify.WebhookBody
		Links map[string][]map[string]string `json:"links"`
	}
	seen := map[string]bool{}
	var sizes []int
	for len(seen) < len(ws) {
		r := rc.next(t)
		var b body
		decode(t, r.Body, &b)
		if b.Event != "wait.began" || len(b.Waits) > 25 || len(b.Keys) != len(b.Waits) || len(b.Links) != len(b.Waits) {
			t.Fatalf("request = %s; want at most 25 waits, each with its key and its links", r.Body)
		}
		for _, w := range b.Waits {
			if seen[w.ID] {
				t.Fatalf("wait %s announced twice", w.ID)
			}
			seen[w.ID] = true
			if k := b.Keys[w.ID]; k != notify.DeliveryKey("flag-1", w.ID, notify.Began) {
				t.Fatalf("key of %s = %q", w.ID, k)
			}
			if l := b.Links[w.ID]; len(l) != 2 || l[0]["action"] != "approve" || !strings.HasPrefix(l[0]["url"], base+notify.LinkPath) {
				t.Fatalf("links of %s = %v", w.ID, l)
			}
		}
		if r.Header.Get("Idempotency-Key") != b.IdempotencyKey || len(b.Waits) > 1 && !strings.HasPrefix(b.IdempotencyKey, "batch|") {
			t.Fatalf("request key %q (header %q) for %d waits", b.IdempotencyKey, r.Header.Get("Idempotency-Key"), len(b.Waits))
		}
		sizes = append(sizes, len(b.Waits))
	}
	if len(sizes) > 2 {
		t.Fatalf("30 waits that began together came in %d requests (%v); want 25 and 5", len(sizes), sizes)
	}

	src.set(ws[2:]...) // two end at once
	r := rc.next(t)
	var b body
	decode(t, r.Body, &b)
	if b.Event != "wait.ended" || len(b.Waits) != 2 || b.Keys["p00"] != notify.DeliveryKey("flag-1", "p00", notify.Ended) ||
		b.Keys["p01"] != notify.DeliveryKey("flag-1", "p01", notify.Ended) {
		t.Fatalf("ends = %s; want both in one request, each with its own key", r.Body)
	}
}
