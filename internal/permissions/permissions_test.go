package permissions

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/errs"
)

const params = `{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"Edit main.go"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"deny","name":"Deny","kind":"reject_once"}]}`

func offer(t *testing.T, in *Inbox, stream, id string) {
	t.Helper()
	if err := in.Offer("proxy", Request{Stream: stream, ID: json.RawMessage(id), SessionID: "s1", Params: json.RawMessage(params)}); err != nil {
		t.Fatal(err)
	}
}

func TestFirstAnswerWins(t *testing.T) {
	var mu sync.Mutex
	var titles []string
	in := New(nil)
	in.OnChange(func(latest string) { mu.Lock(); titles = append(titles, latest); mu.Unlock() })
	offer(t, in, "st", " 7 ")
	if in.OpenCount() != 1 {
		t.Fatalf("open %d", in.OpenCount())
	}
	if err := in.Answer("st", json.RawMessage("7"), acp.PermissionOutcome{Outcome: "selected", OptionID: "nope"}, "ann"); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("an option never offered: %v", err)
	}
	if err := in.Answer("st", json.RawMessage("7"), acp.PermissionOutcome{Outcome: "selected", OptionID: "allow"}, "ann"); err != nil {
		t.Fatal(err)
	}
	if err := in.Answer("st", json.RawMessage("7"), acp.PermissionOutcome{Outcome: "selected", OptionID: "deny"}, "bob"); errs.KindOf(err) != errs.Conflict {
		t.Fatalf("a second answer: %v, want a conflict", err)
	}
	if err := in.Answer("other", json.RawMessage("7"), acp.PermissionOutcome{Outcome: "cancelled"}, "bob"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("unknown stream: %v", err)
	}
	if in.OpenCount() != 0 {
		t.Fatal("an answered request still counts as open")
	}
	got, _ := in.Answers(context.Background(), "proxy", "st", time.Second)
	if len(got) != 1 || got[0].Outcome.OptionID != "allow" || got[0].By != "ann" || string(got[0].ID) != "7" {
		t.Fatalf("answers %+v", got)
	}
	in.Resolve("proxy", "st", json.RawMessage("7"), "dashboard", &acp.PermissionOutcome{Outcome: "selected", OptionID: "allow"})
	if l := in.List(); len(l) != 1 || l[0].ResolvedBy != "dashboard" {
		t.Fatalf("list %+v", l)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(titles) != 3 || titles[0] != "Edit main.go" {
		t.Fatalf("changes announced: %q", titles)
	}
}

func TestAnswersWakesTheWaiter(t *testing.T) {
	in := New(nil)
	offer(t, in, "st", "1")
	got := make(chan []Answer, 1)
	go func() { a, _ := in.Answers(context.Background(), "proxy", "st", time.Minute); got <- a }()
	// The waiter may or may not be parked yet: either way it must get the answer.
	if err := in.Answer("st", json.RawMessage("1"), acp.PermissionOutcome{Outcome: "cancelled"}, "ann"); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-got:
		if len(a) != 1 || a[0].Outcome.Outcome != "cancelled" {
			t.Fatalf("answers %+v", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter was never woken")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if a, _ := in.Answers(ctx, "proxy", "st", time.Minute); len(a) != 0 {
		t.Fatalf("a cancelled wait returned %+v", a)
	}
}

func TestResolvedAreBounded(t *testing.T) {
	in := New(nil)
	for i := range maxResolved + 50 {
		id, _ := json.Marshal(i)
		offer(t, in, "st", string(id))
		in.Resolve("proxy", "st", id, "ide", nil)
	}
	if n := len(in.List()); n != maxResolved {
		t.Fatalf("%d ended requests kept, want %d", n, maxResolved)
	}
	if err := in.Offer("proxy", Request{Stream: "", ID: json.RawMessage("1")}); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("offer without a stream: %v", err)
	}
}

// TestStreamBelongsToItsOwner: the first owner to use a stream keeps it; another's offer,
// resolution and poll are Forbidden. An open request's id is offered once: other params from
// the owner are a Conflict, the same ones (a reconnect) are fine, and once the request ended a
// new request may reuse its id.
func TestStreamBelongsToItsOwner(t *testing.T) {
	in := New(nil)
	offer(t, in, "st", "1")
	other := Request{Stream: "st", ID: json.RawMessage("1"), SessionID: "s1", Params: json.RawMessage(`{"sessionId":"s1","toolCall":{"title":"ls"}}`)}
	if err := in.Offer("intruder", other); errs.KindOf(err) != errs.Forbidden {
		t.Fatalf("another owner's offer: %v", err)
	}
	if err := in.Resolve("intruder", "st", json.RawMessage("1"), "ide", nil); errs.KindOf(err) != errs.Forbidden {
		t.Fatalf("another owner's resolution: %v", err)
	}
	if _, err := in.Answers(context.Background(), "intruder", "st", time.Millisecond); errs.KindOf(err) != errs.Forbidden {
		t.Fatalf("another owner's poll: %v", err)
	}
	if err := in.Offer("proxy", other); errs.KindOf(err) != errs.Conflict {
		t.Fatalf("the owner's offer of other params: %v", err)
	}
	offer(t, in, "st", " 1 ") // the same request again, after a reconnect
	if l := in.List(); len(l) != 1 || Title(l[0].Params) != "Edit main.go" {
		t.Fatalf("listed %+v", l)
	}
	if err := in.Resolve("proxy", "st", json.RawMessage("1"), "ide", nil); err != nil {
		t.Fatal(err)
	}
	if err := in.Offer("proxy", other); err != nil {
		t.Fatalf("a new request reusing an ended one's id: %v", err)
	}
	if err := in.Offer("", other); err == nil {
		t.Fatal("an offer without an owner was taken")
	}
	for _, stream := range []string{"", strings.Repeat("s", MaxStreamBytes+1)} {
		if _, err := in.Answers(context.Background(), "proxy", stream, time.Millisecond); errs.KindOf(err) != errs.Invalid {
			t.Errorf("a poll on stream of %d bytes: %v, want invalid", len(stream), err)
		}
	}
}

// TestIdleStreamsAreForgotten: bindings of streams unused for a day and with no requests kept
// are forgotten once there are many, so their names can be used again.
func TestIdleStreamsAreForgotten(t *testing.T) {
	m := NewMemory()
	ctx := context.Background()
	t0 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for i := range maxIdleStreams {
		if _, err := m.Claim(ctx, "s-"+strconv.Itoa(i), "a", t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Offer(ctx, Request{Stream: "s-1", ID: json.RawMessage("1")}, func(*Request) error { return nil }); err != nil {
		t.Fatal(err)
	}
	later := t0.Add(StreamIdle + time.Hour)
	if _, err := m.Claim(ctx, "new", "b", later); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.Claim(ctx, "s-0", "b", later); got != "b" {
		t.Errorf("an idle stream is still bound to %q", got)
	}
	if got, _ := m.Claim(ctx, "s-1", "b", later); got != "a" {
		t.Errorf("a stream with a request kept was rebound to %q", got)
	}
}
