package codex

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/follow"
	"github.com/plandash/plandash/internal/plans"
)

// StateFile is the name of the tailer's state file in its state directory.
const StateFile = "codex-rollouts.json"

// TailerOptions tunes a Tailer. Zero values take the defaults named.
type TailerOptions struct {
	// StateDir holds the state file (StateFile) that remembers how far each rollout was
	// applied, so a restart does not apply history again. No state is kept when empty.
	StateDir string
	// Since limits the first read to files modified this recently; 24h when zero. Older files
	// are read (from their start) only once Codex writes to them again (a resumed session).
	Since time.Duration
	// Host names the machine, recorded with each session; os.Hostname when empty.
	Host string
	// Rescan is how often the whole tree is checked besides the file-system events, for
	// anything the events missed (watch limits, a directory created and written at once);
	// 30s when zero.
	Rescan time.Duration
	// ApplyTimeout bounds one apply; a batch that times out is tried again later. 30s when zero.
	ApplyTimeout time.Duration
	// Retry is how long a failed apply waits before it is tried again; 2s when zero.
	Retry time.Duration
	// MaxFiles bounds the files followed and remembered, the most recently modified kept;
	// 4096 when zero.
	MaxFiles int
	// SkipLogEvery is how often skipped lines are summed up: per file and interval the first is
	// logged in full and the rest in one summary line at the interval's end. A minute when zero.
	SkipLogEvery time.Duration
	// Log receives skipped lines and failed applies; slog.Default when nil.
	Log *slog.Logger
	// Now is the clock for Since; time.Now when nil.
	Now func() time.Time
}

// Tailer follows Codex's rollout files under a sessions directory as Codex appends to them and
// applies what they say. Build it with NewTailer and start it with Run.
type Tailer struct {
	f *follow.Follower
}

// NewTailer makes a Tailer of the sessions directory dir ($CODEX_HOME/sessions, by default
// ~/.codex/sessions) that hands each batch of translated messages to apply (see ApplyTo).
func NewTailer(dir string, apply ApplyFunc, opts TailerOptions) *Tailer {
	if opts.Host == "" {
		opts.Host, _ = os.Hostname()
	}
	src := follow.Source{
		Name: "codex tailer", StateFile: StateFile, Match: isRollout, MaxLineBytes: MaxLineBytes,
		New: func(path string, saved follow.Saved) follow.Parser {
			tr := NewTranslator(path, opts.Host)
			tr.Resume(saved.Thread, saved.Cwd)
			return &rolloutParser{path: path, tr: tr, apply: apply}
		},
	}
	return &Tailer{f: follow.New(dir, src, follow.Options{StateDir: opts.StateDir, Since: opts.Since, Rescan: opts.Rescan,
		ApplyTimeout: opts.ApplyTimeout, Retry: opts.Retry, MaxFiles: opts.MaxFiles, SkipLogEvery: opts.SkipLogEvery,
		Log: opts.Log, Now: opts.Now})}
}

// Run follows the tree until ctx ends, then saves the state and returns nil. The directory
// need not exist yet: its nearest existing ancestor is watched, and the directory followed as
// soon as it appears (a user's first Codex session). It returns an error only when
// the file-system watcher cannot be made or the state directory is unusable.
func (t *Tailer) Run(ctx context.Context) error { return t.f.Run(ctx) }

// isRollout reports whether rel names a rollout file.
func isRollout(rel string) bool {
	name := filepath.Base(rel)
	return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
}

// rolloutParser decodes one rollout's lines and applies them through its Translator.
type rolloutParser struct {
	path    string
	tr      *Translator
	apply   ApplyFunc
	pending []Line
}

func (p *rolloutParser) Line(b []byte, number int) error {
	l, err := DecodeLine(b, number)
	if err != nil {
		var le *LineError
		if errors.As(err, &le) {
			le.Path = p.path
		}
		return err
	}
	p.pending = append(p.pending, l)
	return nil
}

// Flush translates and applies the pending lines. On failure the Translator is restored and
// the lines dropped, so the same lines, read again, translate the same way.
func (p *rolloutParser) Flush(ctx context.Context) error {
	lines := p.pending
	p.pending = p.pending[:0]
	saved := p.tr.clone()
	msgs := p.tr.Translate(lines)
	if len(msgs) == 0 {
		return nil
	}
	var at time.Time
	for _, l := range lines {
		if t, err := time.Parse(time.RFC3339Nano, l.Timestamp); err == nil && t.After(at) {
			at = t
		}
	}
	if !at.IsZero() {
		// A rollout of last week read at start is last week's session, not an active one.
		ctx = plans.WithTime(ctx, at)
	}
	if err := p.apply(ctx, msgs); err != nil {
		p.tr = saved
		return fmt.Errorf("line %d: %w", lines[0].Number, err)
	}
	return nil
}

func (p *rolloutParser) Saved() follow.Saved {
	return follow.Saved{Thread: p.tr.ThreadID(), Cwd: p.tr.Cwd()}
}

// clone copies the Translator's state.
func (t *Translator) clone() *Translator {
	c := *t
	c.planCalls = maps.Clone(t.planCalls)
	c.goalCalls = maps.Clone(t.goalCalls)
	return &c
}
