package views

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/changes"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/store/sqlite"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/web/templates"
)

// newPages builds the pages over real services on a SQLite store in a temp dir.
func newPages(t *testing.T) (*Pages, *live.Live) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := plans.NewService(db.Plans(), plans.Config{Log: log})
	gate, err := approval.New(ctx, db.Approvals(), approval.Config{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	shared := sharedplans.NewService(sharedplans.New(filepath.Join(t.TempDir(), "plans")), db.SharedHistory(), sharedplans.ServiceConfig{Log: log})
	perms := permissions.New(nil)
	lv := live.New(hub.New(hub.Options{}), live.Options{Log: log})
	p := New(Deps{Plans: svc, Gate: gate, Shared: shared, Perms: perms, Live: lv, Log: log,
		Waits: waits.New(gate, perms, svc, nil, waits.Config{Log: log})})
	return p, lv
}

// TestEveryKindHasATopic: New registers a topic for every kind of change (registerTopics
// panics otherwise), so a change announced here or by another instance reaches a page.
func TestEveryKindHasATopic(t *testing.T) {
	_, lv := newPages(t)
	for _, k := range changes.Kinds() {
		if !lv.Shows(k) {
			t.Errorf("no live topic shows changes of kind %q", k)
		}
	}
	if !lv.Valid(changes.TopicGate) {
		t.Errorf("topics %v lack the pending count every page subscribes to (%s)", lv.Topics(), changes.TopicGate)
	}
}

// TestFileView: a file plan shows a file only under the allowed roots, and says why not in the
// same words whether a file outside is missing or forbidden.
func TestFileView(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	for dir, body := range map[string]string{root: "# plan\n", outside: "secret"} {
		if err := os.WriteFile(filepath.Join(dir, "plan.md"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	roots, err := files.NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	notReadable := "not readable under the allowed roots"
	for _, tc := range []struct {
		name, uri string
		roots     *files.Roots
		content   string // shown
		err       string // or why not, in part
	}{
		{"under a root", "file://" + root + "/plan.md", roots, "# plan\n", ""},
		{"bare path", root + "/plan.md", roots, "# plan\n", ""},
		{"outside", "file://" + outside + "/plan.md", roots, "", notReadable},
		{"missing outside", "file://" + outside + "/none.md", roots, "", notReadable},
		{"dot-dot", "file://" + root + "/../" + filepath.Base(outside) + "/plan.md", roots, "", notReadable},
		{"no roots", "file://" + root + "/plan.md", nil, "", "--allow-root"},
		{"other scheme", "https://example.com/plan.md", roots, "", "only file: URIs"},
		{"other host", "file://elsewhere/tmp/plan.md", roots, "", "on another host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := fileView(tc.roots, tc.uri)
			if v.Content != tc.content || !strings.Contains(v.Err, tc.err) || (tc.err == "") != (v.Err == "") {
				t.Errorf("fileView(%q) = content %q, err %q; want content %q, err containing %q", tc.uri, v.Content, v.Err, tc.content, tc.err)
			}
			if v.Err == "" && !v.Markdown {
				t.Errorf("fileView(%q) is not shown as markdown", tc.uri)
			}
		})
	}
}

// TestSessionFilter: the overview's states are the store's, and "waiting" is the sessions that
// wait for a person.
func TestSessionFilter(t *testing.T) {
	waiting := map[string][]templates.Waiting{"s1": {{Title: "plan"}}, "s2": {{Title: "question"}}}
	for state, want := range map[string]plans.SessionState{
		templates.StateActive: plans.StateActive, templates.StateDone: plans.StateDone, templates.StateGone: plans.StateGone, "": "",
	} {
		if got := sessionFilter(templates.OverviewFilter{State: state}, waiting); got.State != want || got.IDs != nil {
			t.Errorf("state %q: filter %+v, want state %q and no ids", state, got, want)
		}
	}
	got := sessionFilter(templates.OverviewFilter{State: templates.StateWaiting, Agent: "claude-code", Q: "x"}, waiting)
	slices.Sort(got.IDs)
	if !slices.Equal(got.IDs, []string{"s1", "s2"}) || got.Agent != "claude-code" || got.Text != "x" || got.PlansPer != templates.MaxGroupPlans {
		t.Errorf("waiting: filter %+v", got)
	}
}
