package app

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/store/postgres/pgtest"
	"github.com/plandash/plandash/internal/waits"
)

// waitList is GET /api/v1/waits's body.
type waitList struct {
	Seq   uint64       `json:"seq"`
	Waits []waits.Wait `json:"waits"`
}

func (in *instance) waits(t testing.TB, query string) waitList {
	t.Helper()
	code, body := in.call(t, "GET", "/api/v1/waits"+query, "")
	if code != 200 {
		t.Fatalf("GET /api/v1/waits%s: %d %s", query, code, body)
	}
	var l waitList
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatalf("waits: %v: %s", err, body)
	}
	return l
}

// permissionOffer is a proxy offering an agent's permission request, as `plandash acp` does.
const permissionOffer = `{"stream":"st-1","id":7,"sessionId":"s1","params":{"sessionId":"s1",` +
	`"toolCall":{"toolCallId":"c9","title":"Run rm -rf build","kind":"execute","rawInput":{"command":"rm -rf build"}},` +
	`"options":[{"optionId":"allow","name":"Allow once","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`

// TestWaitsListAnswer: a plan and a permission request are one list, oldest first, with who
// waits and their one-tap actions; the long poll answers when the list moves; answering ends a
// wait once, and a second answer learns what happened.
func TestWaitsListAnswer(t *testing.T) {
	a := startInstance(t, "")
	empty := a.waits(t, "")
	if len(empty.Waits) != 0 || empty.Seq == 0 {
		t.Fatalf("empty list = %+v", empty)
	}
	if code, body := a.call(t, "POST", "/api/v1/ingest", planLine("s1", "Build")); code/100 != 2 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	if code, body := a.call(t, "POST", "/api/v1/approvals", `{"id":"deploy","sessionId":"s1","title":"Deploy","plan":{"type":"items","entries":[{"content":"Tag","priority":"high","status":"pending"}]},"timeout":"10m"}`); code != 201 {
		t.Fatalf("submit: %d %s", code, body)
	}
	l := a.waits(t, "")
	if len(l.Waits) != 1 || l.Seq <= empty.Seq {
		t.Fatalf("after a submission: %+v (seq before %d)", l, empty.Seq)
	}
	w := l.Waits[0]
	if w.ID != "plan-deploy" || w.Kind != waits.KindPlan || w.Title != "Deploy" || w.Detail != "1. Tag\n" || !w.Fits || !w.Answerable ||
		w.SessionID != "s1" || w.URL != "/approvals/deploy" || w.Deadline.IsZero() || w.Then != "rejected" || len(w.Actions) != 2 || w.Actions[0].ID != "approve" {
		t.Fatalf("plan wait = %+v", w)
	}

	// A long poll from the list's seq answers once a permission request is offered.
	polled := make(chan waitList, 1)
	go func() { polled <- a.waits(t, "?after="+strconv.FormatUint(l.Seq, 10)+"&wait=60s") }()
	if code, body := a.call(t, "POST", "/api/v1/proxy/permissions", permissionOffer); code != 204 {
		t.Fatalf("offer: %d %s", code, body)
	}
	got := <-polled
	if got.Seq <= l.Seq || len(got.Waits) != 2 || got.Waits[0].ID != "plan-deploy" {
		t.Fatalf("long poll = %+v", got)
	}
	p := got.Waits[1]
	if p.Kind != waits.KindPermission || p.Title != "Run rm -rf build" || !strings.Contains(p.Detail, "rm -rf build") || !p.Fits ||
		len(p.Actions) != 2 || p.Actions[0] != (waits.Action{ID: "allow", Label: "Allow once"}) || p.URL != "/approvals#"+p.ID {
		t.Fatalf("permission wait = %+v", p)
	}
	// Nothing moved: the poll answers at its end with the same list.
	if same := a.waits(t, "?after="+strconv.FormatUint(got.Seq, 10)+"&wait=20ms"); same.Seq != got.Seq || len(same.Waits) != 2 {
		t.Fatalf("quiet poll = %+v", same)
	}

	code, body := a.call(t, "POST", "/api/v1/waits/plan-deploy/answer", `{"action":"approve","text":"go"}`)
	var ans struct {
		Wait    waits.Wait `json:"wait"`
		Outcome string     `json:"outcome"`
	}
	if code != 200 || json.Unmarshal(body, &ans) != nil || ans.Outcome != "approved" || ans.Wait.ID != "plan-deploy" {
		t.Fatalf("answer: %d %s", code, body)
	}
	code, body = a.call(t, "POST", "/api/v1/waits/plan-deploy/answer", `{"action":"reject"}`)
	var late struct {
		Error, Outcome string
	}
	if code != 409 || json.Unmarshal(body, &late) != nil || late.Outcome != "approved by local user" || !strings.Contains(late.Error, "already decided") {
		t.Fatalf("second answer: %d %s", code, body)
	}
	if code, body := a.call(t, "POST", "/api/v1/waits/"+p.ID+"/answer", `{"action":"allow"}`); code != 200 || !strings.Contains(string(body), `"selected Allow once"`) {
		t.Fatalf("permission answer: %d %s", code, body)
	}
	if code, body := a.call(t, "POST", "/api/v1/waits/"+p.ID+"/answer", `{"action":"no"}`); code != 409 || !strings.Contains(string(body), `"outcome"`) {
		t.Fatalf("second permission answer: %d %s", code, body)
	}
	if end := a.waits(t, ""); len(end.Waits) != 0 {
		t.Fatalf("after the answers: %+v", end)
	}
}

// TestWaitsBadInput: what is wrong, and where, for every kind of bad request.
func TestWaitsBadInput(t *testing.T) {
	a := startInstance(t, "")
	if code, body := a.call(t, "POST", "/api/v1/approvals", submission); code != 201 {
		t.Fatalf("submit: %d %s", code, body)
	}
	for _, tc := range []struct {
		method, path, body string
		code               int
		says               string
	}{
		{"GET", "/api/v1/waits?after=x&wait=1s", "", 400, "after must be a sequence number"},
		{"GET", "/api/v1/waits?after=1&wait=-1s", "", 400, "wait must not be negative"},
		{"GET", "/api/v1/waits?wait=soon", "", 400, "wait must be a duration"},
		{"POST", "/api/v1/waits/plan-deploy/answer", `{"action":"approve","extra":1}`, 400, "extra"},
		{"POST", "/api/v1/waits/plan-deploy/answer", `{"action":"modify"}`, 400, "approve or reject"},
		{"POST", "/api/v1/waits/plan-deploy/answer", `{"action":"approve","text":"` + strings.Repeat("x", waits.MaxAnswerText+1) + `"}`, 413, "limit"},
		{"POST", "/api/v1/waits/plan-nope/answer", `{"action":"approve"}`, 404, "nope"},
		{"POST", "/api/v1/waits/perm-0000/answer", `{"action":"allow"}`, 404, "perm-0000"},
		{"POST", "/api/v1/waits/zzz/answer", `{"action":"approve"}`, 404, "zzz"},
		{"POST", "/api/v1/waits/plan-deploy/answer", `[`, 400, ""},
	} {
		code, body := a.call(t, tc.method, tc.path, tc.body)
		if code != tc.code || !strings.Contains(string(body), tc.says) {
			t.Errorf("%s %s %.40s: %d %s, want %d saying %q", tc.method, tc.path, tc.body, code, body, tc.code, tc.says)
		}
	}
}

// TestWaitsTwoInstances: on one PostgreSQL database, a wait begun on A shows on B's long poll,
// and answering it on B ends it on A.
func TestWaitsTwoInstances(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	for _, in := range []*instance{a, b} {
		if l := in.waits(t, ""); len(l.Waits) != 0 {
			t.Fatalf("fresh list: %+v", l)
		}
	}
	seq := b.waits(t, "").Seq
	polled := make(chan waitList, 1)
	go func() { polled <- b.waits(t, "?after="+strconv.FormatUint(seq, 10)+"&wait=60s") }()
	if code, body := a.call(t, "POST", "/api/v1/approvals", submission); code != 201 {
		t.Fatalf("submit on A: %d %s", code, body)
	}
	got := <-polled
	if len(got.Waits) != 1 || got.Waits[0].ID != "plan-deploy" {
		t.Fatalf("B's long poll: %+v", got)
	}

	// A's long poll ends when B answers; then a permission offered on B shows on A.
	seqA := a.waits(t, "").Seq
	go func() { polled <- a.waits(t, "?after="+strconv.FormatUint(seqA, 10)+"&wait=60s") }()
	if code, body := b.call(t, "POST", "/api/v1/waits/plan-deploy/answer", `{"action":"reject","text":"not today"}`); code != 200 {
		t.Fatalf("answer on B: %d %s", code, body)
	}
	for got = <-polled; len(got.Waits) != 0; {
		got = a.waits(t, "?after="+strconv.FormatUint(got.Seq, 10)+"&wait=60s")
	}
	if code, body := a.call(t, "POST", "/api/v1/waits/plan-deploy/answer", `{"action":"approve"}`); code != 409 || !strings.Contains(string(body), "rejected by local user") {
		t.Fatalf("late answer on A: %d %s", code, body)
	}
	go func() { polled <- a.waits(t, "?after="+strconv.FormatUint(got.Seq, 10)+"&wait=60s") }()
	if code, body := b.call(t, "POST", "/api/v1/proxy/permissions", permissionOffer); code != 204 {
		t.Fatalf("offer on B: %d %s", code, body)
	}
	got = <-polled
	for len(got.Waits) == 0 {
		got = a.waits(t, "?after="+strconv.FormatUint(got.Seq, 10)+"&wait=60s")
	}
	if got.Waits[0].Kind != waits.KindPermission {
		t.Fatalf("A's list after an offer on B: %+v", got)
	}
}
