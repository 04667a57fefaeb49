package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/plandash/plandash/internal/hub"
)

// text is a component that renders s, or fails when s is "fail".
func text(s string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		if s == "fail" {
			return errors.New("boom")
		}
		_, err := io.WriteString(w, "<p>"+s+"</p>")
		return err
	})
}

type fixture struct {
	l     *Live
	h     *hub.Hub
	logs  *bytes.Buffer
	mu    sync.Mutex
	state map[string]string // what each item shows now; "" means gone
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{h: hub.New(hub.Options{}), logs: &bytes.Buffer{}, state: map[string]string{}}
	f.l = New(f.h, Options{Log: slog.New(slog.NewTextHandler(lockedWriter{&f.mu, f.logs}, nil)), History: 8, MaxCatchUp: 3})
	render := func(_ context.Context, _ string, c Change) ([]Fragment, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		v := f.state[c.ID]
		if v == "" {
			return []Fragment{Remove("el-" + c.ID)}, nil
		}
		if v == "error" {
			return nil, errors.New("store down")
		}
		return []Fragment{{ID: "el-" + c.ID, Parent: "list", View: text(v)}}, nil
	}
	f.l.Register(Topic{Name: "all", Kinds: []string{"item"}, Render: render})
	f.l.Register(Topic{Name: "item", Keyed: true, Kinds: []string{"item"}, Render: render})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.l.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return f
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (f *fixture) set(id, v string) {
	f.mu.Lock()
	f.state[id] = v
	f.mu.Unlock()
	f.l.Announce(Change{Kind: "item", ID: id})
}

func decode(t *testing.T, b []byte) frame {
	t.Helper()
	var fr frame
	if err := json.Unmarshal(b, &fr); err != nil {
		t.Fatalf("frame %s: %v", b, err)
	}
	return fr
}

// next waits for the next fragments of sub, with a deadline.
func next(t *testing.T, sub *hub.Subscription) []frame {
	t.Helper()
	select {
	case <-sub.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("no fragment published")
	}
	var out []frame
	for _, fr := range sub.Drain(nil) {
		out = append(out, decode(t, fr.Data))
	}
	return out
}

func TestAnnouncedChangesArePublished(t *testing.T) {
	f := newFixture(t)
	all, one := f.l.Subscribe("all"), f.l.Subscribe("item:a")
	defer all.Close()
	defer one.Close()
	before := f.l.Seq()
	f.set("a", "hello")
	got := next(t, all)
	if len(got) != 1 || got[0].ID != "el-a" || got[0].HTML != "<p>hello</p>" || got[0].Parent != "list" || got[0].Seq <= before {
		t.Fatalf("overview got %+v", got)
	}
	if got := next(t, one); len(got) != 1 || got[0].ID != "el-a" {
		t.Fatalf("keyed page got %+v", got)
	}
	// A change of another item reaches the unkeyed topic only.
	f.set("b", "other")
	if got := next(t, all); got[0].ID != "el-b" {
		t.Fatalf("overview got %+v", got)
	}
	f.set("a", "")
	if got := next(t, one); len(got) != 1 || got[0].HTML != "" {
		t.Fatalf("a removal must be explicit: %+v", got)
	}
}

// A render that fails is logged and sends nothing: the page keeps its element instead of losing it.
func TestRenderFailureKeepsTheElement(t *testing.T) {
	f := newFixture(t)
	all := f.l.Subscribe("all")
	defer all.Close()
	f.set("a", "error")
	f.set("b", "fail") // the component itself fails
	f.set("c", "fine")
	got := next(t, all)
	for _, fr := range got {
		if fr.ID != "el-c" {
			t.Fatalf("a failed render was sent: %+v", fr)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(f.logText(), "store down") || !strings.Contains(f.logText(), "boom") {
		if time.Now().After(deadline) {
			t.Fatalf("render failures not logged: %s", f.logText())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (f *fixture) logText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.logs.String()
}

func collect(t *testing.T, l *Live, topic string, since uint64) []frame {
	t.Helper()
	var out []frame
	err := l.CatchUp(context.Background(), topic, since, func(f hub.Fragment) error {
		out = append(out, decode(t, f.Data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCatchUp(t *testing.T) {
	f := newFixture(t)
	since := f.l.Seq()
	f.set("a", "one")
	f.set("a", "two")
	f.set("b", "bee")
	got := collect(t, f.l, "all", since)
	if len(got) != 2 || got[0].ID != "el-a" || got[0].HTML != "<p>two</p>" || got[1].ID != "el-b" || got[0].Seq >= got[1].Seq {
		t.Fatalf("catch-up %+v", got)
	}
	if got := collect(t, f.l, "item:b", since); len(got) != 1 || got[0].ID != "el-b" {
		t.Fatalf("keyed catch-up %+v", got)
	}
	if got := collect(t, f.l, "all", f.l.Seq()); len(got) != 0 {
		t.Fatalf("nothing changed, yet %+v", got)
	}
	// Too many changed elements: reload.
	for _, id := range []string{"c", "d", "e"} {
		f.set(id, id)
	}
	if got := collect(t, f.l, "all", since); len(got) != 1 || got[0].T != "resync" {
		t.Fatalf("a long catch-up: %+v", got)
	}
	// Older than the history (8 changes), or from another process: reload.
	for range 10 {
		f.set("a", "again")
	}
	if got := collect(t, f.l, "item:a", since); len(got) != 1 || got[0].T != "resync" {
		t.Fatalf("since past the history: %+v", got)
	}
	if got := collect(t, f.l, "item:a", 5); len(got) != 1 || got[0].T != "resync" {
		t.Fatalf("since from another process: %+v", got)
	}
	if got := collect(t, f.l, "item:a", f.l.Seq()+100); len(got) != 1 || got[0].T != "resync" {
		t.Fatalf("since from the future: %+v", got)
	}
	if err := f.l.CatchUp(context.Background(), "nope", 0, func(hub.Fragment) error { return nil }); err == nil {
		t.Fatal("an unknown topic caught up")
	}
}

func TestTopics(t *testing.T) {
	f := newFixture(t)
	for topic, want := range map[string]bool{"all": true, "item:x": true, "item:": false, "item": false, "all:x": false, "": false} {
		if f.l.Valid(topic) != want {
			t.Errorf("Valid(%q) = %v", topic, !want)
		}
	}
	if got := strings.Join(f.l.Topics(), " "); got != `"all" "item:<id>"` {
		t.Errorf("Topics = %s", got)
	}
}

// TestEncodeKeepsMarkupReadable: a frame carries its HTML unescaped ("<", not "\u003c"), so
// markup costs no more on the wire than in the page, and still decodes to exactly what was
// rendered, the line separators JavaScript once choked on included.
func TestEncodeKeepsMarkupReadable(t *testing.T) {
	const body = `a & b <i>"q"</i> ` + "\u2028\u2029 é \\ \x01"
	b, err := frameOf(Fragment{ID: "x", Parent: "list", View: text(body)}, 7)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasSuffix(b, []byte("\n")) || !bytes.Contains(b, []byte(`<p>a & b <i>\"q\"</i>`)) || bytes.Contains(b, []byte("\u2028")) {
		t.Errorf("frame %s", b)
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if want := (frame{T: "f", ID: "x", Parent: "list", Seq: 7, HTML: "<p>" + body + "</p>"}); f != want {
		t.Errorf("decoded %+v, want %+v", f, want)
	}
	if b, err := frameOf(Remove("gone"), 8); err != nil || string(b) != `{"t":"f","id":"gone","seq":8,"html":""}` {
		t.Errorf("a removal is %s (%v)", b, err)
	}
}

// frameOf is the frame pages receive for f, numbered seq.
func frameOf(f Fragment, seq uint64) ([]byte, error) {
	html, err := markup(f)
	if err != nil {
		return nil, err
	}
	return encode(f, seq, html)
}

// FuzzAppendFrame: a frame is what encoding/json writes of it, without HTML escaping.
func FuzzAppendFrame(f *testing.F) {
	f.Add("p-s-main", "plans", uint64(7), `<li class="x">a "b" \ c</li>`)
	f.Add("", "", uint64(0), "\x00\x01\b\f\n\r\t\x1f\x7f")
	f.Add("é", "🚀", uint64(1<<63), "bad \xff\xfe byte \u2028 \u2029 \xe2\x80")
	f.Fuzz(func(t *testing.T, id, parent string, seq uint64, html string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(frame{T: "f", ID: id, Parent: parent, Seq: seq, HTML: html}); err != nil {
			t.Fatal(err)
		}
		got := appendFrame(nil, Fragment{ID: id, Parent: parent}, seq, []byte(html))
		if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
			t.Fatalf("appendFrame\n%q\nencoding/json\n%q", got, w)
		}
	})
}

func TestAppendFrameAllocates(t *testing.T) {
	html := []byte(strings.Repeat(`<li class="entry">Step é 🚀 "quoted"</li>`, 40))
	dst := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { dst = appendFrame(dst[:0], Fragment{ID: "p-s-main", Parent: "plans"}, 42, html) }); n != 0 {
		t.Errorf("appendFrame into a buffer large enough allocates %.0f times", n)
	}
}

// TestForget: an element's next render carries a patch from the markup remembered of it, and,
// once Forget dropped that, is sent whole; the render after that patches again.
func TestForget(t *testing.T) {
	l := New(hub.New(hub.Options{}), Options{})
	body := strings.Repeat("step ", 200)
	render := func(seq uint64, s string) hub.Fragment {
		t.Helper()
		f, err := l.fragment(Fragment{ID: "x", View: text(body + s)}, seq, "all")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	render(1, "a")
	if f := render(2, "b"); f.Patch == nil || f.Patch() == nil {
		t.Fatal("no patch from the remembered markup")
	}
	l.Forget()
	if f := render(3, "c"); f.Patch != nil {
		t.Error("a patch after Forget")
	}
	if f := render(4, "d"); f.Patch == nil || f.Patch() == nil {
		t.Error("no patch once the markup was remembered again")
	}
}

// TestUnchangedIsQuiet: an element rendered as it was last published to the same topic is quiet
// (it wakes no subscriber); one that changed, one published first to another topic, and one
// whose previous render went to a single page's catch-up are not; and a container sent whole
// is quiet when all its parts redone with it are.
func TestUnchangedIsQuiet(t *testing.T) {
	h := hub.New(hub.Options{QuietDelay: time.Hour})
	l := New(h, Options{})
	quiet := func(topic string, fs ...Fragment) []bool {
		t.Helper()
		out, ok := l.render(context.Background(), &Topic{Name: "all", Render: func(context.Context, string, Change) ([]Fragment, error) { return fs, nil }}, "", Change{}, stamp{seq: 1}, topic)
		if !ok {
			t.Fatal("render failed")
		}
		var q []bool
		for _, f := range out {
			q = append(q, f.Quiet)
		}
		return q
	}
	a, b := Fragment{ID: "a", View: text("a")}, Fragment{ID: "b", View: text("b")}
	whole := Fragment{ID: "g", View: text("g"), Whole: true}
	for _, c := range []struct {
		name  string
		topic string
		fs    []Fragment
		want  []bool
	}{
		{"first render", "all", []Fragment{a, b}, []bool{false, false}},
		{"unchanged", "all", []Fragment{a, b}, []bool{true, true}},
		{"one changed", "all", []Fragment{a, {ID: "b", View: text("b2")}}, []bool{true, false}},
		{"another topic", "session:s", []Fragment{a}, []bool{false}},
		{"back to the first topic", "all", []Fragment{a}, []bool{false}},
		{"a catch-up", "", []Fragment{a}, []bool{false}},
		{"after a catch-up", "all", []Fragment{a}, []bool{false}},
		{"whole with unchanged parts", "all", []Fragment{whole, a}, []bool{true, true}},
		{"whole with a changed part", "all", []Fragment{whole, a, b}, []bool{false, true, false}},
		{"a removal", "all", []Fragment{Remove("a")}, []bool{false}},
	} {
		if got := quiet(c.topic, c.fs...); !slices.Equal(got, c.want) {
			t.Errorf("%s: quiet = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestWholeFollowsParts: a whole change announced with parts of the same thing is rendered after
// them and after changes announced later, once Follow has passed; others are not held back.
func TestWholeFollowsParts(t *testing.T) {
	h := hub.New(hub.Options{})
	l := New(h, Options{Workers: 1, Follow: time.Hour})
	var mu sync.Mutex
	var order []string
	l.Register(Topic{Name: "all", Kinds: []string{"item"}, Parts: true, Render: func(_ context.Context, _ string, c Change) ([]Fragment, error) {
		mu.Lock()
		order = append(order, c.ID+"/"+c.Part)
		mu.Unlock()
		return []Fragment{{ID: c.ID + "-" + c.Part, View: text(c.ID)}}, nil
	}})
	sub := l.Subscribe("all")
	defer sub.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	l.Announce(Change{Kind: "item", ID: "a", Part: "card"}, Change{Kind: "item", ID: "a"})
	l.Announce(Change{Kind: "item", ID: "b"})
	for seen := map[string]bool{}; !seen["b-"]; {
		for _, f := range next(t, sub) {
			seen[f.ID] = true
		}
	}
	mu.Lock()
	got := slices.Clone(order)
	mu.Unlock()
	if want := []string{"a/card", "b/"}; !slices.Equal(got, want) {
		t.Fatalf("rendered %q, want %q (the whole of a waits an hour)", got, want)
	}

	soon := New(h, Options{Follow: time.Millisecond})
	soon.Register(Topic{Name: "all", Kinds: []string{"item"}, Parts: true, Render: func(_ context.Context, _ string, c Change) ([]Fragment, error) {
		return []Fragment{{ID: c.ID + "-" + c.Part, View: text(c.ID)}}, nil
	}})
	go soon.Run(ctx)
	soon.Announce(Change{Kind: "item", ID: "c", Part: "card"}, Change{Kind: "item", ID: "c"})
	for seen := map[string]bool{}; !seen["c-"] || !seen["c-card"]; {
		for _, f := range next(t, sub) {
			seen[f.ID] = true
		}
	}
}

// TestRenderGetsNewestData: a change announced again before it is rendered is rendered once, with
// the Data of its newest announcement, none when that one had none; the history a page catches
// up from keeps none.
func TestRenderGetsNewestData(t *testing.T) {
	h := hub.New(hub.Options{})
	l := New(h, Options{})
	l.Register(Topic{Name: "all", Kinds: []string{"item"}, Render: func(context.Context, string, Change) ([]Fragment, error) { return nil, nil }})
	defer l.Subscribe("all").Close()
	c := Change{Kind: "item", ID: "a"}
	with := func(d any) Change { c := c; c.Data = d; return c }
	l.Announce(with("v1"))
	l.Announce(with("v2"))
	got, st, ok := l.take()
	if !ok || got.Data != "v2" || st.seq != l.Seq() {
		t.Errorf("took %+v at %d (ok %v), want v2 at %d", got, st.seq, ok, l.Seq())
	}
	if _, _, ok := l.take(); ok {
		t.Error("the change was queued twice")
	}
	l.Announce(with("v3"), Change{Kind: "item", ID: "b"})
	l.Announce(c)
	if got, _, _ := l.take(); got.ID != "a" || got.Data != nil {
		t.Errorf("took %+v, want a without data: its newest announcement had none", got)
	}
	for _, e := range l.ordered() {
		if e.c.Data != nil {
			t.Errorf("the history keeps data: %+v", e.c)
		}
	}
}

// A change no page follows is not queued for rendering, and a page that subscribes after it
// catches up on it.
func TestUnfollowedChangeIsNotQueued(t *testing.T) {
	h := hub.New(hub.Options{})
	l := New(h, Options{})
	l.Register(Topic{Name: "session", Keyed: true, Kinds: []string{"item"}, Render: func(_ context.Context, _ string, c Change) ([]Fragment, error) {
		return []Fragment{{ID: c.ID, View: text(c.ID)}}, nil
	}})
	since := l.Seq()
	defer l.Subscribe("session:b").Close() // another session's page
	l.Announce(Change{Kind: "item", ID: "a"})
	if c, _, ok := l.take(); ok {
		t.Fatalf("queued %+v, which no page follows", c)
	}
	l.Announce(Change{Kind: "item", ID: "b"})
	if c, _, ok := l.take(); !ok || c.ID != "b" {
		t.Fatalf("took %+v (%v), want b, which a page follows", c, ok)
	}
	defer l.Subscribe("session:a").Close()
	var got []string
	err := l.CatchUp(context.Background(), "session:a", since, func(f hub.Fragment) error {
		got = append(got, f.Key)
		return nil
	})
	if err != nil || !slices.Equal(got, []string{"a"}) {
		t.Fatalf("caught up on %q (%v), want a", got, err)
	}
}
