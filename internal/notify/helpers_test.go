package notify_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/store/sqlite"
)

// list is a list of waits a test changes by hand: the notifier's input, as the gate's
// adapter gives it in the application.
type list struct {
	mu    sync.Mutex
	seq   uint64
	waits []notify.Wait
	ch    chan struct{}
}

func newList() *list { return &list{ch: make(chan struct{})} }

func (l *list) set(ws ...notify.Wait) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	l.waits = ws
	close(l.ch)
	l.ch = make(chan struct{})
}

func (l *list) Await(ctx context.Context, after uint64) (notify.Update, error) {
	for {
		l.mu.Lock()
		seq, ws, ch := l.seq, l.waits, l.ch
		l.mu.Unlock()
		if seq > after {
			return notify.Update{Seq: seq, Whole: true, Open: ws}, nil
		}
		select {
		case <-ctx.Done():
			return notify.Update{Seq: seq, Whole: true, Open: ws}, ctx.Err()
		case <-ch:
		}
	}
}

// store opens a real SQLite database in the test's directory.
func store(t *testing.T) notify.Store {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.Notify()
}

// received is one request a loopback target got.
type received struct {
	Path   string
	Header http.Header
	Body   []byte
}

// receiver is a loopback HTTP target that records what it receives and answers status.
type receiver struct {
	*httptest.Server
	got    chan received
	status int
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: make(chan received, 100), status: http.StatusOK}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.got <- received{Path: req.URL.Path, Header: req.Header.Clone(), Body: b}
		w.WriteHeader(r.status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) next(t *testing.T) received {
	t.Helper()
	select {
	case g := <-r.got:
		return g
	case <-time.After(10 * time.Second):
		t.Fatal("the target received nothing")
	}
	return received{}
}

// run starts n until the test ends.
// runWith runs a notifier of src's waits for the targets given as --notify flags, until the
// test ends.
func runWith(t *testing.T, src notify.Source, flags ...string) *notify.Notifier {
	t.Helper()
	n := notify.New(store(t), src, notify.Config{BaseURL: base, Static: flagTargets(t, flags...)})
	run(t, n)
	return n
}

func run(t *testing.T, n *notify.Notifier) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { n.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// sendDue sends what is due now, as the sender's next read of the outbox would.
func sendDue(t *testing.T, n *notify.Notifier) {
	t.Helper()
	if _, err := n.SendDue(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// plan is a wait for a short plan, which fits in a notification.
func plan(id string) notify.Wait {
	return notify.Wait{ID: id, Kind: "plan", Title: "Refactor " + id, Detail: "1. read\n2. write", Fits: true, Agent: "claude", AgentName: "Claude Code",
		Machine: "laptop", Cwd: "/src/app", Since: time.Now().UTC(), Answerable: true, URL: "/approvals/" + id,
		Actions: []notify.Action{{ID: "approve", Label: "Approve"}, {ID: "reject", Label: "Reject"}}}
}
