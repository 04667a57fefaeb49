package notify_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
)

// call is one request a chat service received.
type call struct {
	Method, Path, Query string
	Body                []byte
}

// chatServer is a loopback stand-in for ntfy, Slack and Discord that answers as they document:
// ntfy and Discord (with ?wait=true) answer with the message they stored, Discord's with its
// snowflake id; Slack answers "ok".
func chatServer(t *testing.T) (*httptest.Server, chan call) {
	calls := make(chan call, 100)
	var ids atomic.Int64
	ids.Store(1234567890123456000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls <- call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: b}
		switch {
		case strings.HasPrefix(r.URL.Path, "/api/webhooks/") && r.Method == http.MethodPost && r.URL.Query().Get("wait") == "true":
			// Discord's message object: the id among many other fields, some of them before it.
			fmt.Fprintf(w, `{"type":0,"content":%q,"embeds":[{"title":"x","description":%q}],"id":"%d","channel_id":"1","webhook_id":"2"}`,
				"plan waits", strings.Repeat("é", 3000), ids.Add(1))
		case strings.HasPrefix(r.URL.Path, "/api/webhooks/"):
			fmt.Fprint(w, `{"id":"1"}`)
		case strings.HasPrefix(r.URL.Path, "/slack"):
			fmt.Fprint(w, "ok")
		default:
			fmt.Fprintf(w, `{"id":"abc","event":"message"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, calls
}

func nextCall(t *testing.T, calls chan call) call {
	t.Helper()
	select {
	case c := <-calls:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("the service received nothing")
	}
	return call{}
}

// TestChatMessagesClear: when a wait ends, ntfy's notification is cleared by the sequence id
// it was posted with (PUT /TOPIC/SEQ/clear), Discord's message is edited by the id its reply
// named (PATCH …/messages/ID, links gone), and Slack, whose incoming webhooks cannot edit,
// gets a follow-up saying it was answered.
func TestChatMessagesClear(t *testing.T) {
	srv, calls := chatServer(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	src := newList()
	runWith(t, src,
		"ntfy+http://"+host+"/agents",
		"discord+"+srv.URL+"/api/webhooks/42/tok?thread_id=7",
		"slack+"+srv.URL+"/slack")
	src.set(plan("p1"))
	began := map[string]call{}
	for range 3 {
		c := nextCall(t, calls)
		began[c.Path] = c
	}
	var ntfy struct {
		SequenceID string `json:"sequence_id"`
	}
	decode(t, began["/"].Body, &ntfy)
	if ntfy.SequenceID == "" || strings.ContainsAny(ntfy.SequenceID, "/?#") {
		t.Fatalf("ntfy publish = %s; want a sequence id", began["/"].Body)
	}
	if d := began["/api/webhooks/42/tok"]; d.Method != http.MethodPost || !strings.Contains(d.Query, "wait=true") || !strings.Contains(d.Query, "thread_id=7") {
		t.Fatalf("discord post = %+v; want ?wait=true, the thread kept", d)
	}
	src.set() // answered in the browser, maybe before every announcement was recorded
	ended := map[string]call{}
	for range 3 {
		c := nextCall(t, calls)
		ended[c.Method+" "+c.Path] = c
	}
	if _, ok := ended["PUT /agents/"+ntfy.SequenceID+"/clear"]; !ok {
		t.Fatalf("after the end: %v; want ntfy's PUT /agents/%s/clear", keys(ended), ntfy.SequenceID)
	}
	edit, ok := ended["PATCH /api/webhooks/42/tok/messages/1234567890123456001"]
	if !ok {
		t.Fatalf("after the end: %v; want Discord's PATCH of message 1234567890123456001", keys(ended))
	}
	var msg struct {
		Content string
		Embeds  []any
		Allowed *struct{ Parse []string } `json:"allowed_mentions"`
	}
	decode(t, edit.Body, &msg)
	if edit.Query != "thread_id=7" || !strings.Contains(msg.Content, "Answered: Refactor p1") || msg.Embeds == nil || len(msg.Embeds) != 0 || msg.Allowed == nil {
		t.Fatalf("discord edit ?%s %s; want the thread, the answer, no embeds (the links go), no mentions", edit.Query, edit.Body)
	}
	slack := ended["POST /slack"]
	var follow struct{ Text string }
	decode(t, slack.Body, &follow)
	if !strings.Contains(follow.Text, "Answered: Refactor p1") {
		t.Fatalf("slack follow-up = %s", slack.Body)
	}
	select {
	case c := <-calls:
		t.Fatalf("an extra request: %+v", c)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestCoalescedMessageClearsWithItsLastWait: a "3 plans wait" message stays while any of its
// waits is open and is cleared, once, when the last ends.
func TestCoalescedMessageClearsWithItsLastWait(t *testing.T) {
	srv, calls := chatServer(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	src := newList()
	n := runWith(t, src, "ntfy+http://"+host+"/agents")
	src.set(plan("a"), plan("b"), plan("c"))
	var pub struct {
		Title      string
		SequenceID string `json:"sequence_id"`
	}
	decode(t, nextCall(t, calls).Body, &pub)
	if pub.Title != "3 plans wait" {
		t.Fatalf("published %+v", pub)
	}
	lastDelivery(t, n, "flag-1", func(d notify.Delivery) bool { return d.Status == notify.Sent })
	src.set(plan("c")) // a and b answered
	waitFor(t, func() bool {
		ds, _ := n.Deliveries(t.Context(), "flag-1", 10)
		skipped := 0
		for _, d := range ds {
			if d.Event == notify.Ended && d.Status == notify.Skipped {
				skipped++
			}
		}
		return skipped == 2
	})
	select {
	case c := <-calls:
		t.Fatalf("cleared while c is open: %+v", c)
	default:
	}
	src.set()
	if c := nextCall(t, calls); c.Method != http.MethodPut || c.Path != "/agents/"+pub.SequenceID+"/clear" {
		t.Fatalf("after the last end: %+v", c)
	}
}

// FuzzDiscordMessageID: whatever Discord (or something posing as it) answers, the id read is
// a snowflake or an error, never a path segment of another shape.
func FuzzDiscordMessageID(f *testing.F) {
	for _, s := range []string{`{"id":"1234567890123456789"}`, `{"id":"../x"}`, `{"id":1}`, `[]`, ``, `{"id":"123456789012345678901"}`, `{"content":"x","id":"7"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		id, err := notify.DiscordMessageID(reply)
		if err != nil {
			if id != "" {
				t.Fatalf("an error with an id %q", id)
			}
			return
		}
		if id == "" || len(id) > 20 || strings.Trim(id, "0123456789") != "" {
			t.Fatalf("id %q is not a snowflake", id)
		}
		var v struct{ ID string }
		if json.Unmarshal(reply, &v) != nil || v.ID != id {
			t.Fatalf("id %q is not the reply's", id)
		}
	})
}
