package web

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// post sends a browser form with the page cookie and without following the redirect.
func (ts *sharedServer) post(t *testing.T, path string, form url.Values) (*http.Response, *html.Node) {
	t.Helper()
	if !ts.loggedIn() {
		ts.page(t, "/shared")
	}
	c := &http.Client{Jar: ts.client.Jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(ts.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, doc
}

func one(t *testing.T, doc *html.Node, sel string) *html.Node {
	t.Helper()
	ns := all(doc, sel)
	if len(ns) != 1 {
		t.Fatalf("%d elements match %s, want 1", len(ns), sel)
	}
	return ns[0]
}

func TestSharedListPage(t *testing.T) {
	ts := newSharedServer(t, false, testConfig{})
	code, doc := ts.page(t, "/shared")
	if code != 200 || len(all(doc, `[data-testid="shared-card"]`)) != 0 || len(all(doc, `[data-testid="shared-empty"]`)) != 1 {
		t.Fatalf("empty list: %d", code)
	}
	ts.write(t, "release", "# Ship it\n\n- [x] build\n- [ ] <script>alert(1)</script>", "Release 2.4", "architect", "in-progress")
	ts.write(t, "notes", "plain")
	if err := os.WriteFile(filepath.Join(ts.dir, "broken.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ts.dir, "Upper.json"), []byte(`{"name":"Upper","content":"x","revision":1,"updatedAt":""}`), 0o600); err != nil {
		t.Fatal(err)
	}

	code, doc = ts.page(t, "/shared")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	cards := all(doc, `[data-testid="shared-card"]`)
	if len(cards) != 3 { // Upper (listed, unreadable by name), notes, release; broken is a warning
		t.Fatalf("%d cards", len(cards))
	}
	rel := one(t, doc, `[data-testid="shared-card"][data-name="release"]`)
	for sel, want := range map[string]string{
		`[data-testid="shared-title"]`:       "Release 2.4",
		`[data-testid="shared-status"]`:      "in-progress",
		`[data-testid="shared-author"]`:      "architect",
		`[data-testid="shared-revision"]`:    "rev 1",
		`[data-testid="shared-updated"]`:     "just now",
		`[data-testid="shared-markdown"] h1`: "Ship it",
	} {
		if got := text(one(t, rel, sel)); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	if len(all(rel, `[data-testid="shared-markdown"] script`)) != 0 {
		t.Error("raw HTML in a plan reached the page")
	}
	if attr(one(t, rel, `.chip`), "class") != "chip chip-doing" {
		t.Errorf("status chip class %q", attr(one(t, rel, `.chip`), "class"))
	}
	if !strings.Contains(text(one(t, doc, `[data-testid="shared-warnings"]`)), `skipped "broken"`) {
		t.Error("the corrupt file is not reported")
	}
	if !strings.Contains(text(one(t, doc, `[data-testid="shared-card"][data-name="Upper"] [data-testid="shared-error"]`)), "invalid plan name") {
		t.Error("a listed plan that cannot be read shows why")
	}
}

func TestSharedPlanPageEditAndConflict(t *testing.T) {
	ts := newSharedServer(t, false, testConfig{})
	ts.write(t, "release", "line one\nline two", "Release", "architect", "draft")
	ts.srv.shared.Observe(context.Background(), "release", "disk") // as the watcher would

	code, doc := ts.page(t, "/shared/release")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	form := one(t, doc, `form[data-shared-editor]`)
	if attr(form, "data-opened") != "1" || attr(one(t, form, `input[name="revision"]`), "value") != "1" ||
		text(one(t, form, `[data-testid="editor-content"]`)) != "line one line two" {
		t.Fatal("the editor is not opened at revision 1 with the content")
	}
	if len(all(doc, `[data-testid="history-entry"]`)) != 1 || len(all(doc, `[data-testid="shared-changes"]`)) != 0 {
		t.Fatal("a plan seen once has one history entry and nothing to compare")
	}

	// A save from the browser: CRLF from the textarea is stored as LF, explicit fields are kept.
	resp, _ := ts.post(t, "/shared/release", url.Values{"content": {"line one\r\nline 2\r\n"}, "title": {"Release"},
		"author": {"alice"}, "status": {"in-progress"}, "revision": {"1"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/shared/release?saved=2" {
		t.Fatalf("save answered %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	p, _, _ := ts.other.Get(context.Background(), "release")
	if p.Content != "line one\nline 2\n" || p.Author != "alice" || p.Status != "in-progress" || p.Revision != 2 {
		t.Fatalf("file after the save: %+v", p)
	}
	if got := ts.historyRevisions(t, "release"); len(got) != 2 || got[0] != 2 {
		t.Fatalf("history %v", got)
	}
	_, doc = ts.page(t, "/shared/release?saved=2")
	if text(one(t, doc, `[data-testid="shared-notice"]`)) != "Saved revision 2." {
		t.Error("no saved notice")
	}
	if src := text(all(doc, `[data-testid="history-entry"]`)[0]); !strings.Contains(src, "edited here") {
		t.Errorf("newest history entry %q does not say it was edited here", src)
	}
	author := one(t, doc, `[data-testid="shared-diff"] [data-testid="diff-field"][data-field="author"]`)
	if text(one(t, author, "del")) != "architect" || text(one(t, author, "ins")) != "alice" {
		t.Errorf("author change = %q", text(author))
	}
	edited := one(t, doc, `[data-testid="shared-diff"] [data-testid="diff-change"][data-op="edited"]`)
	if text(one(t, edited, "del")) != "two" || text(one(t, edited, "ins")) != "2" {
		t.Errorf("edited paragraph = %q", text(edited))
	}

	// Someone else writes revision 3; a save of the draft opened at revision 2 is refused and
	// the page shows both versions, keeping the draft.
	ts.write(t, "release", "their version", "", "bob")
	resp, doc = ts.post(t, "/shared/release", url.Values{"content": {"my draft"}, "title": {"Release"}, "author": {"alice"},
		"status": {"done"}, "revision": {"2"}})
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("stale save answered %d", resp.StatusCode)
	}
	c := one(t, doc, `[data-testid="shared-conflict"]`)
	if !strings.Contains(text(one(t, c, `[data-testid="conflict-theirs"]`)), "their version") ||
		!strings.Contains(text(one(t, c, `[data-testid="conflict-mine"]`)), "my draft") ||
		!strings.Contains(text(c), "bob saved revision 3") {
		t.Fatalf("conflict panel: %s", text(c))
	}
	form = one(t, doc, `form[data-shared-editor]`)
	if text(one(t, form, `[data-testid="editor-content"]`)) != "my draft" || attr(one(t, form, `input[name="revision"]`), "value") != "3" ||
		attr(one(t, form, `[data-testid="editor-status"]`), "value") != "done" {
		t.Fatal("the editor does not keep the draft, based on the revision now shown")
	}
	if p, _, _ := ts.other.Get(context.Background(), "release"); p.Content != "their version" || p.Revision != 3 {
		t.Fatalf("the refused save wrote: %+v", p)
	}

	// An empty draft is refused with the tools' words; the draft's other fields stay.
	resp, doc = ts.post(t, "/shared/release", url.Values{"content": {""}, "title": {"T"}, "revision": {"3"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(one(t, doc, `[data-testid="editor-error"]`)), "content must not be empty") {
		t.Fatalf("empty save answered %d", resp.StatusCode)
	}

	// Deleting is guarded by the revision shown too.
	resp, doc = ts.post(t, "/shared/release/delete", url.Values{"revision": {"2"}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(text(one(t, doc, `[data-testid="shared-notice"]`)), "Not deleted") {
		t.Fatalf("stale delete answered %d", resp.StatusCode)
	}
	resp, _ = ts.post(t, "/shared/release/delete", url.Values{"revision": {"3"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete answered %d", resp.StatusCode)
	}
	if _, ok, _ := ts.other.Get(context.Background(), "release"); ok {
		t.Fatal("not deleted")
	}
	// A deleted plan's page still shows what plandash saw (no watcher runs here, so bob's
	// revision 3 was never seen: revisions 1 and 2, and the removal).
	code, doc = ts.page(t, "/shared/release")
	if code != 200 || len(all(doc, `[data-testid="shared-removed"]`)) != 1 || len(all(doc, `[data-testid="history-entry"]`)) != 3 {
		t.Fatalf("deleted plan page: %d", code)
	}
	// The removal is a state to compare too: the plan's text all removed.
	if l := all(doc, `[data-testid="history-entry"] a.rev-label`); len(l) == 0 || text(l[0]) != "deleted" {
		t.Error("the deletion is not a link to its changes")
	}
	field := one(t, doc, `[data-testid="shared-diff"] [data-testid="diff-field"][data-field="plan"]`)
	if text(one(t, field, "ins")) != "deleted" || len(all(doc, `[data-testid="shared-diff"] [data-op="removed"]`)) == 0 {
		t.Errorf("the deletion's diff reads %q", text(field))
	}
}

func TestSharedNewPlanAndPreview(t *testing.T) {
	ts := newSharedServer(t, false, testConfig{User: "carol"})
	code, doc := ts.page(t, "/shared/-/new")
	if code != 200 || attr(one(t, doc, `[data-testid="editor-author"]`), "value") != "carol" {
		t.Fatalf("new page: %d", code)
	}
	form := url.Values{"name": {"plan-b"}, "content": {"# B"}, "title": {"B"}, "author": {"carol"}, "status": {"draft"}}
	resp, _ := ts.post(t, "/shared/-/new", form)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/shared/plan-b?saved=1" {
		t.Fatalf("create answered %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, doc = ts.post(t, "/shared/-/new", form)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(text(one(t, doc, `[data-testid="editor-error"]`)), `A plan named "plan-b" already exists (revision 1)`) {
		t.Fatalf("second create answered %d", resp.StatusCode)
	}
	form.Set("name", "Bad Name")
	resp, doc = ts.post(t, "/shared/-/new", form)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(one(t, doc, `[data-testid="editor-error"]`)), "invalid plan name") {
		t.Fatalf("invalid name answered %d", resp.StatusCode)
	}

	// The preview renders with the page's renderer: markdown in, safe HTML out.
	req, _ := http.NewRequest("POST", ts.URL+"/shared/-/preview", strings.NewReader("# Hi\n\n<script>x()</script> [a](javascript:alert(1))"))
	resp, err := ts.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "<h1>Hi</h1>") || strings.Contains(string(b), "<script>") || strings.Contains(string(b), "javascript:") {
		t.Fatalf("preview %d: %s", resp.StatusCode, b)
	}
}

func TestSharedPageErrors(t *testing.T) {
	ts := newSharedServer(t, false, testConfig{})
	if err := os.WriteFile(filepath.Join(ts.dir, "broken.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		code int
		sel  string
	}{
		{"/shared/nope", 404, `[data-testid="error"]`},
		{"/shared/Not.A.Name", 404, `[data-testid="error"]`},
		{"/shared/broken", 200, `[data-testid="shared-view"] [data-testid="shared-error"]`},
	} {
		code, doc := ts.page(t, tt.path)
		if code != tt.code || len(all(doc, tt.sel)) != 1 {
			t.Errorf("%s: %d, %d of %s", tt.path, code, len(all(doc, tt.sel)), tt.sel)
		}
	}
	// A broken file is removed unguarded from its page (docker-agent's recovery path).
	resp, _ := ts.post(t, "/shared/broken/delete", url.Values{})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete of a broken plan answered %d", resp.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(ts.dir, "broken.json")); !os.IsNotExist(err) {
		t.Fatal("the broken file is still there")
	}
}
