package approval_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

func TestRequestChanges(t *testing.T) {
	md := approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# Plan\n\n- migrate the table\n- drop the old column\n"}
	dag := approval.PlanBody{Type: approval.TypeDAG, Calls: []byte(`[{"_id":"read","_tool":"fs.read"},{"_tool":"fs.write"}]`)}
	for _, tc := range []struct {
		name     string
		plan     approval.PlanBody
		in       approval.DecisionInput
		wantKind errs.Kind
		want     []approval.Comment
		wantText []string
	}{
		{name: "entry comment quotes the entry", plan: items("write the migration", "deploy on Friday"),
			in:       approval.DecisionInput{Feedback: []approval.Comment{{Target: "entry", Entry: 2, Quote: "forged", Comment: " not on a Friday "}}},
			want:     []approval.Comment{{Target: "entry", Entry: 2, Quote: "deploy on Friday", Comment: "not on a Friday"}},
			wantText: []string{"requested changes", `On entry 2 ("deploy on Friday")`, "not on a Friday"}},
		{name: "markdown line", plan: md,
			in:       approval.DecisionInput{Comment: "close, but", Feedback: []approval.Comment{{Target: "line", Line: 4, Comment: "keep it a release"}}},
			want:     []approval.Comment{{Target: "line", Line: 4, Quote: "- drop the old column", Comment: "keep it a release"}},
			wantText: []string{"Overall: close, but", `On line 4 ("- drop the old column")`}},
		{name: "dag calls by _id and by position", plan: dag,
			in:       approval.DecisionInput{Feedback: []approval.Comment{{Target: "call", CallID: "read", Comment: "which file?"}, {Target: "call", CallID: "1", Comment: "no writes"}}},
			want:     []approval.Comment{{Target: "call", CallID: "read", Quote: "fs.read", Comment: "which file?"}, {Target: "call", CallID: "1", Quote: "fs.write", Comment: "no writes"}},
			wantText: []string{`On call "read"`, `On call "1"`}},
		{name: "overall comment only", plan: items("a"), in: approval.DecisionInput{Comment: "start over"}, wantText: []string{"start over"}},
		{name: "empty target means the plan", plan: items("a"), in: approval.DecisionInput{Feedback: []approval.Comment{{Comment: "x"}}},
			want: []approval.Comment{{Target: "plan", Comment: "x"}}, wantText: []string{"On the plan:"}},
		{name: "nothing said", plan: items("a"), in: approval.DecisionInput{}, wantKind: errs.Invalid},
		{name: "entry out of range", plan: items("a"), in: approval.DecisionInput{Feedback: []approval.Comment{{Target: "entry", Entry: 2, Comment: "x"}}}, wantKind: errs.Invalid},
		{name: "entry 0", plan: items("a"), in: approval.DecisionInput{Feedback: []approval.Comment{{Target: "entry", Comment: "x"}}}, wantKind: errs.Invalid},
		{name: "line on a checklist", plan: items("a"), in: approval.DecisionInput{Feedback: []approval.Comment{{Target: "line", Line: 1, Comment: "x"}}}, wantKind: errs.Invalid},
		{name: "unknown call", plan: dag, in: approval.DecisionInput{Feedback: []approval.Comment{{Target: "call", CallID: "nope", Comment: "x"}}}, wantKind: errs.Invalid},
		{name: "unknown target", plan: items("a"), in: approval.DecisionInput{Feedback: []approval.Comment{{Target: "vibe", Comment: "x"}}}, wantKind: errs.Invalid},
		{name: "blank comment", plan: items("a"), in: approval.DecisionInput{Feedback: []approval.Comment{{Target: "entry", Entry: 1, Comment: "  "}}}, wantKind: errs.Invalid},
		{name: "too many", plan: items("a"), in: approval.DecisionInput{Feedback: make([]approval.Comment, approval.MaxComments+1)}, wantKind: errs.TooLarge},
		{name: "too long", plan: items("a"), in: approval.DecisionInput{Feedback: []approval.Comment{{Comment: strings.Repeat("x", approval.MaxComment+1)}}}, wantKind: errs.TooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate(t, approval.Config{})
			ctx := context.Background()
			r, _, err := g.Submit(ctx, approval.Submission{Title: "t", SessionID: "s1", Plan: tc.plan})
			if err != nil {
				t.Fatal(err)
			}
			in := tc.in
			in.Action, in.By = approval.RequestChanges, "ann"
			got, err := g.Decide(ctx, r.ID, in)
			if tc.wantKind != 0 {
				if errs.KindOf(err) != tc.wantKind {
					t.Fatalf("Decide = %v; want kind %v", err, tc.wantKind)
				}
				if cur, _ := g.Get(ctx, r.ID); cur.Decided() {
					t.Fatal("a refused review decided the request")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := got.Decision
			if got.Status != approval.ChangesRequested || !got.Status.Refused() || d.Plan != nil {
				t.Fatalf("status %q, plan %v; want changes_requested and no plan", got.Status, d.Plan)
			}
			if !reflect.DeepEqual(d.Feedback, tc.want) {
				t.Fatalf("feedback\n got %+v\nwant %+v", d.Feedback, tc.want)
			}
			for _, w := range tc.wantText {
				if !strings.Contains(d.FeedbackText, w) || !strings.Contains(d.Reason(), w) {
					t.Errorf("text %q lacks %q", d.FeedbackText, w)
				}
			}
			ev, err := g.Audit(ctx, approval.AuditFilter{Limit: 1})
			if err != nil || len(ev) != 1 || ev[0].Event != approval.EventChanges || ev[0].Comment != d.FeedbackText {
				t.Fatalf("audit = %+v, %v; want the review in words", ev, err)
			}
		})
	}
}

func TestRequestChangesNeedsReject(t *testing.T) {
	g := newGate(t, approval.Config{})
	ctx := context.Background()
	r, _, err := g.Submit(ctx, approval.Submission{Title: "t", Plan: items("a"), Options: []approval.Action{approval.Approve}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Decide(ctx, r.ID, approval.DecisionInput{Action: approval.RequestChanges, Comment: "x", By: "ann"}); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("Decide = %v; want invalid (the request does not allow rejecting)", err)
	}
	if _, err := g.Decide(ctx, r.ID, approval.DecisionInput{Action: approval.Approve, By: "ann",
		Feedback: []approval.Comment{{Comment: "x"}}}); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("approve with comments = %v; want invalid", err)
	}
}

// TestRevises: the next request of a session that ended with changes requested names it;
// after an approval or in another session it does not; an agent may name it outright.
func TestRevises(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
	g := newGate(t, approval.Config{Now: c.Now})
	ctx := context.Background()
	submit := func(sess, revises string) approval.Request {
		t.Helper()
		c.Add(time.Second)
		r, _, err := g.Submit(ctx, approval.Submission{Title: "t", SessionID: sess, Plan: items("a", "b"), Revises: revises})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := submit("s1", "")
	if _, err := g.Decide(ctx, first.ID, approval.DecisionInput{Action: approval.RequestChanges, By: "ann",
		Feedback: []approval.Comment{{Target: "entry", Entry: 1, Comment: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if other := submit("s2", ""); other.Revises != "" {
		t.Fatalf("another session's request revises %q", other.Revises)
	}
	second := submit("s1", "")
	if second.Revises != first.ID {
		t.Fatalf("Revises = %q, want %q", second.Revises, first.ID)
	}
	if _, err := g.Decide(ctx, second.ID, approval.DecisionInput{Action: approval.Approve, By: "ann"}); err != nil {
		t.Fatal(err)
	}
	if third := submit("s1", ""); third.Revises != "" {
		t.Fatalf("after an approval, Revises = %q", third.Revises)
	}
	if named := submit("", first.ID); named.Revises != first.ID {
		t.Fatalf("named Revises = %q", named.Revises)
	}
	c.Add(time.Second)
	if _, _, err := g.Submit(ctx, approval.Submission{Title: "t", Plan: items("a"), Revises: "nope"}); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("Revises an unknown request = %v; want invalid", err)
	}
}

func TestAddressed(t *testing.T) {
	md := func(s string) approval.PlanBody { return approval.PlanBody{Type: approval.TypeMarkdown, Markdown: s} }
	dag := func(s string) approval.PlanBody { return approval.PlanBody{Type: approval.TypeDAG, Calls: []byte(s)} }
	for _, tc := range []struct {
		name       string
		prev, next approval.PlanBody
		c          approval.Comment
		want       bool
	}{
		{"entry edited", items("a", "b"), items("a", "b2"), approval.Comment{Target: "entry", Entry: 2}, true},
		{"entry kept", items("a", "b"), items("a", "b", "c"), approval.Comment{Target: "entry", Entry: 2}, false},
		{"entry moved but same", items("a", "b"), items("b", "a"), approval.Comment{Target: "entry", Entry: 2}, false},
		{"entry removed", items("a", "b"), items("a"), approval.Comment{Target: "entry", Entry: 2}, true},
		{"line edited", md("x\ny\n"), md("x\nz\n"), approval.Comment{Target: "line", Line: 2}, true},
		{"line moved", md("x\ny\n"), md("new\nx\ny\n"), approval.Comment{Target: "line", Line: 2}, false},
		{"call changed", dag(`[{"_id":"a","p":1}]`), dag(`[{"_id":"a","p":2}]`), approval.Comment{Target: "call", CallID: "a"}, true},
		{"call respelt", dag(`[{"_id":"a","p":1}]`), dag(`[ {"p":1, "_id":"a"} ]`), approval.Comment{Target: "call", CallID: "a"}, false},
		{"call gone", dag(`[{"_id":"a"}]`), dag(`[{"_id":"b"}]`), approval.Comment{Target: "call", CallID: "a"}, true},
		{"plan changed", items("a"), items("b"), approval.Comment{Target: "plan"}, true},
		{"plan same", items("a"), items("a"), approval.Comment{Target: "plan"}, false},
	} {
		if got := approval.Addressed(tc.prev, tc.c, tc.next); got != tc.want {
			t.Errorf("%s: Addressed = %v, want %v", tc.name, got, tc.want)
		}
	}
}
