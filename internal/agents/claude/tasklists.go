package claude

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/follow"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// Bounds on reading Claude Code's task lists (~/.claude/tasks/<list>/<n>.json).
const (
	maxTaskFile  = 64 << 10 // one task
	maxTaskFiles = 512      // tasks read of one list
	maxTaskLists = 4096     // lists looked at in one poll
)

// sessionUUID is the shape of a list named by its session (the default); lists named for a
// team or by CLAUDE_CODE_TASK_LIST_ID belong to no one session and are not shown.
var sessionUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TaskLists polls Claude Code's task lists: the current state of each session's tasks, one
// JSON file per task, rewritten in place as they change. A transcript tells the same story call
// by call; the lists also catch what a transcript read from the middle missed. Build it with
// Service.NewTaskLists and start it with Run.
type TaskLists struct {
	svc   *Service
	dir   string
	every time.Duration
	since time.Duration
	now   func() time.Time
	log   *slog.Logger
	last  map[string][32]byte // list → the hash of the tasks last applied
}

// NewTaskLists makes a TaskLists of dir (~/.claude/tasks), polled every 2 s, lists changed in
// the last since (7 days when zero).
func (s *Service) NewTaskLists(dir string, since time.Duration, log *slog.Logger, now func() time.Time) *TaskLists {
	if since <= 0 {
		since = 7 * 24 * time.Hour
	}
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &TaskLists{svc: s, dir: dir, every: 2 * time.Second, since: since, now: now, log: log, last: map[string][32]byte{}}
}

// Run polls until ctx ends.
func (l *TaskLists) Run(ctx context.Context) error {
	tick := time.NewTicker(l.every)
	defer tick.Stop()
	for {
		l.poll(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// poll applies every recently changed session list whose tasks differ from the last applied.
func (l *TaskLists) poll(ctx context.Context) {
	f, err := os.Open(l.dir)
	if err != nil {
		return // no task list yet
	}
	entries, _ := f.ReadDir(maxTaskLists)
	f.Close()
	cutoff := l.now().Add(-l.since)
	for _, e := range entries {
		// Directories only, never followed through a link out of ~/.claude/tasks.
		if !e.IsDir() || !sessionUUID.MatchString(e.Name()) {
			continue
		}
		tasks, newest := readTaskList(filepath.Join(l.dir, e.Name()))
		if newest.Before(cutoff) {
			continue
		}
		b, _ := json.Marshal(tasks)
		h := sha256.Sum256(b)
		if l.last[e.Name()] == h {
			continue
		}
		if err := l.svc.applyTaskList(ctx, e.Name(), tasks, newest); err != nil {
			l.log.Warn("claude task lists: not applied", "list", e.Name(), "err", err)
			continue
		}
		if len(l.last) >= maxTaskLists {
			clear(l.last)
		}
		l.last[e.Name()] = h
	}
}

// readTaskList reads one list's tasks, the careful way (regular files only, bounded), and the
// newest file's modification time. Files that do not decode are passed over.
func readTaskList(dir string) ([]Task, time.Time) {
	var tasks []Task
	var newest time.Time
	f, err := os.Open(dir)
	if err != nil {
		return nil, newest
	}
	entries, _ := f.ReadDir(maxTaskFiles)
	f.Close()
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
		b, err := follow.ReadSmall(filepath.Join(dir, e.Name()), maxTaskFile)
		if err != nil {
			continue
		}
		if t, ok := DecodeTaskFile(b); ok {
			tasks = append(tasks, t)
		}
	}
	sortTasks(tasks)
	return tasks, newest
}

// DecodeTaskFile reads one task file ({"id","subject","description","activeForm","status",
// "blockedBy",…}); false when it is not a task (no id, or not a JSON object).
func DecodeTaskFile(b []byte) (Task, bool) {
	var w struct {
		ID          json.RawMessage `json:"id"`
		Subject     string          `json:"subject"`
		Description string          `json:"description"`
		ActiveForm  string          `json:"activeForm"`
		Status      string          `json:"status"`
		Owner       string          `json:"owner"`
		BlockedBy   []string        `json:"blockedBy"`
	}
	if json.Unmarshal(b, &w) != nil {
		return Task{}, false
	}
	id := idString(map[string]json.RawMessage{"id": w.ID}, "id")
	if id == "" || len(id) > 64 || len(w.Status) > 32 || len(w.BlockedBy) > 256 {
		return Task{}, false
	}
	return Task{ID: id, Subject: hookkit.Truncate(w.Subject, 1024), Description: hookkit.Truncate(w.Description, 8<<10),
		ActiveForm: hookkit.Truncate(w.ActiveForm, 1024), Status: w.Status, Owner: hookkit.Truncate(w.Owner, 256), BlockedBy: w.BlockedBy}, true
}

// applyTaskList shows a session's tasks as its list files have them.
func (s *Service) applyTaskList(ctx context.Context, sid string, tasks []Task, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := SessionKey(sid)
	d, err := s.plans.Session(ctx, key)
	if err != nil && errs.KindOf(err) != errs.NotFound {
		return err
	}
	shown := false
	for _, p := range d.Plans {
		if p.ID == PlanTasks && !p.Removed {
			if slices.EqualFunc(TasksFromEntries(p.Entries), tasks, sameTask) {
				return nil // the transcript or the hooks showed this already
			}
			shown = true
		}
	}
	if len(tasks) == 0 && !shown {
		return nil // an empty list is no news about a session
	}
	b := &batch{sid: key}
	b.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"plan": map[string]any{}},
		"clientInfo": map[string]any{"name": "plandash-tasks"}},
		map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": AgentName, "title": AgentTitle}})
	if !slices.Contains(d.Session.Via, plans.ViaTranscript) {
		b.request("session/new", map[string]any{"cwd": d.Session.Cwd, "mcpServers": []any{}, "_meta": map[string]any{"plandash": map[string]any{
			"host": s.cfg.Host, "agentSessionId": sid, "via": plans.ViaTranscript}}}, map[string]any{"sessionId": key})
	}
	b.tasks(tasks)
	return s.apply(plans.WithTime(ctx, at), b.out, "claude task lists: update not applied", "session", key)
}

func sameTask(a, b Task) bool {
	return a.ID == b.ID && a.Subject == b.Subject && a.Description == b.Description && a.ActiveForm == b.ActiveForm &&
		a.Status == b.Status && a.Owner == b.Owner && slices.Equal(a.BlockedBy, b.BlockedBy)
}
