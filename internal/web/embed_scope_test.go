package web

import (
	"testing"
	"time"
)

// The panel's overview takes the overview's directory filter, as an IDE asks for the sessions
// working inside its workspace: sessions in or under the folder, none from beside it; the list
// says which folder it is narrowed to, for the page script that keeps live arrivals from
// elsewhere out; a bad filter is refused.
func TestEmbedOverviewByDirectory(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	fillSessions(t, ts.store, time.Now().Add(-10*time.Minute), 14, 1) // cwd /home/dev/repo0 … repo6
	ts.page(t, "/")
	code, doc := ts.page(t, "/embed?dir=/home/dev/repo3/")
	if code != 200 {
		t.Fatalf("GET /embed?dir=: %d", code)
	}
	var ids []string
	for _, g := range all(doc, `[data-testid=sessions] [data-testid=session-group]`) {
		if cwd := attr(g, "data-cwd"); cwd != "/home/dev/repo3" {
			t.Fatalf("a session in %s is in the panel for /home/dev/repo3", cwd)
		}
		ids = append(ids, attr(g, "data-session-id"))
	}
	if len(ids) != 2 {
		t.Fatalf("the panel for /home/dev/repo3 shows %v, want its 2 sessions", ids)
	}
	if list := all(doc, `[data-testid=sessions]`); attr(list[0], "data-dir") != "/home/dev/repo3/" {
		t.Fatalf("the list says data-dir=%q", attr(list[0], "data-dir"))
	}
	_, doc = ts.page(t, "/embed")
	if n := len(all(doc, `[data-testid=session-group]`)); n != 14 {
		t.Fatalf("the unnarrowed panel shows %d sessions, want 14", n)
	}
	if code, _ := ts.page(t, "/embed?state=nonsense"); code != 400 {
		t.Fatalf("a bad filter answered %d, want 400", code)
	}
}
