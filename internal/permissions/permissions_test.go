package permissions

import (
	"context"
	"encoding/json"
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
