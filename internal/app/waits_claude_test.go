package app

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/cascadia"
	"github.com/plandash/plandash/internal/waits"
	"golang.org/x/net/html"
)

// askEvent is Claude Code's PreToolUse hook event for AskUserQuestion, as the CLI sends it.
const askEvent = `{"session_id":"s-ask","cwd":"/home/dev/shop","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_1",` +
	`"tool_input":{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,` +
	`"options":[{"label":"PostgreSQL","description":"the server"},{"label":"SQLite","description":"a file"}]}]}}`

// hookAnswer is what POST /api/v1/hooks/claude answered.
type hookAnswer struct {
	code int
	body []byte
}

func (in *instance) hook(t testing.TB, event string) chan hookAnswer {
	out := make(chan hookAnswer, 1)
	go func() {
		code, body := in.call(t, "POST", "/api/v1/hooks/claude", event)
		out <- hookAnswer{code, body}
	}()
	return out
}

// awaitWait long-polls in's list until a wait of kind shows, and returns it.
func (in *instance) awaitWait(t testing.TB, kind waits.Kind) waits.Wait {
	t.Helper()
	l := in.waits(t, "")
	for {
		for _, w := range l.Waits {
			if w.Kind == kind {
				return w
			}
		}
		l = in.waits(t, "?after="+strconv.FormatUint(l.Seq, 10)+"&wait=60s")
	}
}

// TestClaudeQuestionAnsweredHere: AskUserQuestion's hook waits on plandash; the question is a
// wait with one action per option; the answer given through the API is the hook's answer,
// updatedInput carrying the questions and the answer by question text.
func TestClaudeQuestionAnsweredHere(t *testing.T) {
	a := startInstance(t, "")
	answered := a.hook(t, askEvent)
	w := a.awaitWait(t, waits.KindQuestion)
	if w.Title != "Which database?" || !w.Answerable || !w.Fits || len(w.Actions) != 2 || w.Actions[1] != (waits.Action{ID: "opt-1", Label: "SQLite"}) ||
		w.SessionID != "claude-code:s-ask" || w.Agent != "claude-code" || w.AgentName != "Claude Code" || w.Cwd != "/home/dev/shop" ||
		w.Then != "the terminal asks" || w.Deadline.IsZero() || !strings.Contains(w.Detail, "2. SQLite — a file") || w.URL != "/waits/"+w.ID {
		t.Fatalf("question wait = %+v", w)
	}
	code, body := a.call(t, "POST", "/api/v1/waits/"+w.ID+"/answer", `{"action":"opt-1"}`)
	if code != 200 || !strings.Contains(string(body), `"outcome": "answered: SQLite"`) {
		t.Fatalf("answer: %d %s", code, body)
	}
	got := <-answered
	var out struct {
		HookSpecificOutput struct {
			HookEventName, PermissionDecision string
			UpdatedInput                      struct {
				Questions []map[string]any  `json:"questions"`
				Answers   map[string]string `json:"answers"`
			} `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if got.code != 200 || json.Unmarshal(got.body, &out) != nil {
		t.Fatalf("hook: %d %s", got.code, got.body)
	}
	h := out.HookSpecificOutput
	if h.HookEventName != "PreToolUse" || h.PermissionDecision != "allow" || len(h.UpdatedInput.Questions) != 1 ||
		h.UpdatedInput.Answers["Which database?"] != "SQLite" {
		t.Fatalf("hook answer = %s", got.body)
	}
	if code, body := a.call(t, "POST", "/api/v1/waits/"+w.ID+"/answer", `{"action":"opt-0"}`); code != 409 || !strings.Contains(string(body), `"outcome": "answered: SQLite"`) {
		t.Fatalf("second answer: %d %s", code, body)
	}
}

// TestClaudeInputWait: the end of a turn is a wait for the next prompt, with the last message,
// only the terminal can answer; the next prompt ends it.
func TestClaudeInputWait(t *testing.T) {
	a := startInstance(t, "")
	stop := `{"session_id":"s-idle","cwd":"/home/dev/shop","hook_event_name":"Stop","last_assistant_message":"Rate limiting is in place; 42 tests pass."}`
	if code, body := a.call(t, "POST", "/api/v1/hooks/claude", stop); code/100 != 2 {
		t.Fatalf("stop: %d %s", code, body)
	}
	w := a.awaitWait(t, waits.KindInput)
	if w.Answerable || w.Detail != "Rate limiting is in place; 42 tests pass." || w.SessionID != "claude-code:s-idle" || len(w.Actions) != 0 ||
		w.URL != "/sessions/claude-code:s-idle" {
		t.Fatalf("input wait = %+v", w)
	}
	if code, body := a.call(t, "POST", "/api/v1/waits/"+w.ID+"/answer", `{"action":"text","text":"go on"}`); code != 422 || !strings.Contains(string(body), "terminal") {
		t.Fatalf("answering an input wait: %d %s", code, body)
	}
	prompt := `{"session_id":"s-idle","hook_event_name":"UserPromptSubmit","prompt":"now the docs"}`
	if code, body := a.call(t, "POST", "/api/v1/hooks/claude", prompt); code/100 != 2 {
		t.Fatalf("prompt: %d %s", code, body)
	}
	for l := a.waits(t, ""); len(l.Waits) != 0; {
		l = a.waits(t, "?after="+strconv.FormatUint(l.Seq, 10)+"&wait=60s")
	}
}

// TestWaitsSurfacesAgree: the "Needs you" strip, the inbox and the count the title shows read
// the one list: with a plan, a permission request, a question and a session waiting for its
// prompt, all three say four, and name the same waits.
func TestWaitsSurfacesAgree(t *testing.T) {
	a := startInstance(t, "")
	if code, body := a.call(t, "POST", "/api/v1/approvals", submission); code != 201 {
		t.Fatalf("submit: %d %s", code, body)
	}
	if code, body := a.call(t, "POST", "/api/v1/proxy/permissions", permissionOffer); code != 204 {
		t.Fatalf("offer: %d %s", code, body)
	}
	a.hook(t, askEvent)
	a.awaitWait(t, waits.KindQuestion)
	stop := `{"session_id":"s-idle","hook_event_name":"Stop","last_assistant_message":"Done."}`
	if code, body := a.call(t, "POST", "/api/v1/hooks/claude", stop); code/100 != 2 {
		t.Fatalf("stop: %d %s", code, body)
	}
	a.awaitWait(t, waits.KindInput)
	list := a.waits(t, "")
	if len(list.Waits) != 4 {
		t.Fatalf("the list: %+v", list)
	}

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	page := func(path string) *html.Node {
		resp, err := browser.Get(a.URL + path + "?token=tok")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		doc, err := html.Parse(io.LimitReader(resp.Body, 8<<20))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		return doc
	}
	sel := func(doc *html.Node, s string) []*html.Node { return cascadia.MustCompile(s).MatchAll(doc) }
	attr := func(n *html.Node, k string) string {
		for _, at := range n.Attr {
			if at.Key == k {
				return at.Val
			}
		}
		return ""
	}

	overview := page("/")
	strip := sel(overview, `[data-testid=needs-you-item] a`)
	count := sel(overview, `[data-testid=needs-you-count]`)
	inbox := page("/approvals")
	title := sel(inbox, `title`)
	inboxCount := sel(inbox, `[data-testid=inbox-waits-count]`)
	_, apiCount := a.call(t, "GET", "/api/v1/approvals/count", "")
	var c struct{ Pending int }
	if err := json.Unmarshal(apiCount, &c); err != nil {
		t.Fatal(err)
	}
	if len(strip) != 4 || len(count) != 1 || attr(count[0], "data-count") != "4" || len(title) != 1 || attr(title[0], "data-base") == "" ||
		!strings.HasPrefix(strings.TrimSpace(textOf(title[0])), "4 waiting") || len(inboxCount) != 1 || attr(inboxCount[0], "data-count") != "4" || c.Pending != 4 {
		t.Fatalf("strip %d items (count %v), inbox title %q, inbox count %v, API count %d; want 4 everywhere",
			len(strip), count, textOf(title[0]), inboxCount, c.Pending)
	}
	// The same waits: each strip link is the list's URL, and the inbox has a row for each.
	for i, w := range list.Waits {
		if href := attr(strip[i], "href"); href != w.URL {
			t.Errorf("strip item %d links %q, the list says %q", i, href, w.URL)
		}
		var rows []*html.Node
		switch w.Kind {
		case waits.KindPlan:
			rows = sel(inbox, `[data-testid=approval-row][data-id="`+strings.TrimPrefix(w.ID, "plan-")+`"]`)
		case waits.KindPermission:
			rows = sel(inbox, `[data-testid=acp-permission][id="`+w.ID+`"]`)
		default:
			rows = sel(inbox, `[data-testid=inbox-wait][data-id="`+w.ID+`"]`)
		}
		if len(rows) != 1 {
			t.Errorf("the inbox has %d rows for %s %s", len(rows), w.Kind, w.ID)
		}
	}
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
