package claude

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/follow"
)

// TranscriptStateFile is the name of the discoverer's state file in its state directory.
const TranscriptStateFile = "claude-transcripts.json"

// DiscoverOptions tunes a Discoverer. Zero values take the defaults named.
type DiscoverOptions struct {
	// StateDir keeps how far each transcript was read across restarts (TranscriptStateFile);
	// none is kept when empty.
	StateDir string
	// Since limits the first read to transcripts modified this recently; 7 days when zero.
	Since time.Duration
	// Rescan is how often the tree is checked besides file-system events; 30s when zero.
	Rescan time.Duration
	// MaxFiles bounds the transcripts followed at once, the most recently modified kept; 4096
	// when zero.
	MaxFiles int
	// Log receives skipped lines and failed applies; slog.Default when nil.
	Log *slog.Logger
	// Now is the clock for Since; time.Now when nil.
	Now func() time.Time
}

// Discoverer follows Claude Code's transcripts (~/.claude/projects/<dir>/<session>.jsonl) as
// Claude Code writes them, read-only, and shows their sessions through the Service: todo lists,
// tasks, plan-mode plans, questions, prompts and tool calls, and token usage, without any hook
// installed. A session that hooks report too stays one session (the same id).
type Discoverer struct {
	f *follow.Follower
}

// NewDiscoverer makes a Discoverer of the projects directory dir (~/.claude/projects) applying
// through s.
func (s *Service) NewDiscoverer(dir string, opts DiscoverOptions) *Discoverer {
	if opts.Since <= 0 {
		opts.Since = 7 * 24 * time.Hour
	}
	src := follow.Source{
		Name: "claude transcripts", StateFile: TranscriptStateFile, Match: isTranscript,
		MaxDepth: 1, MaxLineBytes: MaxTranscriptLine,
		New: func(path string, saved follow.Saved) follow.Parser {
			return transcriptFollow{s.newTranscriptParser(path, saved.Thread, saved.Cwd)}
		},
	}
	return &Discoverer{f: follow.New(dir, src, follow.Options{StateDir: opts.StateDir, Since: opts.Since,
		Rescan: opts.Rescan, MaxFiles: opts.MaxFiles, Log: opts.Log, Now: opts.Now})}
}

// Run follows the transcripts until ctx ends. The directory need not exist yet.
func (d *Discoverer) Run(ctx context.Context) error { return d.f.Run(ctx) }

// isTranscript reports whether rel (under the projects directory) is a session's transcript:
// <project dir>/<session>.jsonl, one level down; sub-agents' files further down are not.
func isTranscript(rel string) bool {
	dir, name := filepath.Split(rel)
	return strings.HasSuffix(name, ".jsonl") && dir != "" && !strings.Contains(strings.TrimSuffix(dir, string(filepath.Separator)), string(filepath.Separator))
}

// transcriptFollow adapts a transcriptParser to follow.Parser.
type transcriptFollow struct{ p *transcriptParser }

func (t transcriptFollow) Line(b []byte, n int) error      { return t.p.Line(b, n) }
func (t transcriptFollow) Flush(ctx context.Context) error { return t.p.Flush(ctx) }
func (t transcriptFollow) Saved() follow.Saved {
	sid, cwd := t.p.Saved()
	return follow.Saved{Thread: sid, Cwd: cwd}
}
